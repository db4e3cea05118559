import CSodium
import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a corporate proxy, a restored old cache and an edited `profile.json` can get out of pingcli
/// (issue 19): each test plays the attacker and asserts what the attacker received: nothing.
@Suite("attackers around the machine: proxy, restored cache, edited profile")
struct LocalTrustTests {
    /// A loopback listener (a proxy, an attacker's endpoint) that records every connection it is
    /// offered and what arrives on it in the first seconds, and answers nothing.
    final class RecordingListener: @unchecked Sendable {
        let acceptor: LoopbackAcceptor
        private let connections = Locked(0)
        private let bytes = Locked<[UInt8]>([])
        var connectionCount: Int { connections.withLock { $0 } }
        /// Everything received, as text.
        var received: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
        var url: String { "http://127.0.0.1:\(acceptor.port)" }

        init() throws {
            acceptor = try LoopbackAcceptor()
            acceptor.start { [connections, bytes] connection in
                connections.withLock { $0 += 1 }
                Thread {
                    defer { close(connection) }
                    var chunk = [UInt8](repeating: 0, count: 65536)
                    var entry = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                    while poll(&entry, 1, 2000) > 0 {
                        let count = recv(connection, &chunk, chunk.count, 0)
                        if count <= 0 { return }
                        bytes.withLock { $0 += chunk[..<count] }
                    }
                }.start()
            }
        }

        /// Every variable libcurl (and most programs) take a proxy from, and no exceptions.
        var environment: [String: String] {
            [
                "http_proxy": url, "HTTP_PROXY": url, "https_proxy": url, "HTTPS_PROXY": url, "all_proxy": url, "ALL_PROXY": url,
                "no_proxy": "", "NO_PROXY": "",
            ]
        }
    }

    @Test(
        "loopback-never-proxied: with every proxy variable set, a full login, refresh, userinfo and logout --revoke against 127.0.0.1 send nothing to the proxy"
    )
    func loopbackNeverProxied() throws {
        let emulator = try startEmulator { $0.accessTokenLifetime = 20 }
        defer { emulator.stop() }
        let proxy = try RecordingListener()
        defer { proxy.acceptor.stop() }
        let sandbox = Sandbox()
        // The custom resource's scope, so that PingOne's rule lets logout --revoke revoke.
        let login = sandbox.login(emulator, ["--scope", "openid profile revoke"], environment: proxy.environment)
        #expect(login.status == 0, "\(login)")
        emulator.accessTokenLifetime = 3600
        let token = sandbox.run(["token", "--raw"], environment: proxy.environment)  // inside the 30 s threshold: refreshes
        #expect(token.status == 0 && token.stdout == emulator.newestTokenLine, "\(token)")
        #expect(emulator.requests(to: .token).count == 2, "the login's exchange and one refresh")
        #expect(sandbox.run(["userinfo"], environment: proxy.environment).status == 0)
        let logout = sandbox.run(["logout", "--revoke"], environment: proxy.environment)
        #expect(logout.status == 0, "\(logout)")
        #expect(!emulator.requests(to: .revoke).isEmpty)
        #expect(proxy.connectionCount == 0, "the proxy saw loopback traffic")
    }

    /// A format 1 cache as the pre-release pingcli wrote it: the token set as JSON, sealed under `key`
    /// with only the profile name, issuer and client id as associated data (no binding digest).
    static func formatOneCache(key: [UInt8], issuer: String, clientID: String, json: String) -> [UInt8] {
        #expect(sodium_init() >= 0)
        let header: [UInt8] = Array("PCLI".utf8) + [1, 0, 0, 0]
        let associatedData = header + Array("\u{0}profile=default\u{0}issuer=\(issuer)\u{0}client_id=\(clientID)".utf8)
        var nonce = [UInt8](repeating: 0, count: 24)
        randombytes_buf(&nonce, nonce.count)
        let plaintext = Array(json.utf8)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var length: UInt64 = 0
        crypto_aead_xchacha20poly1305_ietf_encrypt(
            &ciphertext, &length, plaintext, UInt64(plaintext.count), associatedData, UInt64(associatedData.count), nil, nonce, key)
        return header + nonce + Array(ciphertext.prefix(Int(length)))
    }

