import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Each test plays an attacker (another host, a provider, a local user, a file writer) through the built
/// binary and asserts what the attacker received: nothing.
@Suite("attackers: what another host, provider, user or file writer gets")
struct AttackerOutcomeTests {
    /// `url` with its host (`127.0.0.1`) written as another name of this machine.
    static func aliased(_ url: String, _ host: String) -> String { url.replacingOccurrences(of: "127.0.0.1", with: host) }

    @Test(
        "loopback-aliases-never-proxied: with every proxy variable set, a login and a refresh whose token endpoint is http://0.0.0.0, and api to 0.0.0.0, [::], [::127.0.0.1] and [::ffff:127.0.0.1] send the proxy nothing"
    )
    func loopbackAliasesNeverProxied() throws {
        let emulator = try startEmulator { $0.accessTokenLifetime = 20 }
        defer { emulator.stop() }
        let proxy = try LocalTrustTests.RecordingListener()
        defer { proxy.acceptor.stop() }
        let sandbox = Sandbox()
        let token = try #require(emulator.url(for: .token))
        let login = sandbox.login(emulator, ["--token-endpoint", Self.aliased(token, "0.0.0.0")], environment: proxy.environment)
        #expect(login.status == 0, "\(login)")
        emulator.accessTokenLifetime = 3600
        let refreshed = sandbox.run(["token", "--raw"], environment: proxy.environment)  // the saved 0.0.0.0 endpoint
        #expect(refreshed.status == 0 && refreshed.stdout == emulator.newestTokenLine, "\(refreshed)")
        let resource = try #require(emulator.url(for: .resource))
        for host in ["0.0.0.0", "[::]", "[::127.0.0.1]", "[::ffff:127.0.0.1]", "127.1.2.3", "localhost"] {
            _ = sandbox.run(["api", Self.aliased(resource, host)], environment: proxy.environment)
        }
        #expect(emulator.requests(to: .resource).count >= 2, "the api requests reached the resource directly")
        #expect(proxy.connectionCount == 0, "the proxy saw traffic for this machine: \(proxy.received.prefix(300))")
        #expect(!proxy.received.contains("Bearer") && !proxy.received.contains("refresh_token"))
    }

