import Foundation
import PingEmulator
import Testing

/// Mutual TLS (RFC 8705) through the built binary, against the emulator's TLS ports (libssl): https on
/// the main port, a port that requires a client certificate listed in `mtls_endpoint_aliases`.
@Suite("mutual TLS (RFC 8705)")
struct MutualTLSTests {
    /// A PingFederate-layout emulator with TLS, a `tls_client_auth` machine client, a
    /// `self_signed_tls_client_auth` client and the usual public client.
    static func emulator(_ files: MutualTLSFiles, _ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws -> Emulator {
        try startEmulator {
            $0.layout = .pingFederate
            $0.tls = files.emulatorTLS
            var machine = RegisteredClient(clientID: "mtls-machine", authMethod: "tls_client_auth")
            machine.tlsClientAuthSubjectDN = MutualTLSFiles.clientSubject
            var selfSigned = RegisteredClient(clientID: "mtls-self", authMethod: "self_signed_tls_client_auth")
            selfSigned.selfSignedCertificateThumbprint = MutualTLSFiles.thumbprint(files.selfSignedCertificate)
            $0.clients = [RegisteredClient(clientID: "pingcli-test"), machine, selfSigned]
            configure(&$0)
        }
    }

    /// A sandbox, certificates made for it, and the emulator; the caller stops the emulator.
    static func setUp(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws -> (Sandbox, MutualTLSFiles, Emulator) {
        let sandbox = Sandbox()
        let files = try MutualTLSFiles(in: sandbox)
        return (sandbox, files, try emulator(files, configure))
    }

    /// The registered client, certificate and key for each RFC 8705 method.
    static func identity(_ method: String, _ files: MutualTLSFiles) -> (client: String, certificate: String, key: String) {
        method == "tls_client_auth"
            ? ("mtls-machine", files.clientCertificate, files.clientKey) : ("mtls-self", files.selfSignedCertificate, files.selfSignedKey)
    }

    static let methods = ["tls_client_auth", "self_signed_tls_client_auth"]

    /// Runs `body` with a sandbox, certificates made for it, the emulator and `method`'s registered client,
    /// certificate and key; then stops the emulator.
    static func withIdentity(
        _ method: String,
        _ body: (Sandbox, MutualTLSFiles, Emulator, _ identity: (client: String, certificate: String, key: String)) throws -> Void
    ) throws {
        let (sandbox, files, emulator) = try setUp()
        defer { emulator.stop() }
        try body(sandbox, files, emulator, identity(method, files))
    }

    static func machineLogin(
        _ sandbox: Sandbox, _ emulator: Emulator, _ files: MutualTLSFiles, method: String = "tls_client_auth", certificate: String? = nil,
        key: String? = nil
    )
        -> CLIRun
    {
        let identity = identity(method, files)
        return sandbox.run([
            "login", "--client-credentials", "--issuer", emulator.issuer, "--client-id", identity.client, "--ca-file", files.caFile,
            "--client-cert", certificate ?? identity.certificate, "--client-key", key ?? identity.key,
        ])
    }

    @Test(
        "mtls-client-credentials: client credentials over the mTLS alias, the token bound to the certificate (cnf x5t#S256 in token --format json), renewed over the alias",
        arguments: methods)
    func clientCredentials(method: String) throws {
        try Self.withIdentity(method) { sandbox, files, emulator, identity in
            let run = Self.machineLogin(sandbox, emulator, files, method: method)
            #expect(run.status == 0, "\(run)")
            let profile = readText(sandbox.profileDirectory + "/profile.json") ?? ""
            let mtls = try #require(emulator.mtlsBaseURL)
            #expect(
                profile.contains("\"token_endpoint\" : \"\(mtls)/as/token.oauth2\""),
                "the alias is the profile's token endpoint: \(profile)")
            #expect(profile.contains("\"token_endpoint_auth_method\" : \"\(method)\""), "\(profile)")
            #expect(profile.contains("\"client_certificate_file\" : \"\(identity.certificate)\""), "\(profile)")
            let grant = try #require(emulator.requests(to: .token).last)
            #expect(
                grant.form["client_id"] == identity.client && grant.form["client_secret"] == nil && grant.headers["authorization"] == nil)

            let json = sandbox.run(["token", "--format", "json"])
            #expect(json.status == 0, "\(json)")
            let thumbprint = MutualTLSFiles.thumbprint(identity.certificate)
            #expect(json.stdout.contains("\"x5t#S256\": \"\(thumbprint)\""), "\(json)")

            // --min-ttl beyond the token's hour: renewed now.
            let renewed = sandbox.run(["token", "--raw", "--min-ttl", "7200"])
            #expect(renewed.status == 0, "\(renewed)")
            #expect(renewed.stdout == emulator.newestTokenLine)
            #expect(emulator.issuedAccessTokens.count == 2)
            #expect(sandbox.run(["token", "--format", "json"]).stdout.contains(thumbprint), "the renewed token is bound too")
        }
    }

