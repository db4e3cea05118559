import Foundation
import PingEmulator
import Testing

/// `private_key_jwt` (RFC 7523) through the built binary: client credentials and a browser login with an
/// RSA and an EC key, through login, refresh and revocation; a wrong key and a loose key file refused.
@Suite("private_key_jwt, end to end")
struct PrivateKeyJWTTests {
    func emulator(_ key: ClientKeyPair, layout: Layout, audience: String? = nil) throws -> Emulator {
        try startEmulator {
            $0.layout = layout
            var machine = RegisteredClient(clientID: "pingcli-test", authMethod: "private_key_jwt")
            machine.publicKeyDER = key.publicKeyDER
            machine.assertionAudience = audience
            $0.clients = [machine]
            $0.accessTokenLifetime = 20
        }
    }

    /// The claims and header of the assertion a request carried.
    func assertion(_ request: RecordedRequest) -> (header: [String: Any], claims: [String: Any])? {
        guard request.form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            let jwt = request.form["client_assertion"]
        else { return nil }
        let parts = jwt.split(separator: ".").map(String.init)
        func object(_ part: String) -> [String: Any]? {
            var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while text.count % 4 != 0 { text += "=" }
            return Data(base64Encoded: text).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        }
        guard parts.count == 3, let header = object(parts[0]), let claims = object(parts[1]) else { return nil }
        return (header, claims)
    }

    /// Every authenticated request carried a fresh assertion for its own endpoint, and was accepted.
    func checkAssertions(_ emulator: Emulator, kinds: [EndpointKind], alg: String, audience: ((RecordedRequest) -> String)? = nil) {
        var seen = Set<String>()
        let requests = kinds.flatMap { emulator.requests(to: $0) }
        #expect(!requests.isEmpty)
        for request in requests {
            guard let (header, claims) = assertion(request) else {
                Issue.record("\(request.path) carried no client assertion")
                continue
            }
            #expect(header["alg"] as? String == alg)
            #expect(claims["iss"] as? String == "pingcli-test" && claims["sub"] as? String == "pingcli-test")
            #expect(claims["aud"] as? String == (audience?(request) ?? emulator.baseURL + request.path))
            let iat = claims["iat"] as? Double ?? 0
            let exp = claims["exp"] as? Double ?? 0
            #expect(exp > iat && exp - iat <= 60)
            let jti = claims["jti"] as? String ?? ""
            #expect(!jti.isEmpty && seen.insert(jti).inserted, "a fresh jti per request")
            #expect(request.status == 200, "\(request.path) answered \(request.status)")
        }
    }

    func keyFile(_ sandbox: Sandbox, _ key: ClientKeyPair, mode: Int = 0o600) -> String {
        let directory = sandbox.root + "/keys"
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory + "/client.pem"
        _ = FileManager.default.createFile(atPath: path, contents: Data(key.privateKeyPEM.utf8), attributes: [.posixPermissions: mode])
        return path
    }

    @Test(
        "private-key-jwt-client-credentials: an RSA key at PingOne (RS256), an EC key at PingFederate (ES256): login, renewal, revocation",
        arguments: [(true, Layout.pingOne), (false, Layout.pingFederate)])
    func clientCredentials(rsa: Bool, layout: Layout) throws {
        let key = rsa ? ClientKeyPair.rsa() : ClientKeyPair.p256()
        let (emulator, sandbox) = sandboxed(try emulator(key, layout: layout))
        let path = keyFile(sandbox, key)
        let login = sandbox.run([
            "login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--client-credentials", "--client-key-file", path,
        ])
        #expect(login.status == 0, "\(login)")
        let profile = readText(sandbox.profileDirectory + "/profile.json") ?? ""
        #expect(profile.contains("\"token_endpoint_auth_method\" : \"private_key_jwt\"") && profile.contains(path), "\(profile)")
        emulator.accessTokenLifetime = 3600
        let renewed = sandbox.run(["token", "--raw"])
        #expect(renewed.status == 0 && renewed.stdout == emulator.newestTokenLine, "\(renewed)")
        #expect(emulator.requests(to: .token).count == 2)
        _ = sandbox.run(["logout", "--revoke"])
        #expect(!emulator.requests(to: .revoke).isEmpty)
        checkAssertions(emulator, kinds: [.token, .revoke], alg: rsa ? "RS256" : "ES256")
        #expect(!(login.stderr + renewed.stderr).contains("PRIVATE KEY"))
    }

    @Test("private-key-jwt-browser: a person's login with a key-authenticated client, refreshed and revoked")
    func browserLogin() throws {
        let key = ClientKeyPair.rsa()
        let (emulator, sandbox) = sandboxed(try emulator(key, layout: .pingFederate))
        let login = sandbox.login(emulator, ["--client-key-file", keyFile(sandbox, key), "--scope", "openid profile revoke"])
        #expect(login.status == 0, "\(login)")
        emulator.accessTokenLifetime = 3600
        let refreshed = sandbox.run(["token", "--raw"])
        #expect(refreshed.status == 0 && refreshed.stdout == emulator.newestTokenLine, "\(refreshed)")
        let logout = sandbox.run(["logout", "--revoke"])
        #expect(logout.status == 0, "\(logout)")
        #expect(emulator.requests(to: .token).map(\.grantType) == ["authorization_code", "refresh_token"])
        checkAssertions(emulator, kinds: [.token, .revoke, .par], alg: "RS256")
    }

