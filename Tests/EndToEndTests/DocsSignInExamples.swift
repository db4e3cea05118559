import Foundation
import PingEmulator
import Testing

/// docs/usage.md's sign-in examples ("The four ways in", "Signing in", "A provider without discovery",
/// "Another issuer on a profile that has a session", "Mutual TLS and key pins"), run as written.
@Suite("docs examples: signing in")
struct DocsSignInExamples {
    static let browser = "pingcli login --issuer https://auth.pingone.com/<environment-id>/as --client-id <client-id>"
    static let device = "pingcli login --device --issuer https://auth.pingone.com/<environment-id>/as --client-id <client-id>"
    static let machine =
        #"PINGCLI_CLIENT_SECRET="$SECRET" pingcli login --client-credentials \ --issuer https://auth.pingone.com/<environment-id>/as --client-id <worker-app-id> --scope "my-api:read""#
    static let region = "pingcli login --pingone <environment-id> --region eu --client-id <client-id> # the same, by PingOne's coordinates"
    static let domain = "pingcli login --pingone-domain auth.example.com --client-id <client-id> # a PingOne custom domain"
    static let overrides =
        #"pingcli login --issuer https://sso.example.com --client-id <id> \ --authorization-endpoint https://sso.example.com/oauth2/authorize \ --token-endpoint https://sso.example.com/oauth2/token \ --jwks-uri https://sso.example.com/oauth2/keys \ --userinfo-endpoint https://sso.example.com/oauth2/userinfo \ --revocation-endpoint https://sso.example.com/oauth2/revoke"#
    static let issuerSwitch =
        #"plain block "$ pingcli login --issuer https://auth.pingone.eu/<other-env>/as --client-id <id>" #ee374250d550b356"#
    static let certificateLogin =
        #"pingcli login --client-credentials --issuer https://sso.example.com --client-id batch \ --client-cert ~/.config/batch/client.pem --client-key ~/.config/batch/client.key"#
    static let certificateToken = #"pingcli token --format json # "cnf": {"x5t#S256": "…"} when the token is bound to the certificate"#
    static let pinPipeline =
        "pin=$(openssl s_client -connect sso.example.com:443 </dev/null 2>/dev/null | openssl x509 -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64)"
    static let pinLogin = #"pingcli login --issuer https://sso.example.com --client-id cli --pin "sha256//$pin""#

    static let readmeBrowser = "pingcli login --issuer https://auth.pingone.com/<env-id>/as --client-id <client-id>"
    static let manBrowser = "pingcli login --issuer https://auth.pingone.com/ENV-ID/as --client-id ID"
    static let readmeRegion = "pingcli login --pingone <env-id> --region eu --client-id <client-id> # the same, by PingOne's coordinates"