    @Test(
        "mtls-browser-login: a browser login with a certificate, a refresh, userinfo and logout --revoke, all over the aliases",
        arguments: methods)
    func browserLogin(method: String) throws {
        try Self.withIdentity(method) { sandbox, files, emulator, identity in
            // The browser double (curl) trusts the emulator's CA through CURL_CA_BUNDLE.
            let browserTrust = ["CURL_CA_BUNDLE": files.caFile]
            let login = sandbox.run(
                [
                    "login", "--issuer", emulator.issuer, "--client-id", identity.client, "--ca-file", files.caFile, "--client-cert",
                    identity.certificate, "--client-key", identity.key, "--timeout", "30",
                ], environment: browserTrust)
            #expect(login.status == 0, "\(login)")
            #expect(
                readText(sandbox.profileDirectory + "/profile.json")?.contains("\"token_endpoint_auth_method\" : \"\(method)\"") == true)
            let code = try #require(emulator.requests(to: .token).last)
            #expect(
                code.grantType == "authorization_code" && code.form["client_id"] == identity.client && code.form["client_secret"] == nil)

            let refreshed = sandbox.run(["token", "--raw", "--min-ttl", "7200"])
            #expect(refreshed.status == 0, "\(refreshed)")
            #expect(emulator.requests(to: .token).last?.grantType == "refresh_token")
            #expect(refreshed.stdout == emulator.newestTokenLine)
            let userinfo = sandbox.run(["userinfo"])
            #expect(userinfo.status == 0, "a bound token works at the userinfo alias with the certificate: \(userinfo)")

