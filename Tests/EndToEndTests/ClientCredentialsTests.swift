import Foundation
import PingEmulator
import Testing

/// `pingcli login --client-credentials`: a machine signs in as itself (RFC 6749 §4.4).
@Suite("client credentials", .serialized)
struct ClientCredentialsTests {
    func machineLogin(_ emulator: Emulator, _ sandbox: Sandbox, _ extra: [String] = []) -> CLIRun {
        sandbox.run(
            ["login", "--client-credentials", "--issuer", emulator.issuer, "--client-id", "pingcli-test"] + extra,
            environment: ["PINGCLI_CLIENT_SECRET": confidentialSecret])
    }

    func grants(_ emulator: Emulator) -> [RecordedRequest] {
        emulator.requests(to: .token).filter { $0.grantType == "client_credentials" }
    }

    @Test("client-credentials-id-token-checked: an ID token the grant sends anyway is validated (here: another issuer); nothing cached")
    func idTokenChecked() throws {
        let emulator = try confidentialEmulator(method: "client_secret_basic", layout: .pingOne)
        defer { emulator.stop() }
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let now = Int(Date().timeIntervalSince1970)
        let idToken =
            part("{\"alg\":\"RS256\",\"typ\":\"JWT\"}") + "."
            + part("{\"iss\":\"https://evil.example\",\"sub\":\"x\",\"aud\":\"pingcli-test\",\"exp\":\(now + 600),\"iat\":\(now)}")
            + ".c2ln"
        var faults = Faults()
        faults.tokenResponseOverrides = ["id_token": .string(idToken)]
        emulator.faults = faults
        let sandbox = Sandbox()
        let run = machineLogin(emulator, sandbox, ["--scope", "profile"])
        #expect(run.status == 1, "\(run)")
        // Its signature is checked first (and is not the provider's), before its claims.
        #expect(run.rule == "id-token-bad-signature", "\(run)")
        #expect(
            run.stderr.hasPrefix("pingcli: login failed: id-token-bad-signature") && run.stderr.split(separator: "\n").count == 1, "\(run)")
        #expect(grants(emulator).count == 1)
        #expect(!FileManager.default.fileExists(atPath: sandbox.stateDirectory + "/tokens.enc"))
    }

    @Test(
        "client-credentials-login: no browser, no ID token, the token on stdout, status names the grant",
        arguments: Layout.allCases)
    func login(layout: Layout) throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic", layout: layout))
        let run = machineLogin(emulator, sandbox, ["--scope", "profile"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("as client pingcli-test (client credentials"))
        #expect(sandbox.browserLog.isEmpty, "no browser")
        #expect(emulator.requests(to: .authorize).isEmpty)
        #expect(grants(emulator).count == 1)
        #expect(grants(emulator).first?.form["scope"] == "profile")
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
        let status = sandbox.run(["status"])
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.contains("grant:         client credentials"))
        #expect(sandbox.run(["status", "--json"]).stdout.contains("\"grant\": \"client_credentials\""))
        let profile = readText(sandbox.profileDirectory + "/profile.json") ?? ""
        #expect(profile.contains("\"grant_type\" : \"client_credentials\"") && !profile.contains(confidentialSecret))
    }

    @Test("client-credentials-no-session: logout --end-session on a machine profile says there is no browser session, opens nothing")
    func noBrowserSession() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic", layout: .pingOne))
        #expect(machineLogin(emulator, sandbox).status == 0)
        let logout = sandbox.run(["logout", "--end-session", "--port", "0", "--timeout", "5"])
        #expect(logout.status == 2, "\(logout)")
        #expect(
            logout.stderr.hasSuffix(
                "pingcli: profile \"default\" signs in as the client itself (client credentials): there is no browser session to end; leave out --end-session\n"
            ), "\(logout)")
        #expect(logout.stderr.contains("Removed the cached tokens"))
        #expect(logout.rule == "client-credentials-no-session", "\(logout)")
        #expect(sandbox.browserLog.isEmpty && emulator.requests(to: .endSession).isEmpty)
    }

    @Test("client-credentials-renewal: 50 parallel token --raw on an expiring token send exactly one grant and print the same new token")
    func renewal() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_post", lifetime: 20))
        let login = machineLogin(emulator, sandbox)
        #expect(login.status == 0, "\(login)")
        emulator.accessTokenLifetime = 3600
        var faults = emulator.faults
        faults.delays = [.token: 0.3]  // a slow answer widens the window for a second request
        emulator.faults = faults
        let (runs, _) = runConcurrently(sandbox, count: 50) { _ in ["token", "--raw"] }
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.first { $0.status != 0 }.map(\.description) ?? "")")
        #expect(grants(emulator).count == 2, "the login's and exactly one renewal")
        #expect(emulator.issuedAccessTokens.count == 2)
        #expect(runs.allSatisfy { $0.stdout == emulator.newestTokenLine })
        #expect(grants(emulator).allSatisfy { $0.form["client_secret"] == confidentialSecret })
        #expect(emulator.issuedRefreshTokens.isEmpty)
    }

    @Test("client-credentials-renewal-refused: a rejected secret is reported once, then held back by the backoff")
    func renewalRefused() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic", lifetime: 20))
        let login = machineLogin(emulator, sandbox)
        #expect(login.status == 0, "\(login)")
        var faults = emulator.faults
        faults.tokenErrors = [
            "client_credentials": CannedOAuthError(status: 401, error: "invalid_client", errorDescription: "secret rotated")
        ]
        emulator.faults = faults
        let first = sandbox.run(["token", "--raw"])
        #expect(first.status == 1, "\(first)")
        #expect(first.stderr.contains("invalid_client") && first.stdout.isEmpty)
        #expect(first.rule == "refresh-client-error", "\(first)")
        #expect(sandbox.run(["token", "--raw"]).status == 1)
        #expect(grants(emulator).count == 2, "the login's and one refused renewal: the second call was held back")
    }

    @Test("client-credentials-relogin: a plain pingcli login on a machine profile runs the grant again, and asks for the secret")
    func relogin() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic"))
        #expect(machineLogin(emulator, sandbox, ["--scope", "profile email"]).status == 0)
        let withoutSecret = sandbox.run(["login"])
        #expect(withoutSecret.status == 2, "\(withoutSecret)")
        #expect(withoutSecret.rule == "client-credentials-no-auth", "\(withoutSecret)")
        let again = sandbox.run(["login"], environment: ["PINGCLI_CLIENT_SECRET": confidentialSecret])
        #expect(again.status == 0, "\(again)")
        #expect(grants(emulator).count == 2 && sandbox.browserLog.isEmpty)
        #expect(grants(emulator).map { $0.form["scope"] } == ["profile email", "profile email"], "the saved scopes again")
    }

    @Test("client-credentials-needs-secret: without a secret the login is a usage error, before any request")
    func needsSecret() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic"))
        let run = sandbox.run(["login", "--client-credentials", "--issuer", emulator.issuer, "--client-id", "pingcli-test"])
        #expect(run.status == 2, "\(run)")
        #expect(run.rule == "client-credentials-no-auth", "\(run)")
        #expect(run.stderr.contains("--client-secret-file PATH or set PINGCLI_CLIENT_SECRET (or --client-key-file PEM for private_key_jwt"))
        #expect(emulator.requests.isEmpty)
    }
}
