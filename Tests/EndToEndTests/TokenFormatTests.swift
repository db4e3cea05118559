import Foundation
import PingEmulator
import Testing

/// `pingcli token --format …`, `--id-token`, and what a pipe or a terminal gets without a format.
@Suite("token formats, end to end")
struct TokenFormatTests {
    /// stdout as a JSON object.
    func object(_ run: CLIRun) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run)")
    }

    /// An ID token's payload claims (the test trusts the emulator's signature).
    func claims(_ jwt: String) throws -> [String: Any] {
        let parts = jwt.split(separator: ".")
        try #require(parts.count == 3)
        var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        let data = try #require(Data(base64Encoded: payload))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func isRFC3339UTC(_ value: Any?) -> Bool {
        guard let text = value as? String else { return false }
        return text.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"#, options: .regularExpression) != nil
    }

    func refreshes(_ emulator: Emulator) -> Int {
        emulator.requests(to: .token).filter { $0.form["grant_type"] == "refresh_token" }.count
    }

    @Test("token-pipe: without --format, a pipe gets exactly the token, as X=$(pingcli token) expects")
    func pipeGetsTheToken() throws {
        let (emulator, sandbox, run) = try loggedIn(running: ["token"])
        #expect(run.stdout == emulator.newestTokenLine)
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
        #expect(sandbox.run(["token", "--format", "raw"]).stdout == emulator.newestTokenLine)
    }

    @Test("token-terminal: without --format, a terminal gets the summary and no secret")
    func terminalGetsTheSummary() throws {
        let (emulator, sandbox) = try loggedIn()
        // util-linux's script(1) gives pingcli a pseudo-terminal as stdout.
        let run = runProcess(
            "/usr/bin/script", ["-qec", "'\(Locations.pingcli)' token", "/dev/null"], environment: sandbox.environment, timeout: 60)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("profile:       default"), "\(run)")
        #expect(run.stdout.contains("refresh token: held"))
        for secret in emulator.issuedAccessTokens + emulator.issuedRefreshTokens { #expect(!run.stdout.contains(secret)) }
    }

    @Test("token-json: the access token with its type, expiry, scope, profile and issuer in one object")
    func json() throws {
        let (emulator, sandbox) = try loggedIn(profile: "work")
        let run = sandbox.run(["token", "--format", "json", "--profile", "work"])
        #expect(run.status == 0, "\(run)")
        let json = try object(run)
        #expect(json["access_token"] as? String == emulator.issuedAccessTokens.last)
        #expect(json["token_type"] as? String == "Bearer")
        #expect(isRFC3339UTC(json["expires_at"]), "\(run)")
        #expect((json["scope"] as? String)?.contains("openid") == true)
        #expect(json["profile"] as? String == "work")
        #expect(json["issuer"] as? String == emulator.issuer)
        #expect(json["id_token"] == nil && json["refresh_token"] == nil)
    }

    @Test("token-json-id-token: --id-token puts the ID token and its expiry in place of the access token")
    func jsonIDToken() throws {
        let (emulator, sandbox, run) = try loggedIn(running: ["token", "--format", "json", "--id-token"])
        let json = try object(run)
        #expect(json["access_token"] == nil)
        let idToken = try #require(json["id_token"] as? String)
        let payload = try claims(idToken)
        #expect(payload["iss"] as? String == emulator.issuer)
        let exp = try #require(payload["exp"] as? Double)
        #expect(json["expires_at"] as? String == ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: exp)))
        #expect(sandbox.run(["token", "--raw", "--id-token"]).stdout == idToken + "\n")
    }

    @Test("exec-credential: client.authentication.k8s.io/v1 by default, with the token and its expiry")
    func execCredentialV1() throws {
        let (emulator, _, run) = try loggedIn(running: ["token", "--format", "exec-credential"])
        let json = try object(run)
        #expect(json["apiVersion"] as? String == "client.authentication.k8s.io/v1")
        #expect(json["kind"] as? String == "ExecCredential")
        let status = try #require(json["status"] as? [String: Any])
        #expect(status["token"] as? String == emulator.issuedAccessTokens.last)
        #expect(isRFC3339UTC(status["expirationTimestamp"]))
    }

    @Test("exec-credential-v1beta1: KUBERNETES_EXEC_INFO asking for v1beta1 gets v1beta1")
    func execCredentialV1beta1() throws {
        let (emulator, sandbox) = try loggedIn()
        // What Debian's kubectl 1.20 sets.
        let info = #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{}}"#
        let run = sandbox.run(["token", "--format", "exec-credential"], environment: ["KUBERNETES_EXEC_INFO": info])
        #expect(run.status == 0, "\(run)")
        let json = try object(run)
        #expect(json["apiVersion"] as? String == "client.authentication.k8s.io/v1beta1")
        #expect((json["status"] as? [String: Any])?["token"] as? String == emulator.issuedAccessTokens.last)
    }

    @Test(
        "exec-info-gate: a KUBERNETES_EXEC_INFO that is not a known ExecCredential request is a usage error before any network",
        arguments: [
            ("not json", "is not a JSON object"),
            (#"["ExecCredential"]"#, "is not a JSON object"),
            (#"{"kind":"Pod","apiVersion":"client.authentication.k8s.io/v1"}"#, "is not an ExecCredential"),
            (#"{"kind":"ExecCredential","apiVersion":7}"#, "has no apiVersion string"),
            (#"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1alpha1"}"#, "which pingcli does not speak"),
            (#"{"kind":"ExecCredential","apiVersion":"\u001b[31mred"}"#, "which pingcli does not speak"),
            ("(100 000 bytes)", "longer than 64 KiB"),
        ])
    func execInfoGate(info: String, message: String) throws {
        // Built here, so the test's name does not print it.
        let info =
            info != "(100 000 bytes)"
            ? info
            : #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","pad":""# + String(repeating: "x", count: 100_000)
                + "\"}"
        let (emulator, sandbox) = try loggedIn { $0.accessTokenLifetime = 20 }  // would need a refresh
        let before = emulator.requests.count
        let run = sandbox.run(["token", "--format", "exec-credential"], environment: ["KUBERNETES_EXEC_INFO": info])
        #expect(run.status == 2, "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.rule == "exec-info-gate", "\(run)")
        #expect(run.stderr.hasPrefix("pingcli: KUBERNETES_EXEC_INFO ") && run.stderr.contains(message), "\(run)")
        #expect(run.stderr.split(separator: "\n").count == 1 && !run.stderr.contains("\u{1b}"))
        #expect(emulator.requests.count == before, "no refresh was sent")
    }

    @Test(
        "token-format-usage: an unknown --format, or --raw with another format, is a usage error",
        arguments: [
            (["--format", "yaml"], "--format must be one of raw, json, exec-credential, summary"),
            (["--raw", "--format", "json"], "--raw and --format json cannot be combined"),
        ])
    func formatUsage(arguments: [String], message: String) throws {
        let (_, sandbox) = try loggedIn()
        let run = sandbox.run(["token"] + arguments)
        #expect(run.status == 2 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == (message.hasSuffix("cannot be combined") ? "option-conflict" : "option-value"), "\(run)")
        #expect(run.stderr.contains(message), "\(run)")
    }

    @Test("id-token-refresh: an ID token within --min-ttl of its exp is refreshed, once")
    func idTokenRefresh() throws {
        let (emulator, sandbox) = try loggedIn { $0.idTokenLifetime = 20 }
        let first = sandbox.run(["token", "--raw", "--id-token", "--min-ttl", "0"])
        #expect(first.status == 0 && refreshes(emulator) == 0, "\(first)")
        let second = sandbox.run(["token", "--raw", "--id-token"])  // the default --min-ttl, 30 s
        #expect(second.status == 0, "\(second)")
        #expect(refreshes(emulator) == 1)
        #expect(second.stdout != first.stdout && second.stdout.split(separator: ".").count == 3)
        #expect(try claims(String(second.stdout.dropLast()))["iss"] as? String == emulator.issuer)
    }

    @Test("id-token-not-refreshed: a refresh that returns no new ID token is an error, not the stale one")
    func idTokenMissingAfterRefresh() throws {
        let (emulator, sandbox) = try loggedIn { $0.idTokenLifetime = 20 }
        let stale = sandbox.run(["token", "--raw", "--id-token", "--min-ttl", "0"]).stdout
        emulator.faults = Faults(tokenResponseOverrides: ["id_token": .null])
        let run = sandbox.run(["token", "--raw", "--id-token"])
        #expect(run.status == 4, "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.rule == "id-token-not-refreshed", "\(run)")
        #expect(run.stderr.contains("run pingcli login"), "\(run)")
        #expect(!run.stderr.contains(stale.dropLast()))
        #expect(refreshes(emulator) == 1)
        // The access token from that refresh was kept.
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
    }

    @Test("id-token-none: a profile signed in without openid has no ID token to give")
    func noIDTokenAtAll() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        #expect(sandbox.login(emulator, ["--scope", "profile"]).status == 0)
        let run = sandbox.run(["token", "--id-token"])
        #expect(run.status == 4 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == "id-token-none", "\(run)")
    }

    @Test("min-ttl-too-long: a --min-ttl longer than the server's token lifetime warns that every call refreshes")
    func minimumTTLLongerThanLifetime() throws {
        let (emulator, sandbox, run) = try loggedIn(running: ["token", "--raw", "--min-ttl", "7200"])
        #expect(run.stdout == emulator.newestTokenLine)
        #expect(run.stderr.contains("pingcli: warning: the new token expires in 59m") && run.stderr.contains("--min-ttl 7200"), "\(run)")
        #expect(refreshes(emulator) == 1)
        #expect(sandbox.run(["token", "--raw"]).stderr.isEmpty, "no warning when --min-ttl fits")
    }
}