    @Test(
        "cache-old-format-replayed: a format 1 cache of the same profile and key put back beside a profile.json whose token endpoint was edited: refused, the edited endpoint receives nothing"
    )
    func oldCacheReplayed() throws {
        let (emulator, sandbox) = try loggedIn()
        let attacker = try RecordingListener()
        defer { attacker.acceptor.stop() }
        let key = try #require(FileManager.default.contents(atPath: sandbox.keyFile))
        #expect(key.count == 32)
        // The profile.json of a synced or restored ~/.config, its token endpoint pointed elsewhere.
        let profilePath = sandbox.profileDirectory + "/profile.json"
        let original = try #require(readText(profilePath))
        var object = try #require(try JSONSerialization.jsonObject(with: Data(original.utf8)) as? [String: Any])
        var metadata = try #require(object["metadata"] as? [String: Any])
        metadata["token_endpoint"] = attacker.url + "/token"
        object["metadata"] = metadata
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: profilePath))
        // An old cache from a backup: expired access token, a live refresh token.
        let now = Date().timeIntervalSince1970
        let json = """
            {"access_token":"old-access","token_type":"Bearer","expires_at":\(now - 600),"refresh_token":"replayed-refresh-token","obtained_at":\(now - 4000)}
            """
        let file = Self.formatOneCache(key: Array(key), issuer: emulator.issuer, clientID: "pingcli-test", json: json)
        try Data(file).write(to: URL(fileURLWithPath: sandbox.stateDirectory + "/tokens.enc"))
        let tokenRequests = emulator.requests(to: .token).count

        let run = sandbox.run(["token", "--raw"])
        #expect(run.status == 4 && run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.contains("run pingcli login"), "\(run)")
        #expect(run.rule == "cache-older-format", "\(run)")
        #expect(attacker.connectionCount == 0, "the edited token endpoint was contacted")
        #expect(!attacker.received.contains("replayed-refresh-token"), "the edited token endpoint received the refresh token")
        #expect(emulator.requests(to: .token).count == tokenRequests)
        for command in [["userinfo"], ["status"], ["logout", "--revoke"]] {
            _ = sandbox.run(command)
        }
        #expect(attacker.connectionCount == 0, "the edited token endpoint was contacted")
    }

    /// The saved profile.json with every URL of `emulator` moved to `attacker`.
    func pointProfile(_ sandbox: Sandbox, from emulator: Emulator, to attacker: Emulator) throws {
        let path = sandbox.profileDirectory + "/profile.json"
        let text = try #require(readText(path))
        let origin = { (issuer: String) in String(issuer.prefix { $0 != "/" }) + "//" + issuer.dropFirst(7).prefix { $0 != "/" } }
        try text.replacingOccurrences(of: origin(emulator.issuer), with: origin(attacker.issuer))
            .write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// A session logged out, then its profile.json pointed at an attacker's issuer (another emulator).
    func loggedOutWithEditedProfile() throws -> (Emulator, Sandbox, Emulator) {
        let (emulator, sandbox) = try loggedIn()
        let attacker = try startEmulator()
        #expect(sandbox.run(["logout"]).status == 0)
        try pointProfile(sandbox, from: emulator, to: attacker)
        return (emulator, sandbox, attacker)
    }

    @Test(
        "login-unverified-profile: after logout, a profile.json edited to name another issuer opens no browser and sends nothing there: without a terminal login requires --issuer"
    )
    func editedProfileAfterLogout() throws {
        let (emulator, sandbox, attacker) = try loggedOutWithEditedProfile()
        defer {
            emulator.stop()
            attacker.stop()
        }
        let before = sandbox.browserLaunches
        let run = sandbox.run(["login", "--timeout", "30"])
        #expect(run.status == 2 && run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run)")
        #expect(run.stderr.contains("names the issuer \(attacker.issuer)") && run.stderr.contains("give --issuer URL"), "\(run)")
        #expect(run.rule == "profile-unverified", "\(run)")
        #expect(sandbox.browserLaunches == before, "a browser was opened")
        #expect(attacker.arrivedRequestCount == 0, "the attacker's issuer was contacted")

        // Naming the issuer signs in there, and only there.
        let again = sandbox.run(["login", "--issuer", emulator.issuer, "--timeout", "30"])
        #expect(again.status == 0, "\(again)")
        #expect(attacker.arrivedRequestCount == 0)
        // Now the cache vouches for the profile: a plain login reuses it and names the issuer first.
        let plain = sandbox.run(["login", "--timeout", "30"])
        #expect(plain.status == 0, "\(plain)")
        #expect(plain.stderr.hasPrefix("Signing in to \(emulator.issuer), the issuer saved in profile \"default\"."), "\(plain)")
    }

    @Test(
        "login-unverified-profile-prompt: on a terminal, the issuer of an unverified profile is shown and asked about; anything but y stops before discovery",
        .enabled(if: DebianTools.script != nil, "script (bsdutils) is missing"))
    func promptOnTerminal() throws {
        let (emulator, sandbox, attacker) = try loggedOutWithEditedProfile()
        defer {
            emulator.stop()
            attacker.stop()
        }
        // script gives pingcli a terminal; "n" is typed.
        let command = "printf 'n\\n' | script -qec \"'\(Locations.pingcli)' login --timeout 30\" /dev/null"
        let run = runProcess("/bin/sh", ["-c", command], environment: sandbox.environment, timeout: 60)
        #expect(
            run.stdout.contains("names the issuer \(attacker.issuer)") && run.stdout.contains("Sign in to \(attacker.issuer)? [y/N]"),
            "\(run)")
        #expect(
            run.stdout.contains("not signing in to")
                && run.stdout.contains("nothing was changed (pingcli profiles remove default deletes the profile"),
            "\(run)")
        #expect(!run.stdout.contains("give --issuer URL to choose"), "answering no is not a question about the issuer: \(run)")
        #expect(attacker.arrivedRequestCount == 0, "the attacker's issuer was contacted")
    }

    @Test(
        "logout-port-other-user: another user (nobody) on the sign-off port: logout --end-session names the uid and how to choose another port, and removes nothing; a retry on a free port still sends the ID token",
        .enabled(if: getuid() == 0, "needs root to act as another user"))
    func signOffPortTakenByAnotherUser() throws {
        // Spare ports for the retry: a port the kernel handed out and released may be taken again (by another
        // process's connection) before pingcli listens on it, so the next spare is tried when it was.
        let (port, spares) = (TLSFront.freePort(), (0..<3).map { _ in TLSFront.freePort() })
        let (emulator, sandbox) = try loggedIn {
            $0.clients[0].postLogoutRedirectURIs = ([port] + spares).map { "http://127.0.0.1:\($0)/logout" }
        }
        defer { emulator.stop() }
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        let (pid, error) = spawnProcess(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/socat",
                "TCP-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork", "SYSTEM:true",
            ], environment: ["PATH": "/usr/bin:/bin"], stdout: devNull, stderr: devNull)
        close(devNull)
        #expect(error == 0)
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        var listening = false
        for _ in 0..<500 where !listening {
            listening = (readText("/proc/net/tcp") ?? "").contains(
                ":\(String(port, radix: 16, uppercase: true).leftPadded(4)) 00000000:0000 0A")
            if !listening { usleep(20_000) }
        }
        #expect(listening, "nobody's socat listens on \(port)")

        let logout = sandbox.run(["logout", "--end-session", "--port", "\(port)", "--timeout", "30"])
        #expect(logout.status == 2 && logout.stdout.isEmpty, "\(logout)")
        #expect(logout.stderr.split(separator: "\n").count == 1, "\(logout)")
        #expect(logout.stderr.contains("held by another user (uid 65534)"), "\(logout)")
        #expect(logout.rule == "sign-off-port-taken", "\(logout)")
        #expect(logout.stderr.contains("so nothing was removed") && logout.stderr.contains("give --port N here"), "\(logout)")
        #expect(logout.stderr.contains("pingcli login --logout-port N"), "\(logout)")
        #expect(FileManager.default.fileExists(atPath: sandbox.stateDirectory + "/tokens.enc"), "the tokens are still there")
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
        #expect(emulator.requests(to: .endSession).isEmpty)

        // On a free port the sign-off goes ahead, with the ID token as its hint.
        var retry = sandbox.run(["logout", "--end-session", "--port", "\(spares[0])", "--timeout", "30"])
        for spare in spares.dropFirst() where retry.rule == "sign-off-port-taken" {
            retry = sandbox.run(["logout", "--end-session", "--port", "\(spare)", "--timeout", "30"])
        }
        #expect(retry.status == 0, "\(retry)")
        #expect(emulator.requests(to: .endSession).first?.query["id_token_hint"] != nil)
    }
}

extension String {
    /// Zeros in front up to `width` characters (as /proc/net/tcp prints ports).
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
