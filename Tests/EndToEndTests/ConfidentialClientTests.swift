import Foundation
import PingEmulator
import Testing

/// A secret with the characters RFC 6749 §2.3.1 makes pingcli form-encode before base64.
let confidentialSecret = "s3cr:et +%&/=x"

/// An emulator whose test client is confidential, authenticating only with `method`, and whose revocation
/// endpoint refuses public clients (as Glewlwyd and canaille do).
func confidentialEmulator(method: String, lifetime: Int = 3600, layout: Layout = .pingOne) throws -> Emulator {
    let emulator = try startEmulator {
        $0.layout = layout
        $0.clients = [
            RegisteredClient(clientID: "pingcli-test", clientSecret: confidentialSecret, authMethod: method),
            RegisteredClient(clientID: "public-app"),
        ]
        $0.publicClientsMayRevoke = false
        $0.accessTokenLifetime = lifetime
        $0.deviceInterval = 1
    }
    if method == "client_secret_post" {
        var faults = Faults()
        faults.discoveryOverrides = ["token_endpoint_auth_methods_supported": ["none", "client_secret_post"]]
        emulator.faults = faults
    }
    return emulator
}

extension Sandbox {
    /// Writes the secret file in a directory closed to group and others, as the file gate requires.
    func secretFile(_ contents: String, mode: Int = 0o600) -> String {
        let directory = root + "/secrets"
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory + "/client-secret"
        _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: mode])
        return path
    }
}

@Suite("confidential clients")
struct ConfidentialClientTests {
    @Test(
        "confidential-revocation: a client with a secret logs in, refreshes and revokes where public clients may not revoke",
        arguments: ["client_secret_basic", "client_secret_post"])
    func confidentialRevocation(method: String) throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: method, lifetime: 20))
        // The revoke scope (a PingOne custom resource's) makes the tokens revocable on PingOne.
        let login = sandbox.login(
            emulator, ["--client-secret-file", sandbox.secretFile(confidentialSecret + "\n"), "--scope", "openid profile email revoke"])
        #expect(login.status == 0, "\(login)")
        let profile = readText(sandbox.profileDirectory + "/profile.json") ?? ""
        #expect(profile.contains("\"token_endpoint_auth_method\" : \"\(method)\""), "\(profile)")
        #expect(!profile.contains(confidentialSecret))
        // A refresh (the 20 s token is inside the 30 s threshold) authenticates too: the secret came back
        // from the encrypted cache.
        emulator.accessTokenLifetime = 3600
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
        let access = try #require(emulator.issuedAccessTokens.last)
        let refresh = try #require(emulator.issuedRefreshTokens.last)
        let run = sandbox.run(["logout", "--revoke"])
        #expect(run.status == 0, "\(run)")
        #expect(!emulator.isActive(token: access) && !emulator.isActive(token: refresh))
        let authenticated = emulator.requests(to: .token) + emulator.requests(to: .revoke)
        #expect(
            authenticated.count == 4 && authenticated.allSatisfy { $0.status == 200 },
            "\(authenticated.map { "\($0.path) \($0.status) \($0.form)" })")
        for request in authenticated {
            if method == "client_secret_basic" {
                #expect(request.headers["authorization"]?.hasPrefix("Basic ") == true)
                #expect(request.form["client_secret"] == nil)
            } else {
                #expect(request.headers["authorization"] == nil)
                #expect(request.form["client_secret"] == confidentialSecret)
            }
        }
    }

    @Test("public-revocation-refused: the same provider refuses revocation from a public client, and pingcli says so")
    func publicRevocationRefused() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic"))
        #expect(sandbox.run(["login", "--issuer", emulator.issuer, "--client-id", "public-app", "--timeout", "30"]).status == 0)
        let run = sandbox.run(["logout", "--revoke"])
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("invalid_client"))
        #expect(run.rule == "logout-revocation-refused", "\(run)")
    }

    @Test("client-secret-never-shown: the secret is absent from children's argv and environment, output, --verbose and profile.json")
    func secretNeverShown() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic", lifetime: 20))
        let record = sandbox.root + "/children.txt"
        let keyHex = String(repeating: "ab", count: 32)
        let environment = [
            "PINGCLI_CLIENT_SECRET": confidentialSecret, "PINGCLI_BROWSER": "record-env", "RECORD_ENV_FILE": record,
            "PINGCLI_KEY_COMMAND": "{ tr '\\0' '\\n' </proc/$$/cmdline; tr '\\0' '\\n' </proc/$$/environ; } >>\(record); echo \(keyHex)",
        ]
        var runs = [sandbox.login(emulator, ["--verbose", "--scope", "openid profile email revoke"], environment: environment)]
        #expect(runs[0].status == 0, "\(runs[0])")
        emulator.accessTokenLifetime = 3600
        runs.append(sandbox.run(["token", "--raw", "--verbose"], environment: environment))
        runs.append(sandbox.run(["status", "--verbose"], environment: environment))
        runs.append(sandbox.run(["logout", "--revoke", "--verbose"], environment: environment))
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs)")
        let children = readText(record) ?? ""
        #expect(children.contains("--- cmdline"), "the browser double ran")
        #expect(children.contains("PINGCLI_BROWSER=record-env"), "the environment was recorded")
        let basic = Data("pingcli-test:s3cr%3Aet%20%2B%25%26%2F%3Dx".utf8).base64EncodedString()
        for text in runs.flatMap({ [$0.stdout, $0.stderr] }) + [children, readText(sandbox.profileDirectory + "/profile.json") ?? ""] {
            #expect(!text.contains(confidentialSecret) && !text.contains("s3cr") && !text.contains(basic))
        }
        #expect(!children.contains("PINGCLI_CLIENT_SECRET"))
        #expect(emulator.requests(to: .token).map(\.grantType) == ["authorization_code", "refresh_token"])
        #expect(emulator.requests(to: .token).first?.headers["authorization"] == "Basic \(basic)")
    }

    @Test(
        "client-secret-gate: a secret with a control character, an empty one, or a file others can read is refused before any request",
        arguments: ["control", "two-lines", "empty", "mode", "missing"])
    func secretGate(kind: String) throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic"))
        var environment: [String: String] = [:]
        var arguments: [String] = []
        switch kind {
        case "control": environment["PINGCLI_CLIENT_SECRET"] = "abc\u{1B}[2Jdef"
        case "two-lines": arguments = ["--client-secret-file", sandbox.secretFile("abc\nxyz\n")]
        case "empty": arguments = ["--client-secret-file", sandbox.secretFile("\n")]
        case "mode": arguments = ["--client-secret-file", sandbox.secretFile("abcdef\n", mode: 0o644)]
        default: arguments = ["--client-secret-file", sandbox.root + "/no-such-file"]
        }
        let run = sandbox.login(emulator, arguments, environment: environment)
        #expect(run.status == (kind == "mode" ? 1 : 2), "\(run)")
        #expect(run.stderr.hasPrefix("pingcli: ") && run.stderr.split(separator: "\n").count == 1, "\(run)")
        #expect(run.rule == (kind == "mode" ? "file-mode-refused" : "client-secret-input"), "\(run)")
        #expect(!run.stderr.contains("abc") && !run.stderr.contains("\u{1B}"))
        #expect(emulator.requests.isEmpty, "nothing was sent")
    }
}

