import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// kubectl signs in on first use: Debian's real kubectl runs the built pingcli as its exec plugin, under a
/// pseudo-terminal (util-linux's script) when a person is at it, and the browser double completes the
/// emulator's sign-in. Non-interactive callers never open a browser; five at once open one sign-in.
@Suite("kubectl and git sign in on first use, end to end")
struct KubectlSignInTests {
    static let hasScript = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")
    /// The trait of every test that runs Debian's kubectl under script(1).
    static let needed: ConditionTrait = .enabled(
        if: DebianTools.kubectl != nil && hasScript, "Debian's kubectl or script is missing: run make deps")

    /// `command` run by sh under script(1): a new session whose controlling terminal is a pseudo-terminal,
    /// `typed` written to it as a person would type ahead. Everything shown on the terminal is stdout.
    func onTerminal(_ command: String, typing typed: String = "", _ sandbox: Sandbox, environment: [String: String] = [:]) -> CLIRun {
        let quoted = command.replacingOccurrences(of: "\"", with: "\\\"")
        let line = "printf '\(typed)' | script -qec \"\(quoted)\" /dev/null"
        return runProcess("/bin/sh", ["-c", line], environment: sandbox.environment.merging(environment) { $1 }, timeout: 240)
    }

    /// Runs `body` with Debian's kubectl, a sandbox signed in and then logged out (its profile kept, its
    /// cache gone) and the API stand-in; then stops the stand-in.
    func loggedOut(_ body: (_ kubectl: String, Emulator, Sandbox, KubeAPIStandIn) throws -> Void) throws {
        let kubectl = try #require(DebianTools.kubectl)
        let (emulator, sandbox) = try loggedIn()
        #expect(sandbox.run(["logout"]).status == 0)
        let api = try KubeAPIStandIn(emulator: emulator, sandbox: sandbox)
        defer { api.stop() }
        try body(kubectl, emulator, sandbox, api)
    }

