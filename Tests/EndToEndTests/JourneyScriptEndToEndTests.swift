import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Journeys without a person at the terminal (`--answers`), the session afterwards (used again when the
/// refresh token is refused, ended by `logout`), and a person who gives up at a secret prompt.
@Suite("journeys in scripts and afterwards, end to end")
struct JourneyScriptEndToEndTests {
    /// alice signed in through the Login tree from an answers file, no terminal anywhere.
    static func signedIn(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws -> (Emulator, Sandbox, CLIRun) {
        let (emulator, sandbox) = sandboxed(try AMJourneys.emulator(configure))
        let answers = AMJourneys.answersFile(sandbox, ["User Name=alice", "Password=\(AMJourneys.password)"])
        let run = sandbox.run(AMJourneys.login(emulator, tree: "Login", ["--answers", answers]))
        #expect(run.status == 0, "\(run)")
        return (emulator, sandbox, run)
    }

    @Test("journey-e2e-answers: --answers FILE (mode 0600) without a terminal prints only the outcome; a file others can read is refused")
    func answersWithoutTerminal() throws {
        let (emulator, sandbox, run) = try Self.signedIn()
        #expect(run.stdout.isEmpty && run.lastErrorLine.hasPrefix("Logged in to"), "\(run)")
        #expect(!run.stderr.contains("User Name") && !run.stderr.contains("Password"), "no prompt is shown\n\(run)")
        try AMJourneys.expectSecretsKept(JourneySecrets(emulator, typed: [AMJourneys.password]), run, sandbox, emulator)

        let open = AMJourneys.answersFile(sandbox, ["User Name=alice", "Password=\(AMJourneys.password)"], mode: 0o644)
        let before = emulator.requests.count
        let refused = sandbox.run(AMJourneys.login(emulator, tree: "Login", ["--profile", "other", "--answers", open]))
        #expect(refused.status == 1 && refused.stderr.split(separator: "\n").count == 1, "\(refused)")
        #expect(refused.rule == "file-mode-refused", "\(refused)")
        #expect(refused.stderr.contains("chmod 600"), "\(refused)")
        #expect(emulator.requests.count == before, "nothing was asked of AM")
    }

    @Test("journey-e2e-no-answer: no terminal and no answer for a prompt: exit 4, one line naming the prompt")
    func missingAnswer() throws {
        let (emulator, sandbox) = sandboxed(try AMJourneys.emulator())
        let answers = AMJourneys.answersFile(sandbox, ["User Name=alice"])
        let run = sandbox.run(AMJourneys.login(emulator, tree: "Login", ["--answers", answers]))
        #expect(run.status == 4, "\(run)")
        #expect(run.rule == "journey-no-answer", "\(run)")
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("\"Password\""), "\(run)")
        #expect(emulator.journeySessions.isEmpty)
    }

    @Test(
        "journey-e2e-session-reuse: a refused refresh token is replaced, silently, through the AM session; once AM refuses the session, sign in again"
    )
    func sessionReuse() throws {
        let (emulator, sandbox, _) = try Self.signedIn { $0.accessTokenLifetime = 20 }  // inside token's 30 s threshold
        let session = try #require(emulator.journeySessions.first?.tokenId)
        emulator.accessTokenLifetime = 3600
        var faults = Faults()
        faults.failNextRefreshes = 1
        emulator.faults = faults
        let renewed = sandbox.run(["token", "--raw"])
        #expect(renewed.status == 0 && renewed.stdout == emulator.newestTokenLine && renewed.stderr.isEmpty, "\(renewed)")
        #expect(emulator.requests(to: .token).map(\.grantType) == ["authorization_code", "refresh_token", "authorization_code"])
        let authorize = try #require(emulator.requests(to: .authorize).last)
        #expect(authorize.headers["iplanetdirectorypro"] == session && authorize.query["code_challenge_method"] == "S256")
        #expect(authorize.query["nonce"] != nil && authorize.query["state"] != nil)
        try AMJourneys.expectSecretsKept(JourneySecrets(emulator, typed: [AMJourneys.password]), renewed, sandbox, emulator)

        emulator.advanceClock(by: 7300)  // past the SSO session's 120 minutes
        faults.failNextRefreshes = 1
        emulator.faults = faults
        let refused = sandbox.run(["token", "--raw", "--min-ttl", "3700"])  // more than the token has: a refresh
        #expect(refused.status == 4 && refused.stdout.isEmpty, "\(refused)")
        #expect(refused.rule == "session-expired", "\(refused)")
        #expect(refused.stderr.contains("run pingcli login --profile default"), "\(refused)")
        let authorizations = emulator.requests(to: .authorize).count
        #expect(sandbox.run(["token", "--raw", "--min-ttl", "3700"]).status == 4)
        #expect(emulator.requests(to: .authorize).count == authorizations, "a refused session is not sent again")
    }

    @Test("journey-e2e-logout: logout ends the AM session at AM before removing the cache")
    func logout() throws {
        let (emulator, sandbox, _) = try Self.signedIn()
        let session = try #require(emulator.journeySessions.first?.tokenId)
        let run = sandbox.run(["logout"])
        #expect(run.status == 0 && run.stderr.contains("Ended the AM session"), "\(run)")
        #expect(emulator.journeySessions.first?.ended == true)
        let signOff = try #require(emulator.requests(to: .sessions).last)
        #expect(signOff.query["_action"] == "logout" && signOff.headers["iplanetdirectorypro"] == session)
        #expect(emulator.requests(to: .revoke).isEmpty)
        let secrets = JourneySecrets(emulator, typed: [AMJourneys.password])
        secrets.expectNotShown(run.stdout + run.stderr)
        secrets.expectNotInFiles(sandbox)
        #expect(sandbox.run(["token", "--raw"]).status == 4, "signed out here too")
    }

    @Test("journey-e2e-logout-revoke: logout --revoke on a journey profile ends the AM session and revokes the refresh token")
    func logoutRevoke() throws {
        let (emulator, sandbox, _) = try Self.signedIn()
        let refreshToken = try #require(emulator.issuedRefreshTokens.last)
        #expect(emulator.isActive(token: refreshToken))
        let run = sandbox.run(["logout", "--revoke"])
        #expect(run.status == 0 && run.stderr.contains("Ended the AM session"), "\(run)")
        #expect(emulator.journeySessions.first?.ended == true)
        #expect(!emulator.isActive(token: refreshToken), "the refresh token was revoked")
        let order = emulator.requests.filter { [.sessions, .revoke].contains($0.kind) }.map(\.kind)
        #expect(order.first == .sessions && order.contains(.revoke), "the session ends first, then the revocation: \(order)")
        let secrets = JourneySecrets(emulator, typed: [AMJourneys.password])
        secrets.expectNotShown(run.stdout + run.stderr)
        secrets.expectNotInFiles(sandbox)
    }

    @Test("journey-echo-restored: Ctrl-C at the password prompt ends pingcli with the terminal's echo back on and nothing typed shown")
    func interruptAtPassword() throws {
        let (_, sandbox, terminal) = try AMJourneys.atPassword("Login")
        terminal.type("Half-typ")
        terminal.type("\u{3}")
        let run = terminal.finish()
        #expect(run.status == 130, "\(run)")
        #expect(terminal.localModes & tcflag_t(ECHO) != 0, "the terminal's echo is back on")
        #expect(!run.stdout.contains("Half-typ"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.profileDirectory), "the login left nothing behind")
    }

    @Test("journey-echo-restored: Ctrl-D at the one-time code prompt: exit 4 naming it, echo back on")
    func endOfInputAtCode() throws {
        let (emulator, _, terminal) = try AMJourneys.walking("Second Factor")
        terminal.answer("Choose 1-2 [1]: ", "1")
        #expect(terminal.waitFor("One-time code: ") && terminal.waitForEchoOff())
        terminal.type("\u{4}")
        let run = terminal.finish()
        #expect(run.status == 4 && run.stdout.contains("no answer to \"One-time code\""), "\(run)")
        #expect(terminal.localModes & tcflag_t(ECHO) != 0, "the terminal's echo is back on")
        JourneySecrets(emulator, typed: [AMJourneys.password]).expectNotShown(run.stdout)
    }
}

extension JourneyScriptEndToEndTests {
    @Test(
        "journey-helper-sign-in: git on a terminal, with a journey profile logged out, runs the saved tree through pingcli's credential helper and clones",
        .enabled(if: FileManager.default.isExecutableFile(atPath: GitCredentialTests.git), "git is missing: run make deps"))
    func gitRunsTheSavedTree() throws {
        let (emulator, sandbox, _) = try Self.signedIn()
        let git = GitCredentialTests()
        let bare = try git.makeRepository(sandbox)
        let server = try git.startServer(bare, emulator)
        defer { server.stop() }
        #expect(sandbox.run(["git-credential", "configure", "127.0.0.1:\(server.port)"]).status == 0)
        #expect(sandbox.run(["logout"]).status == 0)
        let arguments = [
            "-c", "credential.helper=", "-c", "credential.helper=!\(Locations.pingcli) git-credential", "clone", "-q",
            "http://127.0.0.1:\(server.port)/repo.git", sandbox.root + "/clone",
        ]
        let terminal = try TerminalSession(
            sandbox, arguments, executable: GitCredentialTests.git, environment: ["GIT_CONFIG_NOSYSTEM": "1"])
        #expect(terminal.waitFor("signing in for git"), "\(terminal.screen)")
        terminal.answer("User Name: ", "alice")
        terminal.answerSecret("Password: ", AMJourneys.password)
        let run = terminal.finish()
        #expect(run.status == 0, "\(run)")
        #expect(readText(sandbox.root + "/clone/README") == "hello from behind Ping\n")
        #expect(emulator.journeySessions.count == 2 && sandbox.browserLog.isEmpty, "the tree again, no browser")
        let newest = try #require(emulator.issuedAccessTokens.last)
        #expect(!run.stdout.contains(newest))
        try AMJourneys.expectSecretsKept(JourneySecrets(emulator, typed: [AMJourneys.password]), run, sandbox, emulator)
    }
}

extension JourneyScriptEndToEndTests {
    @Test(
        "journey-helper-sign-in: Debian's kubectl on a terminal, with a journey profile logged out, runs the saved tree and gets its pods",
        .enabled(if: DebianTools.kubectl != nil, "Debian's kubectl is missing: run make deps"))
    func kubectlRunsTheSavedTree() throws {
        let kubectl = try #require(DebianTools.kubectl)
        let (emulator, sandbox, _) = try Self.signedIn()
        #expect(sandbox.run(["logout"]).status == 0)
        let api = try KubeAPIStandIn(emulator: emulator, sandbox: sandbox)
        defer { api.stop() }
        let terminal = try TerminalSession(
            sandbox, ["--kubeconfig", api.kubeconfig, "get", "--raw", KubeAPIStandIn.podsPath], executable: kubectl)
        #expect(terminal.waitFor("signing in for kubectl"), "\(terminal.screen)")
        terminal.answer("User Name: ", "alice")
        terminal.answerSecret("Password: ", AMJourneys.password)
        let run = terminal.finish()
        #expect(run.status == 0 && run.stdout.contains("\"kind\":\"PodList\""), "\(run)")
        #expect(emulator.journeySessions.count == 2 && sandbox.browserLog.isEmpty, "the tree again, no browser")
        let newest = try #require(emulator.issuedAccessTokens.last)
        #expect(!run.stdout.contains(newest), "the ExecCredential goes to kubectl, not to the terminal")
        let secrets = JourneySecrets(emulator, typed: [AMJourneys.password])
        secrets.expectNotShown(run.stdout)
        secrets.expectNotInFiles(sandbox)
    }
}