            let refreshToken = try #require(emulator.issuedRefreshTokens.last)
            let logout = sandbox.run(["logout", "--revoke"])
            #expect(logout.status == 0, "\(logout)")
            #expect(!emulator.requests(to: .revoke).isEmpty)
            #expect(!emulator.isActive(token: refreshToken), "revoked over the mTLS alias")
        }
    }

    @Test("mtls-wrong-key: a key that does not belong to the certificate fails in one line with exit 2, before any token request")
    func wrongKey() throws {
        let (sandbox, files, emulator) = try Self.setUp()
        defer { emulator.stop() }
        let run = Self.machineLogin(sandbox, emulator, files, key: files.otherKey)
        expectOneLineError(
            run, status: 2, rule: "mtls-client-certificate", contains: ["the client certificate or key could not be used"], secrets: [])
        #expect(emulator.requests(to: .token).isEmpty)
    }

    @Test("mtls-expired-certificate: pingcli refuses an expired certificate at login (exit 2), and the emulator refuses it too")
    func expiredCertificate() throws {
        let (sandbox, files, emulator) = try Self.setUp()
        defer { emulator.stop() }
        let run = Self.machineLogin(sandbox, emulator, files, certificate: files.expiredCertificate, key: files.expiredKey)
        expectOneLineError(
            run, status: 2, rule: "client-certificate-file", contains: ["expired on 2020-01-02T00:00:00Z: renew the client certificate"],
            secrets: [])
        #expect(emulator.requests.isEmpty, "nothing was sent")

        // The server side of the same rule, with curl presenting the expired certificate.
        let mtls = try #require(emulator.mtlsBaseURL)
        let curl = runProcess(
            "/usr/bin/curl",
            [
                "-s", "--cacert", files.caFile, "--cert", files.expiredCertificate, "--key", files.expiredKey, "-d",
                "grant_type=client_credentials&client_id=mtls-machine", mtls + "/as/token.oauth2",
            ], environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
        #expect(curl.stdout.contains("invalid_client") && curl.stdout.contains("expired"), "\(curl)")
    }

    @Test(
        "mtls-unregistered-certificate: a tls_client_auth client presenting a certificate the CA did not issue is refused (invalid_client)")
    func unregisteredCertificate() throws {
        let (sandbox, files, emulator) = try Self.setUp()
        defer { emulator.stop() }
        let run = Self.machineLogin(sandbox, emulator, files, certificate: files.selfSignedCertificate, key: files.selfSignedKey)
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("invalid_client"), "\(run)")
        #expect(run.rule == "token-error-object", "\(run)")
        #expect(emulator.issuedAccessTokens.isEmpty)
    }

    @Test("mtls-no-certificate: the mTLS port refuses a handshake without a client certificate")
    func noCertificate() throws {
        let (_, files, emulator) = try Self.setUp()
        defer { emulator.stop() }
        let mtls = try #require(emulator.mtlsBaseURL)
        let curl = runProcess(
            "/usr/bin/curl", ["-s", "--cacert", files.caFile, "-d", "grant_type=client_credentials", mtls + "/as/token.oauth2"],
            environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
        #expect(curl.status != 0 && curl.stdout.isEmpty, "\(curl)")
        #expect(emulator.requests(to: .token).isEmpty)
    }

    @Test("mtls-key-gate: a key open to others, a missing --client-key, an encrypted or non-key file are refused before any network")
    func keyGate() throws {
        let (sandbox, files, emulator) = try Self.setUp()
        defer { emulator.stop() }
        chmod(files.otherKey, 0o644)
        let open = Self.machineLogin(sandbox, emulator, files, key: files.otherKey)
        #expect(open.rule == "file-mode-refused", "\(open)")
        #expect(open.status == 1 && open.stderr.contains("chmod"), "\(open)")
        let alone = sandbox.run(["login", "--issuer", emulator.issuer, "--client-id", "x", "--client-cert", files.clientCertificate])
        #expect(alone.rule == "client-tls-pair", "\(alone)")
        #expect(alone.status == 2 && alone.stderr.contains("--client-cert needs --client-key"), "\(alone)")
        let certificateAsKey = files.directory + "/not-a-key.pem"
        try FileManager.default.copyItem(atPath: files.selfSignedCertificate, toPath: certificateAsKey)
        chmod(certificateAsKey, 0o600)
        let notKey = Self.machineLogin(sandbox, emulator, files, key: certificateAsKey)
        #expect(notKey.rule == "client-key-file", "\(notKey)")
        #expect(notKey.status == 2, "\(notKey)")
        let notCertificate = Self.machineLogin(sandbox, emulator, files, certificate: files.clientKey)
        #expect(notCertificate.rule == "client-certificate-file", "\(notCertificate)")
        #expect(notCertificate.status == 2, "\(notCertificate)")
        #expect(emulator.requests.isEmpty, "nothing was sent")
    }

    @Test(
        "mtls-key-never-shown: the private key is absent from output, --verbose, errors, profile.json and children's argv and environment")
    func keyNeverShown() throws {
        let (sandbox, files, emulator) = try Self.setUp()
        defer { emulator.stop() }
        let record = sandbox.root + "/children.txt"
        let environment = ["CURL_CA_BUNDLE": files.caFile, "PINGCLI_BROWSER": "record-env", "RECORD_ENV_FILE": record]
        var runs = [
            sandbox.run(
                [
                    "login", "--verbose", "--issuer", emulator.issuer, "--client-id", "mtls-self", "--ca-file", files.caFile,
                    "--client-cert", files.selfSignedCertificate, "--client-key", files.selfSignedKey, "--timeout", "30",
                ], environment: environment)
        ]
        #expect(runs[0].status == 0, "\(runs[0])")
        runs.append(sandbox.run(["token", "--raw", "--verbose", "--min-ttl", "7200"], environment: environment))
        runs.append(sandbox.run(["logout", "--revoke", "--verbose"], environment: environment))
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs)")
        runs.append(Self.machineLogin(sandbox, emulator, files, key: files.selfSignedKey))  // a key of another certificate
        #expect(runs.last?.status == 2)
        let children = readText(record) ?? ""
        #expect(children.contains("--- cmdline"), "the browser double ran")
        let keyLines = (readText(files.selfSignedKey) ?? "").split(separator: "\n").filter { !$0.hasPrefix("-----") }
        #expect(!keyLines.isEmpty)
        for text in runs.flatMap({ [$0.stdout, $0.stderr] }) + [children, readText(sandbox.profileDirectory + "/profile.json") ?? ""] {
            for line in keyLines { #expect(!text.contains(line), "a line of the private key leaked") }
        }
    }

    @Test(
        "mtls-device-and-par: the device authorization and pushed authorization requests go to their mTLS aliases, authenticated by the certificate"
    )
    func deviceAndPushedAuthorization() throws {
        let (sandbox, files, emulator) = try Self.setUp {
            $0.deviceInterval = 1
            $0.pushedAuthorization = .required
        }
        defer { emulator.stop() }
        let identity = Self.identity("tls_client_auth", files)
        let common = [
            "--issuer", emulator.issuer, "--client-id", identity.client, "--ca-file", files.caFile, "--client-cert", identity.certificate,
            "--client-key", identity.key, "--timeout", "60",
        ]
        let device = sandbox.run(["login", "--device"] + common, environment: ["CURL_CA_BUNDLE": files.caFile])
        #expect(device.status == 0, "\(device)")
        let deviceRequest = try #require(emulator.requests(to: .deviceAuthorization).first)
        #expect(deviceRequest.form["client_id"] == identity.client && deviceRequest.status == 200)
        let profile = readText(sandbox.profileDirectory + "/profile.json") ?? ""
        let mtls = try #require(emulator.mtlsBaseURL)
        #expect(profile.contains("\"device_authorization_endpoint\" : \"\(mtls)/as/device_authz.oauth2\""), "\(profile)")
        #expect(
            sandbox.run(["token", "--format", "json"]).stdout.contains(MutualTLSFiles.thumbprint(identity.certificate)),
            "the token is bound")

        // A new profile: a plain login on the device profile would use the device grant again.
        let browser = Sandbox().run(["login"] + common, environment: ["CURL_CA_BUNDLE": files.caFile])
        #expect(browser.status == 0, "\(browser)")
        let pushed = try #require(emulator.requests(to: .par).first)
        #expect(pushed.form["client_id"] == identity.client && pushed.status == 201, "PAR over the alias, authenticated")
    }
}
