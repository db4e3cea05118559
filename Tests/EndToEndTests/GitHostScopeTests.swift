import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `git-credential` hands the token only to the git hosts the profile serves, over https (http only to
/// this machine), whatever helper configuration git has: with the helper configured for every host (as
/// people configure gh's), a malicious git server git meets still gets nothing.
@Suite("git credential helper: only the profile's git hosts")
struct GitHostScopeTests {
    let git = GitCredentialTests()

    /// A server that demands Basic auth and records every Authorization it is offered.
    func attacker() throws -> GuardedServer { try GuardedServer { _ in .unauthorized } }

    /// Whether any request to `server` carried `token`.
    func received(_ token: String, _ server: GuardedServer) -> Bool {
        server.requests.contains { request in
            guard let authorization = request.authorization, authorization.hasPrefix("Basic "),
                let decoded = Data(base64Encoded: String(authorization.dropFirst(6)))
            else { return request.authorization?.contains(token) ?? false }
            return String(decoding: decoded, as: UTF8.self).contains(token)
        }
    }

    @Test(
        "git-host-scope: with the helper set for every host, a malicious git server (https through a TLS front, or http on another loopback port) receives no token; the configured host does",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "git is missing: run make deps"))
    func maliciousGitServer() throws {
        let (emulator, sandbox) = try loggedIn()
        let bare = try git.makeRepository(sandbox)
        let good = try git.startServer(bare, emulator)
        defer { good.stop() }
        let configure = sandbox.run(["git-credential", "configure", "127.0.0.1:\(good.port)"])
        #expect(configure.status == 0, "\(configure)")
        #expect(sandbox.run(["status"]).stdout.contains("git hosts:     127.0.0.1:\(good.port)"))

        let evil = try attacker()
        defer { evil.stop() }
        try FileManager.default.createDirectory(atPath: sandbox.root + "/tls", withIntermediateDirectories: true)
        let front = try TLSFront(backendPort: evil.port, directory: sandbox.root + "/tls")
        defer { front.stop() }
        // Configured as gh's is: for every host, not scoped to a URL.
        let helper = ["-c", "credential.helper=", "-c", "credential.helper=!'\(Locations.pingcli)' git-credential"]
        let tls = ["-c", "http.proxy=http://127.0.0.1:\(front.proxyPort)", "-c", "http.sslCAInfo=\(front.caFile)"]
        let overTLS = git.runGit(helper + tls + ["ls-remote", "https://\(TLSFront.host)/repo.git"], sandbox)
        #expect(overTLS.status != 0, "\(overTLS)")
        #expect(front.connectTargets.contains("\(TLSFront.host):443"), "git reached the malicious https server")
        #expect(!evil.requests.isEmpty, "the malicious server was asked")
        let overHTTP = git.runGit(helper + ["ls-remote", "http://127.0.0.1:\(evil.port)/repo.git"], sandbox)
        #expect(overHTTP.status != 0, "\(overHTTP)")
        for token in emulator.issuedAccessTokens {
            #expect(!received(token, evil), "the malicious git server received a token")
        }
        #expect(evil.requests.allSatisfy { $0.authorization == nil }, "no credential at all went to the malicious server")

        // The configured host gets the token through the same helper configuration.
        let clone = git.runGit(helper + ["clone", "-q", "http://127.0.0.1:\(good.port)/repo.git", sandbox.root + "/clone"], sandbox)
        #expect(clone.status == 0, "\(clone)")
        #expect(readText(sandbox.root + "/clone/README") == "hello from behind Ping\n")
    }

    @Test(
        "git-host-scope-requests: only a configured host, port and path prefix over https (http on loopback) is answered; anything else prints nothing and exits 0",
        arguments: [
            ("protocol=https\nhost=evil.attacker.example\n\n", false),
            ("protocol=https\nhost=git.example.com\n\n", true),
            ("protocol=https\nhost=GIT.example.com:443\n\n", true),
            ("protocol=https\nhost=git.example.com:8443\n\n", false),
            ("protocol=http\nhost=git.example.com\n\n", false),
            ("host=git.example.com\n\n", false),
            ("protocol=https\nhost=git.example.com.evil.test\n\n", false),
            ("protocol=https\nhost=lab.example.com\n\n", false),
            ("protocol=https\nhost=lab.example.com\npath=team/repo.git\n\n", true),
            ("protocol=https\nhost=lab.example.com\npath=team2/repo.git\n\n", false),
            ("protocol=https\nhost=lab.example.com\npath=team/../other/repo.git\n\n", false),
            ("protocol=http\nhost=127.0.0.1:8080\n\n", true),
            ("protocol=http\nhost=127.0.0.1:8081\n\n", false),
            ("protocol=http\nhost=127.0.0.1.evil.test:8080\n\n", false),
            ("protocol=ssh\nhost=git.example.com\n\n", false),
        ])
    func requests(input: String, answered: Bool) throws {
        let (emulator, sandbox) = try loggedIn()
        let configure = sandbox.run(["git-credential", "configure", "git.example.com", "lab.example.com/team", "127.0.0.1:8080"])
        #expect(configure.status == 0, "\(configure)")
        let run = sandbox.run(["git-credential", "get"], input: input)
        #expect(run.status == 0, "\(run)")
        if answered {
            #expect(run.stdout.hasPrefix("username=oauth2\npassword=\(try #require(emulator.issuedAccessTokens.last))\n"), "\(run)")
        } else {
            #expect(run.stdout.isEmpty && run.stderr.isEmpty, "\(run)")
        }
    }

    @Test(
        "git-host-login: login --git-host saves the hosts (bound to the cache), a later login keeps them, configure --remove takes one out")
    func loginSavesHosts() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        #expect(sandbox.login(emulator, ["--git-host", "git.example.com", "--git-host", "https://Lab.example.com:8443/team/"]).status == 0)
        let profile = readText(sandbox.profileDirectory + "/profile.json") ?? ""
        #expect(profile.contains("\"git.example.com\"") && profile.contains("\"lab.example.com:8443/team\""), "\(profile)")
        #expect(sandbox.run(["login", "--timeout", "30"]).status == 0)
        #expect(sandbox.run(["status"]).stdout.contains("git hosts:     git.example.com, lab.example.com:8443/team"))
        let remove = sandbox.run(["git-credential", "configure", "--remove", "git.example.com"])
        #expect(remove.status == 0 && remove.stderr.contains("gives its token to git at lab.example.com:8443/team"), "\(remove)")
        let gone = sandbox.run(["git-credential", "get"], input: "protocol=https\nhost=git.example.com\n\n")
        #expect(gone.status == 0 && gone.stdout.isEmpty, "\(gone)")
        // A git host added to profile.json behind pingcli's back is refused like an edited endpoint.
        let path = sandbox.profileDirectory + "/profile.json"
        let edited = (readText(path) ?? "").replacingOccurrences(of: "\"lab.example.com:8443/team\"", with: "\"evil.example\"")
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        let run = sandbox.run(["git-credential", "get"], input: "protocol=https\nhost=evil.example\n\n")
        #expect(run.rule == "profile-binding", "\(run)")
        #expect(run.status == 4 && run.stdout.isEmpty, "\(run)")
    }

    @Test(
        "git-host-gate: a git host that is not HOST[:PORT][/PATH] is a usage error, one line",
        arguments: [
            "", "*.example.com", "http://git.example.com", "user@git.example.com", "git.example.com:0", "git.example.com:99999",
            "git.example.com/../x", "git example.com", "git.example.com?x", "-bad.example.com", "a,b",
        ])
    func gate(host: String) throws {
        let (_, sandbox) = try loggedIn()
        let run = sandbox.run(["git-credential", "configure", host])
        #expect(run.status == 2 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == (host.hasPrefix("-") ? "argument-unexpected" : "git-host-gate"), "\(run)")
        #expect(run.stderr.hasPrefix("pingcli: ") && run.stderr.split(separator: "\n").count == 1, "\(run)")
    }
}