@Suite("confidential clients: methods")
struct ClientAuthMethodEndToEndTests {
    @Test("client-auth-unsupported: a provider that lists no secret method is refused before the browser opens")
    func unsupportedMethod() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic"))
        emulator.faults = Faults(discoveryOverrides: ["token_endpoint_auth_methods_supported": ["private_key_jwt"]])
        let run = sandbox.login(emulator, environment: ["PINGCLI_CLIENT_SECRET": confidentialSecret])
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("accepts none of client_secret_basic, client_secret_post (it lists private_key_jwt)"))
        #expect(run.rule == "client-auth-unsupported", "\(run)")
        #expect(sandbox.browserLog.isEmpty && emulator.requests(to: .authorize).isEmpty)
    }
}

@Suite("confidential clients: device flow")
struct ConfidentialDeviceTests {
    @Test("confidential-device: the device authorization request and every poll authenticate with the secret")
    func device() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_post"))
        emulator.faults.deviceErrors = ["authorization_pending"]
        let run = sandbox.run(
            ["login", "--device", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--no-browser"],
            environment: ["PINGCLI_CLIENT_SECRET": confidentialSecret])
        #expect(run.status == 0, "\(run)")
        let authenticated = emulator.requests(to: .deviceAuthorization) + emulator.requests(to: .token)
        #expect(authenticated.count == 3)
        #expect(authenticated.allSatisfy { $0.form["client_secret"] == confidentialSecret })
        #expect(!run.stderr.contains(confidentialSecret))
    }
}