    @Test(
        "private-key-jwt-device: a device sign-in's authorization request and every poll carry a fresh assertion for their own endpoint"
    )
    func deviceLogin() throws {
        let key = ClientKeyPair.rsa()
        let emulator = try startEmulator {
            var client = RegisteredClient(clientID: "pingcli-test", authMethod: "private_key_jwt")
            client.publicKeyDER = key.publicKeyDER
            $0.clients = [client]
            $0.deviceInterval = 1
        }
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let login = sandbox.run(
            [
                "login", "--device", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--client-key-file", keyFile(sandbox, key),
                "--timeout", "60",
            ], environment: ["PINGCLI_BROWSER": "record-url", "RECORD_URL_FILE": sandbox.root + "/url"])
        #expect(login.status == 0, "\(login)")
        let device = try #require(emulator.requests(to: .deviceAuthorization).first)
        let polls = emulator.requests(to: .token)
        #expect(device.status == 200 && polls.last?.status == 200, "\(polls.map(\.status))")
        var seen = Set<String>()
        for request in [device] + polls {
            let (header, claims) = try #require(assertion(request), "\(request.path) carried no client assertion")
            #expect(header["alg"] as? String == "RS256")
            #expect(claims["aud"] as? String == emulator.baseURL + request.path)
            #expect(seen.insert(claims["jti"] as? String ?? "").inserted, "a fresh jti per request")
        }
        #expect(!login.stderr.contains("PRIVATE KEY"))
    }

    @Test(
        "private-key-jwt-audience: --client-assertion-audience token-endpoint is saved and names the token endpoint on the token request only; revocation gets the issuer"
    )
    func tokenEndpointAudience() throws {
        let key = ClientKeyPair.p256()
        let (emulator, sandbox) = sandboxed(try emulator(key, layout: .pingFederate, audience: "token-endpoint"))
        let login = sandbox.login(
            emulator, ["--client-key-file", keyFile(sandbox, key), "--client-assertion-audience", "token-endpoint", "--no-par"])
        #expect(login.status == 0, "\(login)")
        #expect(
            readText(sandbox.profileDirectory + "/profile.json")?.contains("\"client_assertion_audience\" : \"token-endpoint\"") == true)
        #expect(sandbox.run(["logout", "--revoke"]).status == 0)
        let tokenEndpoint = emulator.baseURL + (emulator.requests(to: .token).first?.path ?? "")
        checkAssertions(emulator, kinds: [.token], alg: "ES256") { _ in tokenEndpoint }
        checkAssertions(emulator, kinds: [.revoke], alg: "ES256") { _ in emulator.issuer }
    }

    @Test("private-key-jwt-wrong-key: a key the provider does not know fails with invalid_client, the key never shown")
    func wrongKey() throws {
        let (emulator, sandbox) = sandboxed(try emulator(ClientKeyPair.rsa(), layout: .pingOne))
        let other = ClientKeyPair.rsa()
        let run = sandbox.run([
            "login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--client-credentials", "--client-key-file",
            keyFile(sandbox, other),
        ])
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("invalid_client") && run.stderr.contains("registered key"), "\(run)")
        #expect(run.rule == "token-error-object", "\(run)")
        #expect(!run.stderr.contains("PRIVATE KEY"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.stateDirectory + "/tokens.enc"))
    }

    @Test("private-key-jwt-file-gate: a key file open to others is refused before anything is sent, its content never shown")
    func looseKeyFile() throws {
        let key = ClientKeyPair.rsa()
        let (emulator, sandbox) = sandboxed(try emulator(key, layout: .pingOne))
        let run = sandbox.run([
            "login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--client-credentials", "--client-key-file",
            keyFile(sandbox, key, mode: 0o644),
        ])
        #expect(run.status != 0, "\(run)")
        #expect(run.stderr.contains("chmod"), "\(run)")
        #expect(run.rule == "file-mode-refused", "\(run)")
        #expect(!run.stderr.contains("PRIVATE KEY"))
        #expect(emulator.requests(to: .token).isEmpty)
    }

    @Test(
        "client-key-file-relative: --client-key-file key.pem, relative to the current directory, signs in and is saved absolute, so token works from anywhere"
    )
    func relativeKeyFile() throws {
        let key = ClientKeyPair.rsa()
        let (emulator, sandbox) = sandboxed(try emulator(key, layout: .pingOne))
        let directory = URL(fileURLWithPath: keyFile(sandbox, key)).deletingLastPathComponent().path
        var environment = sandbox.environment
        environment["PATH"] = Locations.binDirectory + ":" + (environment["PATH"] ?? "")
        let login = runProcess(
            "/bin/sh",
            [
                "-c",
                "cd \"$0\" && pingcli login --client-credentials --client-key-file client.pem --issuer \"$1\" --client-id pingcli-test",
                directory, emulator.issuer,
            ],
            environment: environment, timeout: 60)
        #expect(login.status == 0, "\(login)")
        let profile = readText(sandbox.profileDirectory + "/profile.json") ?? ""
        #expect(profile.contains(directory + "/client.pem"), "saved absolute: \(profile)")
        // The 20 s token is renewed from another directory: the grant again, with the key read from the saved path.
        #expect(sandbox.run(["token", "--raw", "--min-ttl", "3600"]).stdout == emulator.newestTokenLine)
        #expect(emulator.requests(to: .token).filter { $0.grantType == "client_credentials" }.count == 2)
    }
}