    @Test(
        "kubectl-sign-in-interactive: after a logout, kubectl on a terminal signs in with the saved settings, without a question (the logout's sealed record vouches for them), and gets its pods; the token never reaches the terminal",
        Self.needed)
    func interactiveSignIn() throws {
        try loggedOut { kubectl, emulator, sandbox, api in
            let before = emulator.authorizationRequestParameters.count
            let run = onTerminal(api.getPods(kubectl), sandbox)
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout.contains("\"kind\":\"PodList\""), "\(run)")
            #expect(run.stdout.contains("signing in for kubectl") && !run.stdout.contains("[y/N]"), "\(run)")
            #expect(emulator.authorizationRequestParameters.count == before + 1, "one sign-in")
            let newest = try #require(emulator.issuedAccessTokens.last)
            #expect(api.server.requests.contains { $0.authorization == "Bearer " + newest })
            #expect(!run.stdout.contains(newest), "the ExecCredential goes to kubectl, not to the terminal")
            #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine, "the session is cached for the next call")
        }
    }

    @Test(
        "kubectl-sign-in-not-interactive: kubectl without a terminal, or with PINGCLI_HELPER_LOGIN=never, gets the hint and exit 4; no browser opens",
        Self.needed)
    func nonInteractive() throws {
        try loggedOut { kubectl, emulator, sandbox, api in
            let visited = sandbox.browserLaunches
            let before = emulator.authorizationRequestParameters.count
            // Output to a pipe: kubectl is not interactive (1.20 then keeps its stdin from the plugin).
            let piped = api.run(kubectl, sandbox)
            #expect(piped.status != 0, "\(piped)")
            #expect(piped.stderr.contains("not logged in for profile \"default\""), "\(piped)")
            #expect(piped.stderr.contains("kubectl did not sign in") && piped.stderr.contains("exit code 4"), "\(piped)")
            // On a terminal, but an IDE's environment says never.
            let optedOut = onTerminal(api.getPods(kubectl), sandbox, environment: ["PINGCLI_HELPER_LOGIN": "never"])
            #expect(optedOut.status != 0 && optedOut.stdout.contains("PINGCLI_HELPER_LOGIN is never"), "\(optedOut)")
            #expect(!optedOut.stdout.contains("Sign in to"), "\(optedOut)")
            // kubectl says interactive, but there is no terminal at all (a new session without one).
            let info = #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":true}}"#
            let detached = sandbox.run(["token", "--format", "exec-credential"], environment: ["KUBERNETES_EXEC_INFO": info])
            #expect(detached.status == 4 && detached.stdout.isEmpty, "\(detached)")
            #expect(detached.stderr.split(separator: "\n").count == 1 && detached.stderr.contains("no terminal"), "\(detached)")
            #expect(sandbox.browserLaunches == visited, "no browser opened")
            #expect(emulator.authorizationRequestParameters.count == before)
            #expect(api.server.requests.allSatisfy { $0.authorization == nil }, "kubectl sent no token")
        }
    }

    @Test(
        "kubectl-sign-in-once: five kubectl calls at once on a new machine (the kubeconfig names issuer and client) open exactly one sign-in and all get their pods",
        Self.needed)
    func fiveAtOnce() throws {
        let kubectl = try #require(DebianTools.kubectl)
        let (emulator, sandbox) = try emulatorAndSandbox()
        let api = try KubeAPIStandIn(
            emulator: emulator, sandbox: sandbox, environment: ["PINGCLI_ISSUER": emulator.issuer, "PINGCLI_CLIENT_ID": "pingcli-test"])
        defer { api.stop() }
        // All five on the terminal (kubectl 1.20 is interactive when its stdout is one, and hands over its
        // stdin: a script's background job would get /dev/null); each exit status kept.
        let calls = (1...5).map { "(\(api.getPods(kubectl)) < /dev/tty; echo \"call \($0) exit $?\") &\n" }.joined()
        try (calls + "wait\n").write(toFile: sandbox.root + "/five.sh", atomically: true, encoding: .utf8)
        let run = onTerminal("sh '\(sandbox.root)/five.sh'", sandbox)
        #expect(run.status == 0, "\(run)")
        for index in 1...5 { #expect(run.stdout.contains("call \(index) exit 0"), "\(run)") }
        #expect(run.stdout.components(separatedBy: "\"kind\":\"PodList\"").count == 6, "five pod lists: \(run)")
        #expect(emulator.authorizationRequestParameters.count == 1, "exactly one sign-in")
        #expect(emulator.requests(to: .token).filter { $0.form["grant_type"] == "authorization_code" }.count == 1)
        #expect(sandbox.browserLog.filter { $0.contains("/callback") }.count == 1, "the browser came back once")
    }

    @Test(
        "git-credential-sign-in: git on a terminal signs in through pingcli and clones; with GIT_TERMINAL_PROMPT=0 it gets the hint and no browser",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: GitCredentialTests.git) && Self.hasScript,
            "git or script is missing: run make deps"))
    func gitSignsIn() throws {
        let git = GitCredentialTests()
        let (emulator, sandbox) = try loggedIn()
        let bare = try git.makeRepository(sandbox)
        let server = try git.startServer(bare, emulator)
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/repo.git"
        #expect(sandbox.run(["git-credential", "configure", "127.0.0.1:\(server.port)"]).status == 0)
        #expect(sandbox.run(["logout"]).status == 0)
        let before = emulator.authorizationRequestParameters.count
        let environment = ["GIT_CONFIG_NOSYSTEM": "1"]
        func clone(_ name: String, prompt: String?) -> String {
            "\(prompt.map { "GIT_TERMINAL_PROMPT=\($0) " } ?? "")'\(GitCredentialTests.git)' -c credential.helper= -c credential.helper='!\(Locations.pingcli) git-credential' clone -q \(url) '\(sandbox.root)/\(name)'"
        }
        let forbidden = onTerminal(clone("forbidden", prompt: "0"), sandbox, environment: environment)
        #expect(forbidden.status != 0, "\(forbidden)")
        #expect(forbidden.stdout.contains("git did not sign in: GIT_TERMINAL_PROMPT forbids prompting"), "\(forbidden)")
        #expect(emulator.authorizationRequestParameters.count == before, "no sign-in")
        let allowed = onTerminal(clone("clone", prompt: nil), typing: "y\\n", sandbox, environment: environment)
        #expect(allowed.status == 0, "\(allowed)")
        #expect(allowed.stdout.contains("signing in for git"), "\(allowed)")
        #expect(readText(sandbox.root + "/clone/README") == "hello from behind Ping\n")
        #expect(emulator.authorizationRequestParameters.count == before + 1)
        let newest = try #require(emulator.issuedAccessTokens.last)
        #expect(!allowed.stdout.contains(newest))
    }
}