    @Test(
        "file-gate-openssh: a 0600 secret in a 0755 directory of the user's signs in; one in a directory group may write, or a 0644 one, is refused before the provider receives anything"
    )
    func fileGateAsOpenSSH() throws {
        let emulator = try confidentialEmulator(method: "client_secret_basic")
        defer { emulator.stop() }
        for (directoryMode, fileMode, fix) in [(0o755, 0o600, nil), (0o775, 0o600, "chmod go-w"), (0o755, 0o644, "chmod 600")]
            as [(mode_t, Int, String?)]
        {
            let sandbox = Sandbox()
            let directory = sandbox.root + "/ci"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            chmod(directory, directoryMode)
            let path = directory + "/client-secret"
            #expect(
                FileManager.default.createFile(
                    atPath: path, contents: Data(confidentialSecret.utf8), attributes: [.posixPermissions: fileMode]))
            let before = emulator.requests.count
            let run = sandbox.login(emulator, ["--client-secret-file", path, "--client-credentials"])
            if let fix {
                #expect(run.rule == "file-mode-refused", "\(run)")
                #expect(run.status == 1 && run.stderr.contains(fix), "\(run)")
                #expect(emulator.requests.count == before, "the provider was asked although the secret's file is open to others")
            } else {
                #expect(run.status == 0, "\(run)")
                #expect(emulator.requests(to: .token).count == 1)
            }
        }
    }

    @Test(
        "jwks-rotation-after-login: a kid unknown to the set fetched seconds ago is fetched once and the refresh succeeds; a kid still unknown after that fetch waits for the minute (no more fetches)"
    )
    func keyRotationRightAfterLogin() throws {
        let (emulator, sandbox) = try loggedIn { $0.accessTokenLifetime = 20 }  // every token --raw refreshes
        let saved = try #require(readText(sandbox.stateDirectory + "/jwks.json"))
        let loginSet = String(saved[saved.index(after: try #require(saved.firstIndex(of: "\n")))...])
        emulator.rotateKeys()
        let rotated = sandbox.run(["token", "--raw"])
        #expect(rotated.status == 0 && rotated.stdout == emulator.newestTokenLine, "\(rotated)")
        #expect(emulator.requests(to: .jwks).count == 2, "one fetch at login, one for the new kid")

        // A provider that keeps serving the old set: one fetch for the new kid, then none within the minute.
        var faults = Faults()
        faults.responseOverrides[.jwks] = CannedResponse(status: 200, contentType: "application/json", body: loginSet)
        emulator.faults = faults
        emulator.rotateKeys()
        let unknown = sandbox.run(["token", "--raw"])
        #expect(unknown.status != 0, "\(unknown)")
        #expect(emulator.requests(to: .jwks).count == 3)
        for _ in 0..<3 {
            let again = sandbox.run(["token", "--raw"])
            // The rule is the minute's wait between fetches; the message names the signature's failure too.
            #expect(again.rule == "id-token-key-rotation-clock", "\(again)")
            #expect(
                again.status == 3 && again.stderr.contains("id-token-unknown-kid") && again.stderr.contains("after a minute"), "\(again)")
        }
        #expect(emulator.requests(to: .jwks).count == 3, "a kid still unknown after a fetch is not fetched again within the minute")
    }

    @Test(
        "pin-jwks-at-login: a login pinned to the provider's key whose JWK Set is served by a server with another key of the same CA fails with exit 5; that server receives nothing"
    )
    func pinAppliesToKeysAtLogin() throws {
        let (sandbox, files, emulator) = try KeyPinningTests.setUp()
        defer { emulator.stop() }
        let other = try startEmulator { $0.tls = files.replacementTLS }  // trusted by the CA, not by the pin
        defer { other.stop() }
        let pin = try files.pin(of: files.serverCertificate)
        let run = sandbox.run(
            [
                "login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--ca-file", files.caFile, "--timeout", "30",
                "--pin", pin, "--jwks-uri", try #require(other.url(for: .jwks)),
            ],
            environment: ["CURL_CA_BUNDLE": files.caFile])
        #expect(run.rule == "pin-mismatch", "\(run)")
        #expect(run.status == 5, "\(run)")
        #expect(other.arrivedRequestCount == 0, "the JWK Set was fetched from a server the pin refuses")
        #expect(readText(sandbox.stateDirectory + "/tokens.enc") == nil)
    }

    /// `curl ARGUMENTS`: the body, then the HTTP status on the last line.
    static func curl(_ arguments: [String]) -> (body: String, status: String) {
        let run = runProcess(
            "/usr/bin/curl", ["-s", "-w", "\n%{http_code}"] + arguments, environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (lines.dropLast().joined(separator: "\n"), String(lines.last ?? ""))
    }

    @Test(
        "client-assertion-elsewhere: with --client-assertion-audience token-endpoint, a provider listing another provider's token endpoint and keeping PAR gets, at its PAR endpoint, no assertion the other provider accepts"
    )
    func assertionNotValidElsewhere() throws {
        let key = ClientKeyPair.rsa()  // PingOne's layout lists RS256, RS384 and RS512 only
        func provider(_ audience: String?) throws -> Emulator {
            try startEmulator {
                var client = RegisteredClient(clientID: "pingcli-test", authMethod: "private_key_jwt")
                client.publicKeyDER = key.publicKeyDER
                client.assertionAudience = audience
                $0.clients = [client]
            }
        }
        let honest = try provider("token-endpoint")
        let hostile = try provider(nil)
        defer {
            honest.stop()
            hostile.stop()
        }
        // The hostile provider's discovery: the honest token endpoint listed as its own, PAR its own.
        let discovery = Self.curl([try #require(hostile.url(for: .discovery))])
        var document = try #require(try JSONSerialization.jsonObject(with: Data(discovery.body.utf8)) as? [String: Any])
        document["token_endpoint"] = honest.url(for: .token)!
        #expect(document["pushed_authorization_request_endpoint"] as? String == hostile.url(for: .par))
        let listed = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
        var faults = Faults()
        faults.responseOverrides[.discovery] = CannedResponse(status: 200, contentType: "application/json", body: listed)
        hostile.faults = faults

        let sandbox = Sandbox()
        let keyDirectory = sandbox.root + "/keys"
        try FileManager.default.createDirectory(
            atPath: keyDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #expect(
            FileManager.default.createFile(
                atPath: keyDirectory + "/client.pem", contents: Data(key.privateKeyPEM.utf8), attributes: [.posixPermissions: 0o600]))
        let login = sandbox.login(
            hostile, ["--client-key-file", keyDirectory + "/client.pem", "--client-assertion-audience", "token-endpoint"])
        let received = hostile.requests(to: .par).compactMap { $0.form["client_assertion"] }
        #expect(!received.isEmpty, "the hostile provider's PAR endpoint was used: \(login)")
        // The attacker replays what it received at the honest token endpoint, as that client.
        for assertion in received {
            let replay = Self.curl([
                "--data-urlencode", "grant_type=client_credentials", "--data-urlencode", "client_id=pingcli-test",
                "--data-urlencode", "client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                "--data-urlencode", "client_assertion=\(assertion)", honest.url(for: .token)!,
            ])
            #expect(replay.status == "401" || replay.status == "400", "\(replay)")
        }
        #expect(honest.issuedAccessTokens.isEmpty, "the honest provider issued a token to the attacker")
    }

    /// The default profile's cache, wherever the binary under test keeps it (beside profile.json, or
    /// under XDG_STATE_HOME as the builds of one earlier round did).
    static func cacheFile(_ sandbox: Sandbox) -> String {
        let beside = sandbox.profileDirectory + "/tokens.enc"
        return FileManager.default.fileExists(atPath: beside) ? beside : sandbox.legacyStateDirectory + "/tokens.enc"
    }

    @Test(
        "cache-restored-after-logout: a ~/.config writer who puts back profile.json and tokens.enc from before a logout (newer by mtime) gets no session: refused in one line, exit 4, no token printed or sent, no refresh"
    )
    func restoredAfterLogout() throws {
        let (emulator, sandbox) = try loggedIn { $0.accessTokenLifetime = 3600 }
        let profile = try #require(FileManager.default.contents(atPath: sandbox.profileDirectory + "/profile.json"))
        let cache = try #require(FileManager.default.contents(atPath: Self.cacheFile(sandbox)))
        let issued = try #require(emulator.issuedAccessTokens.last)
        #expect(sandbox.run(["logout"]).status == 0)
        // The backup, restored into ~/.config after the logout.
        for (name, bytes) in [("profile.json", profile), ("tokens.enc", cache)] {
            let path = sandbox.profileDirectory + "/" + name
            try bytes.write(to: URL(fileURLWithPath: path))
            chmod(path, 0o600)
        }
        let requests = emulator.requests.count
        let token = sandbox.run(["token", "--raw"])
        #expect(token.status == 4 && token.stdout.isEmpty, "\(token)")
        #expect(token.rule == "cache-rolled-back", "\(token)")
        #expect(token.stderr.split(separator: "\n").count == 1, "\(token)")
        let resource = try #require(emulator.url(for: .resource))
        let api = sandbox.run(["api", resource])
        #expect(api.status == 4 && !api.stdout.contains(issued), "\(api)")
        #expect(sandbox.run(["token", "--raw", "--min-ttl", "7200"]).status == 4)
        #expect(emulator.requests.count == requests, "the restored session reached the provider or the API")
        #expect(!sandbox.run(["status"]).stdout.contains(issued))
    }

    @Test(
        "state-copy-taken-once: a cache put under XDG_STATE_HOME (where an earlier build kept it) after this version logged the profile out is never taken: not logged in, nothing sent, the copy removed at the next lock"
    )
    func stateCopyTakenOnce() throws {
        let (emulator, sandbox) = try loggedIn { $0.accessTokenLifetime = 3600 }
        let cache = try #require(FileManager.default.contents(atPath: Self.cacheFile(sandbox)))
        #expect(sandbox.run(["logout"]).status == 0)
        try FileManager.default.createDirectory(
            atPath: sandbox.legacyStateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let copy = sandbox.legacyStateDirectory + "/tokens.enc"
        try cache.write(to: URL(fileURLWithPath: copy))
        chmod(copy, 0o600)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: copy)
        let requests = emulator.requests.count
        let token = sandbox.run(["token", "--raw"])
        #expect(token.status == 4 && token.stdout.isEmpty, "\(token)")
        #expect(sandbox.run(["token", "--raw", "--min-ttl", "7200"]).status == 4)
        #expect(emulator.requests.count == requests, "the state copy was used")
        #expect(sandbox.run(["logout"]).status == 0)  // takes the lock
        #expect(!FileManager.default.fileExists(atPath: copy), "the state copy is removed")
        #expect(sandbox.run(["token", "--raw"]).status == 4)
    }

    @Test(
        "binding-dpop-removed: a profile.json whose dpop was removed is refused (exit 4) before any request, and a plain login does not take it silently: no Bearer token is issued"
    )
    func dpopRemoved() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        #expect(sandbox.login(emulator, ["--dpop"]).status == 0)
        let path = sandbox.profileDirectory + "/profile.json"
        let text = try #require(readText(path))
        var object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["dpop"] != nil)
        object.removeValue(forKey: "dpop")
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        let issued = emulator.issuedAccessTokens.count
        let refresh = sandbox.run(["token", "--raw", "--min-ttl", "7200"])
        #expect(refresh.rule == "profile-binding", "\(refresh)")
        #expect(refresh.status == 4, "\(refresh)")
        let login = sandbox.run(["login", "--timeout", "30"])
        #expect(login.status == 2, "a login took the edited profile without a question: \(login)")
        #expect(emulator.issuedAccessTokens.count == issued, "a token was issued after dpop was removed")
    }

    @Test(
        "relogin-after-logout: after logout, login --profile NAME signs in again with the saved settings, without --issuer and without a question, on a terminal and without one; an edited profile.json is still refused"
    )
    func reloginAfterLogout() throws {
        let (emulator, sandbox) = try loggedIn()
        #expect(sandbox.run(["logout"]).status == 0)
        let plain = sandbox.run(["login", "--profile", "default", "--timeout", "30"])
        #expect(plain.status == 0, "\(plain)")
        #expect(plain.stderr.hasPrefix("Signing in to \(emulator.issuer), the issuer saved in profile \"default\"."), "\(plain)")
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)

        #expect(sandbox.run(["logout"]).status == 0)
        if DebianTools.script != nil {
            let command = "script -qec \"'\(Locations.pingcli)' login --profile default --timeout 30\" /dev/null < /dev/null"
            let terminal = runProcess("/bin/sh", ["-c", command], environment: sandbox.environment, timeout: 60)
            #expect(terminal.status == 0 && !terminal.stdout.contains("[y/N]"), "\(terminal)")
            #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
            #expect(sandbox.run(["logout"]).status == 0)
        }
        // A profile.json edited after the logout no longer matches the sealed record: asked, as before.
        let path = sandbox.profileDirectory + "/profile.json"
        try #require(readText(path)).replacingOccurrences(of: "\"pingcli-test\"", with: "\"another-client\"")
            .write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        let edited = sandbox.run(["login", "--profile", "default", "--timeout", "30"])
        #expect(edited.rule == "profile-unverified", "\(edited)")
        #expect(edited.status == 2 && edited.stderr.contains("give --issuer URL"), "\(edited)")
    }
}