    @Test(
        "docs-usage-login-browser: the browser login of usage.md, the README and the man page signs in to the emulator as written",
        arguments: [browser, readmeBrowser, manBrowser])
    func browserLogin(key: String) throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        var shell = DocsShell(Sandbox(), emulator: emulator)
        shell.substitutions += [("https://auth.pingone.com/ENV-ID/as", emulator.issuer), ("--client-id ID", "--client-id pingcli-test")]
        let run = try shell.succeeds(key)
        #expect(run.stderr.contains("Logged in to \(emulator.issuer) as Demo User"), "\(run)")
        #expect(emulator.requests(to: .token).count == 1 && !shell.sandbox.browserLog.isEmpty)
        #expect(shell.sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
    }

    @Test("docs-usage-login-device: the device-code login signs in with a code; the browser double approves it")
    func deviceLogin() throws {
        let emulator = try startEmulator { $0.deviceInterval = 1 }
        defer { emulator.stop() }
        let shell = DocsShell(Sandbox(), emulator: emulator)
        let run = try shell.succeeds(Self.device)
        #expect(run.stderr.contains(emulator.baseURL + "/device"), "the address to open: \(run)")
        #expect(emulator.requests(to: .deviceAuthorization).count == 1 && emulator.requests(to: .authorize).isEmpty)
        #expect(shell.sandbox.run(["status"]).stdout.contains("grant:         device code"))
    }

    @Test("docs-usage-login-machine: the client-credentials login with PINGCLI_CLIENT_SECRET=\"$SECRET\" and --scope \"my-api:read\"")
    func machineLogin() throws {
        let emulator = try startEmulator {
            $0.clients = [
                RegisteredClient(
                    clientID: "pingcli-test", clientSecret: confidentialSecret, allowedScopes: ["my-api:read"],
                    authMethod: "client_secret_basic")
            ]
        }
        defer { emulator.stop() }
        var shell = DocsShell(Sandbox(), emulator: emulator)
        shell.environment["SECRET"] = confidentialSecret
        let run = try shell.succeeds(Self.machine)
        #expect(run.stderr.contains("as client pingcli-test (client credentials"), "\(run)")
        let grant = try #require(emulator.requests(to: .token).last)
        #expect(grant.grantType == "client_credentials" && grant.form["scope"] == "my-api:read")
        #expect(shell.sandbox.browserLog.isEmpty)
    }

    @Test(
        "docs-usage-login-pingone: --pingone <environment-id> --region eu and --pingone-domain print the issuer first and ask that host",
        arguments: [(region, "auth.pingone.eu"), (readmeRegion, "auth.pingone.eu"), (domain, "auth.example.com")])
    func pingOneCoordinates(key: String, host: String) throws {
        let proxy = try RecordingProxy()
        defer { proxy.stop() }
        var shell = DocsShell(Sandbox())
        let environmentID = PingOneShortcutTests.environmentID
        shell.substitutions = [("<environment-id>", environmentID), ("<env-id>", environmentID), ("<client-id>", "pingcli-test")]
        shell.environment = proxy.environment
        let run = try shell.run(key)
        let issuer = host == "auth.pingone.eu" ? "https://auth.pingone.eu/\(environmentID)/as" : "https://auth.example.com/as"
        #expect(run.stderr.split(separator: "\n").first?.hasSuffix("issuer \(issuer)") == true, "\(run)")
        #expect(proxy.requestLines.first == "CONNECT \(host):443 HTTP/1.1", "\(proxy.requestLines)")
        #expect(run.status == 3, "the proxy answers garbage: \(run)")
    }

    @Test("docs-usage-login-endpoints: the login naming its endpoints signs in to a provider without discovery")
    func endpointOverrides() throws {
        // PingFederate's rules: revoking the refresh token revokes the grant, whatever the scopes.
        let emulator = try startEmulator {
            $0.servesDiscovery = false
            $0.layout = .pingFederate
        }
        defer { emulator.stop() }
        var shell = DocsShell(Sandbox(), emulator: emulator)
        let kinds: [(String, EndpointKind)] = [
            ("authorize", .authorize), ("token", .token), ("keys", .jwks), ("userinfo", .userinfo), ("revoke", .revoke),
        ]
        shell.substitutions =
            try kinds.map { ("https://sso.example.com/oauth2/\($0.0)", try #require(emulator.url(for: $0.1))) } + shell.substitutions
        let run = try shell.succeeds(Self.overrides)
        #expect(run.stderr.contains("Logged in to \(emulator.issuer)"), "\(run)")
        #expect(shell.sandbox.run(["status"]).stdout.contains("discovery:     none"))
        #expect(shell.sandbox.run(["logout", "--revoke"]).status == 0)
        #expect(!emulator.requests(to: .revoke).isEmpty, "the given revocation endpoint is used")
    }

    @Test(
        "docs-usage-issuer-switch: the issuer-switch transcript is what pingcli asks on a terminal (answered n)",
        .enabled(if: DebianTools.script != nil, "script (bsdutils) is missing"))
    func issuerSwitchTranscript() throws {
        let (first, second, sandbox) = try signedInBeforeSwitch()
        let documented = try DocExamples.text(Self.issuerSwitch)
        let command = try #require(documented.split(separator: "\n").first?.dropFirst(2))
            .replacingOccurrences(of: "https://auth.pingone.eu/<other-env>/as", with: second.issuer)
            .replacingOccurrences(of: "<id>", with: "pingcli-test")
        let answer = sandbox.root + "/answer"
        _ = FileManager.default.createFile(atPath: answer, contents: Data("n\n".utf8))
        let input = open(answer, O_RDONLY | O_CLOEXEC)
        defer { close(input) }
        var environment = sandbox.environment
        environment["PATH"] = Locations.binDirectory + ":" + (environment["PATH"] ?? "")
        let run = runProcess("/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment, timeout: 90, stdin: input)
        #expect(run.status == 2, "\(run)")
        // The typed-ahead answer is echoed by the terminal as soon as it opens, before the question.
        let printed = run.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n").filter { $0 != "n" }.prefix(2)
            .joined(separator: "\n")
        try expectSameTranscript(
            documented: documented.split(separator: "\n").dropFirst().joined(separator: "\n"), actual: printed,
            placeholders: [
                (#"(?m)\[y/N\].*$"#, "[y/N]"),  // the typed answer, echoed by the terminal
                (NSRegularExpression.escapedPattern(for: second.issuer), "NEW"),
                (NSRegularExpression.escapedPattern(for: first.issuer), "OLD"),
                (NSRegularExpression.escapedPattern(for: "https://auth.pingone.eu/<other-env>/as"), "NEW"),
                (NSRegularExpression.escapedPattern(for: "https://auth.pingone.com/<env>/as"), "OLD"),
            ])
        #expect(second.requests(to: .discovery).isEmpty, "n: nothing asked of the new issuer")
    }

    @Test("docs-usage-mtls: the certificate login (tls_client_auth) and token --format json showing cnf x5t#S256, as written")
    func certificateLoginExample() throws {
        let (sandbox, files, emulator) = try MutualTLSTests.setUp {
            var batch = RegisteredClient(clientID: "batch", authMethod: "tls_client_auth")
            batch.tlsClientAuthSubjectDN = MutualTLSFiles.clientSubject
            $0.clients.append(batch)
        }
        defer { emulator.stop() }
        let directory = sandbox.environment["HOME"]! + "/.config/batch"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for (source, name) in [(files.clientCertificate, "client.pem"), (files.clientKey, "client.key")] {
            try FileManager.default.copyItem(atPath: source, toPath: directory + "/" + name)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory + "/" + name)
        }
        var shell = DocsShell(sandbox, emulator: emulator)
        shell.environment["CURL_CA_BUNDLE"] = files.caFile
        try shell.succeeds(Self.certificateLogin)
        let token = try shell.succeeds(Self.certificateToken)
        let bound = try #require(try JSONSerialization.jsonObject(with: Data(token.stdout.utf8)) as? [String: Any])
        #expect((bound["cnf"] as? [String: String])?["x5t#S256"] == MutualTLSFiles.thumbprint(files.clientCertificate), "\(token)")
    }

    @Test("docs-usage-pin: the openssl pipeline computes the provider's pin and the login with --pin \"sha256//$pin\" signs in")
    func pinExample() throws {
        let (sandbox, files, emulator) = try MutualTLSTests.setUp { $0.clients.append(RegisteredClient(clientID: "cli")) }
        defer { emulator.stop() }
        var shell = DocsShell(sandbox, emulator: emulator)
        shell.substitutions.insert(("sso.example.com:443", "127.0.0.1:\(emulator.port)"), at: 0)
        shell.environment["CURL_CA_BUNDLE"] = files.caFile
        try shell.succeeds(Self.pinPipeline, Self.pinLogin)
        let profile = readText(sandbox.profileDirectory + "/profile.json") ?? ""
        #expect(profile.contains(try files.pin(of: files.serverCertificate)), "the pin saved is the server key's: \(profile)")
    }
}
