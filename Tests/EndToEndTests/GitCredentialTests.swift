import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli git-credential`: a real git cloning over HTTP with pingcli as its credential helper, and the
/// gate for the requests git writes on stdin.
@Suite("git credential helper, end to end")
struct GitCredentialTests {
    static let git = "/usr/bin/git"

    /// git with a private configuration: nothing from the machine, no prompts.
    func runGit(_ arguments: [String], _ sandbox: Sandbox, in directory: String? = nil) -> CLIRun {
        var environment = sandbox.environment
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["GIT_TERMINAL_PROMPT"] = "0"
        return runProcess(
            Self.git, (directory.map { ["-C", $0] } ?? []) + ["-c", "user.name=Test", "-c", "user.email=test@example.com"] + arguments,
            environment: environment, timeout: 120)
    }

    /// A bare repository with one commit, prepared for git's dumb HTTP protocol.
    func makeRepository(_ sandbox: Sandbox) throws -> String {
        let work = sandbox.root + "/work"
        #expect(runGit(["init", "-q", "-b", "main", work], sandbox).status == 0)
        try "hello from behind Ping\n".write(toFile: work + "/README", atomically: true, encoding: .utf8)
        #expect(runGit(["add", "README"], sandbox, in: work).status == 0)
        #expect(runGit(["commit", "-q", "-m", "first"], sandbox, in: work).status == 0)
        let bare = sandbox.root + "/served/repo.git"
        #expect(runGit(["clone", "-q", "--bare", work, bare], sandbox).status == 0)
        let info = runGit(["update-server-info"], sandbox, in: bare)
        #expect(info.status == 0, "\(info)")
        return bare
    }

    /// Serves `bare` at /repo.git/ over dumb HTTP, only with Basic auth `username:<newest access token>`.
    func startServer(_ bare: String, _ emulator: Emulator, username: String = "oauth2") throws -> GuardedServer {
        try GuardedServer { request in
            guard let newest = emulator.issuedAccessTokens.last,
                request.authorization == "Basic " + Data("\(username):\(newest)".utf8).base64EncodedString()
            else { return .unauthorized }
            let prefix = "/repo.git/"
            guard request.method == "GET", request.path.hasPrefix(prefix), !request.path.contains(".."),
                let data = FileManager.default.contents(atPath: bare + "/" + request.path.dropFirst(prefix.count))
            else { return .notFound }
            return .init(status: 200, headers: [("Content-Type", "application/octet-stream")], body: Array(data))
        }
    }

    @Test(
        "git-clone: git clones over HTTP with pingcli git-credential as its helper; store and erase keep the session",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "git is missing: run make deps"))
    func gitClones() throws {
        let (emulator, sandbox) = try loggedIn()
        let bare = try makeRepository(sandbox)
        let server = try startServer(bare, emulator)
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/repo.git"
        #expect(sandbox.run(["git-credential", "configure", "127.0.0.1:\(server.port)"]).status == 0)
        let refused = runGit(["clone", "-q", url, sandbox.root + "/without"], sandbox)
        #expect(refused.status != 0, "the server requires the token: \(refused)")
        let helper = "credential.helper=!'\(Locations.pingcli)' git-credential"
        let clone = runGit(["-c", "credential.helper=", "-c", helper, "clone", "-q", url, sandbox.root + "/clone"], sandbox)
        #expect(clone.status == 0, "\(clone)")
        #expect(readText(sandbox.root + "/clone/README") == "hello from behind Ping\n")
        let newest = try #require(emulator.issuedAccessTokens.last)
        #expect(server.requests.contains { $0.authorization == "Basic " + Data("oauth2:\(newest)".utf8).base64EncodedString() })
        #expect(!clone.stderr.contains(newest))
        // git called `store` after the clone: the session is as it was.
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
        let erase = sandbox.run(["git-credential", "erase"], input: "protocol=http\nhost=127.0.0.1\npassword=\(newest)\n\n")
        #expect(erase.status == 0 && erase.stdout.isEmpty && erase.stderr.isEmpty, "\(erase)")
        #expect(sandbox.run(["status"]).status == 0, "erase does not log out")
    }

    @Test("git-credential-get: username and password lines, the URL's username first, --username and PINGCLI_GIT_USERNAME")
    func getAnswers() throws {
        let (emulator, sandbox) = try loggedIn()
        #expect(sandbox.run(["git-credential", "configure", "git.example.com", "h"]).status == 0)
        let token = try #require(emulator.issuedAccessTokens.last)
        let plain = sandbox.run(["git-credential", "get"], input: "protocol=https\nhost=git.example.com\n\n")
        #expect(plain.status == 0, "\(plain)")
        let lines = plain.stdout.split(separator: "\n").map(String.init)
        #expect(lines.prefix(2) == ["username=oauth2", "password=\(token)"], "\(plain)")
        #expect(lines.count == 3 && lines[2].hasPrefix("password_expiry_utc="))
        let named = sandbox.run(["git-credential", "--username", "x-access-token", "get"], input: "protocol=https\nhost=h\n")
        #expect(named.stdout.hasPrefix("username=x-access-token\npassword=\(token)\n"), "\(named)")
        let fromEnvironment = sandbox.run(
            ["git-credential", "get"], input: "protocol=https\nhost=h\n", environment: ["PINGCLI_GIT_USERNAME": "ci-bot"])
        #expect(fromEnvironment.stdout.hasPrefix("username=ci-bot\n"), "\(fromEnvironment)")
        let fromURL = sandbox.run(["git-credential", "get", "--username", "ignored"], input: "protocol=https\nhost=h\nusername=alice\n\n")
        #expect(fromURL.stdout.hasPrefix("username=alice\npassword=\(token)\n"), "\(fromURL)")
    }

    @Test(
        "git-credential-plain-http: no token for http to another machine (or an unknown protocol), even for a configured host: nothing printed, exit 0"
    )
    func refusesPlainHTTP() throws {
        let (_, sandbox) = try loggedIn()
        #expect(sandbox.run(["git-credential", "configure", "git.example.com", "127.0.0.1.evil.test:80", "[::1]:8080"]).status == 0)
        for input in ["protocol=http\nhost=git.example.com\n\n", "protocol=http\nhost=127.0.0.1.evil.test:80\n", "host=git.example.com\n"] {
            let run = sandbox.run(["git-credential", "get"], input: input)
            #expect(run.status == 0 && run.stdout.isEmpty && run.stderr.isEmpty, "\(run)")
        }
        let loopback = sandbox.run(["git-credential", "get"], input: "protocol=http\nhost=[::1]:8080\n")
        #expect(loopback.status == 0 && loopback.stdout.contains("password="), "\(loopback)")
    }

    @Test(
        "git-credential-gate: a request that is not git's key=value lines is refused, nothing printed",
        arguments: [
            ("protocol=https\nno equals sign\n\n", "is not key=value"),
            ("=https\n", "is not key=value"),
            ("Protocol=https\n", "malformed key"),
            ("protocol=https\nhost=h\u{1b}[31m\n", "host has control characters"),
            ("protocol=https\nhost=h\r\n", "host has control characters"),
            ("protocol=https\nhost=\u{7f}\n", "host has control characters"),
            ("(70 000 bytes without a blank line)", "longer than 64 KiB"),
        ])
    func gate(input: String, message: String) throws {
        let (_, sandbox) = try loggedIn()
        let input = input.hasPrefix("(70 000") ? "protocol=https\nhost=" + String(repeating: "h", count: 70_000) + "\n" : input
        let run = sandbox.run(["git-credential", "get"], input: input)
        #expect(run.status == 2 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == "git-credential-gate", "\(run)")
        #expect(run.stderr.hasPrefix("pingcli: ") && run.stderr.contains(message), "\(run)")
        #expect(run.stderr.split(separator: "\n").count == 1 && !run.stderr.contains("\u{1b}"))
    }

    @Test(
        "git-credential-usage: a missing or unknown operation, or a username that could break the answer",
        arguments: [
            ([], "needs an operation"),
            (["fetch"], "unknown git-credential operation \"fetch\""),
            (["--username", "a\nb", "get"], "git username must be"),
            (["--username", "a=b", "get"], "git username must be"),
        ])
    func usage(arguments: [String], message: String) throws {
        let (_, sandbox) = try loggedIn()
        let run = sandbox.run(["git-credential"] + arguments, input: "protocol=https\nhost=h\n\n")
        #expect(run.status == 2 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == (message.hasPrefix("git username") ? "git-username" : "command-operand"), "\(run)")
        #expect(run.stderr.contains(message), "\(run)")
    }

    @Test(
        "git-credential-not-logged-in: a configured host of a logged-out profile gets exit 4 with the login command; without a profile, nothing (exit 0)"
    )
    func notLoggedIn() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let none = sandbox.run(["git-credential", "get"], input: "protocol=https\nhost=h\n\n")
        #expect(none.status == 0 && none.stdout.isEmpty && none.stderr.isEmpty, "\(none)")
        #expect(sandbox.login(emulator, ["--git-host", "h"]).status == 0)
        #expect(sandbox.run(["logout"]).status == 0)
        let run = sandbox.run(["git-credential", "get"], input: "protocol=https\nhost=h\n\n")
        #expect(run.status == 4 && run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.contains("run pingcli login"))
        #expect(run.rule == "helper-no-terminal", "\(run)")
    }
}
