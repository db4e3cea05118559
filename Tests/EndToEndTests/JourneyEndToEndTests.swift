import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The emulator's PingAM journeys, the person who walks them and the commands that do.
enum AMJourneys {
    static let password = "Pw-q7Zt3-kept"
    static let totpSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    static let alice = User(
        username: "alice", password: password, name: "Alice Example", email: "alice@example.com", totpSecret: totpSecret)

    /// An emulator with the PingAM layout, its built-in trees, and alice among its users.
    static func emulator(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws -> Emulator {
        try startEmulator {
            $0.layout = .pingAM
            $0.users = [.demo, alice]
            configure(&$0)
        }
    }

    /// alice's user name and password typed into `tree` on a new terminal (the password once echo is
    /// off); the sandbox stops the emulator.
    static func walking(_ tree: String) throws -> (Emulator, Sandbox, TerminalSession) {
        let (emulator, sandbox, terminal) = try atPassword(tree)
        terminal.type(password + "\n")
        return (emulator, sandbox, terminal)
    }

    /// alice's user name typed into `tree` on a new terminal, which now asks for the password with echo
    /// off; the sandbox stops the emulator.
    static func atPassword(_ tree: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> (Emulator, Sandbox, TerminalSession)
    {
        let (emulator, sandbox) = sandboxed(try emulator())
        let terminal = try TerminalSession(sandbox, login(emulator, tree: tree))
        #expect(terminal.waitFor("User Name: "), "\(terminal.screen)", sourceLocation: sourceLocation)
        // pingcli waits for the name now: echo is on (it goes off only for a secret's prompt, later).
        #expect(terminal.localModes & tcflag_t(ECHO) != 0, "echo is on for the user name", sourceLocation: sourceLocation)
        terminal.type("alice\n")
        #expect(terminal.waitFor("Password: ") && terminal.waitForEchoOff(), "\(terminal.screen)", sourceLocation: sourceLocation)
        return (emulator, sandbox, terminal)
    }

    static func login(_ emulator: Emulator, tree: String, _ extra: [String] = []) -> [String] {
        ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--journey", tree] + extra
    }

    /// alice's current one-time code, from oathtool (RFC 6238, as her phone would show it).
    static func oneTimeCode() throws -> String {
        let run = runProcess("/usr/bin/oathtool", ["--totp", "-b", totpSecret], environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
        try #require(run.status == 0, "\(run)")
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An answers file of mode 0600 outside HOME and the XDG directories (its secrets are the test's).
    static func answersFile(_ sandbox: Sandbox, _ lines: [String], mode: mode_t = 0o600) -> String {
        let path = sandbox.root + "/answers-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: path, contents: Data((lines.joined(separator: "\n") + "\n").utf8))
        chmod(path, mode)
        return path
    }

    /// Every place a secret must not be, after a journey signed in on `terminal`.
    static func expectSecretsKept(
        _ secrets: JourneySecrets, _ run: CLIRun, _ sandbox: Sandbox, _ emulator: Emulator,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        secrets.expectNotShown(run.stdout + run.stderr, sourceLocation: sourceLocation)
        let token = sandbox.run(["token", "--raw"])
        #expect(token.status == 0 && token.stdout == emulator.newestTokenLine, "\(token)", sourceLocation: sourceLocation)
        secrets.expectNotShown(token.stdout + token.stderr, sourceLocation: sourceLocation)
        let other = try startEmulator()
        defer { other.stop() }
        _ = sandbox.run(["api", other.url(for: .resource) ?? ""])
        secrets.expectNotInFiles(sandbox, sourceLocation: sourceLocation)
        secrets.expectOnlyAtAM(emulator, others: [other], sourceLocation: sourceLocation)
    }
}

/// `login --journey` through the built binary on a pseudo-terminal: each built-in tree walked as a person
/// types, the secrets read without echo, and none of them on the screen, in pingcli's argv or
/// environment, in a file beside the encrypted cache, or sent anywhere but AM.
@Suite("journeys on a terminal, end to end")
struct JourneyEndToEndTests {
    @Test("journey-e2e-login: the Login tree on a terminal; the password read without echo; the session kept only in the encrypted cache")
    func login() throws {
        let (emulator, sandbox, terminal) = try AMJourneys.walking("Login")
        let run = terminal.finish()
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("alice") && run.stdout.contains("Logged in to"), "the name is echoed, the outcome said")
        #expect(terminal.localModes & tcflag_t(ECHO) != 0, "echo is back on")
        let secrets = JourneySecrets(emulator, typed: [AMJourneys.password])
        #expect(emulator.journeySessions.count == 1)
        try AMJourneys.expectSecretsKept(secrets, run, sandbox, emulator)
        let profile = readText(sandbox.profileDirectory + "/profile.json") ?? ""
        #expect(profile.contains("\"journey\" : \"Login\""), "the tree is remembered, not its answers")
    }

    @Test("journey-e2e-otp: Second Factor with a one-time code typed without echo; argv and environment hold no secret while it waits")
    func oneTimeCode() throws {
        let (emulator, sandbox, terminal) = try AMJourneys.walking("Second Factor")
        #expect(terminal.waitFor("1) One-time code (default)") && terminal.waitFor("2) Push notification"), "\(terminal.screen)")
        terminal.answer("Choose 1-2 [1]: ", "1")
        #expect(terminal.waitFor("One-time code: ") && terminal.waitForEchoOff())
        let process = terminal.processText()
        #expect(process.contains("--journey") && !process.contains(AMJourneys.password), "pingcli's argv and environment")
        let code = try AMJourneys.oneTimeCode()
        terminal.type(code + "\n")
        let run = terminal.finish()
        #expect(run.status == 0, "\(run)")
        try AMJourneys.expectSecretsKept(JourneySecrets(emulator, typed: [AMJourneys.password, code]), run, sandbox, emulator)
    }

    @Test("journey-e2e-push: a push wait shows AM's message and a countdown, and ends when the push is approved at the emulator")
    func push() throws {
        let (emulator, sandbox, terminal) = try AMJourneys.walking("Second Factor")
        terminal.answer("Choose 1-2 [1]: ", "Push notification")
        #expect(terminal.waitFor("Waiting for your approval on your phone (checking again in 5 s)"), "\(terminal.screen)")
        #expect(!terminal.processText().contains(AMJourneys.password))
        #expect(emulator.decidePush(username: "alice", approve: true) == 1, "one push was waiting")
        let run = terminal.finish()
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains(" 5 4 3 2 1"), "the countdown")
        #expect(emulator.requests(to: .authenticate).count >= 4, "the wait was posted again")
        try AMJourneys.expectSecretsKept(JourneySecrets(emulator, typed: [AMJourneys.password]), run, sandbox, emulator)
    }

    @Test("journey-e2e-notice: messages by severity, the browser's script not shown, the confirmation as a numbered menu")
    func notice() throws {
        let (emulator, sandbox, terminal) = try AMJourneys.walking("Notice")
        #expect(terminal.waitFor("Your password expires in 3 days."))
        #expect(terminal.waitFor("Warning: This device is not registered."))
        #expect(terminal.waitFor("Error: Two sign-in attempts failed since your last visit."))
        terminal.answer("Choose 1-2 [1]: ", "")
        let run = terminal.finish()
        #expect(run.status == 0, "\(run)")
        #expect(!run.stdout.contains("getElementById"), "a script meant for a browser is not shown")
        try AMJourneys.expectSecretsKept(JourneySecrets(emulator, typed: [AMJourneys.password]), run, sandbox, emulator)
    }

    @Test("journey-e2e-profile-checks: a short new password's failed policy explained, terms, a security question and an attribute")
    func profileChecks() throws {
        let (emulator, sandbox, terminal) = try AMJourneys.walking("Profile Checks")
        terminal.answerSecret("New password: ", "short")
        #expect(terminal.waitFor("New password: it must be at least 8 characters long"), "\(terminal.screen)")
        terminal.answerSecret("New password: ", "Longer-pw-9x")
        #expect(terminal.waitFor("Use this service lawfully."))
        terminal.answer("[y/N]", "y")
        terminal.answer("Choose 1-", "2")
        terminal.answerSecret("What was your first pet's name?: ", "Rex-the-dog")
        terminal.answer("Email address", "alice@example.com")
        let run = terminal.finish()
        #expect(run.status == 0, "\(run)")
        let typed = [AMJourneys.password, "Longer-pw-9x", "Rex-the-dog", "short"]
        try AMJourneys.expectSecretsKept(JourneySecrets(emulator, typed: typed), run, sandbox, emulator)
    }

    @Test("journey-e2e-wrong-password: AM's message and the tree started over on a terminal; one line and exit 1 from a script")
    func wrongPassword() throws {
        let (emulator, sandbox) = sandboxed(try AMJourneys.emulator())
        let terminal = try TerminalSession(sandbox, AMJourneys.login(emulator, tree: "Login"))
        terminal.answer("User Name: ", "alice")
        terminal.answerSecret("Password: ", "Not-her-pw-1")
        #expect(terminal.waitFor("AM refused the sign-in: Login failure. Starting over (try 2 of 3)."), "\(terminal.screen)")
        terminal.answer("User Name [alice]: ", "")
        terminal.answerSecret("Password: ", AMJourneys.password)
        let run = terminal.finish()
        #expect(run.status == 0, "\(run)")
        let secrets = JourneySecrets(emulator, typed: [AMJourneys.password, "Not-her-pw-1"])
        secrets.expectNotShown(run.stdout)
        secrets.expectNotInFiles(sandbox)

        let answers = AMJourneys.answersFile(sandbox, ["User Name=alice", "Password=Not-her-pw-1"])
        let scripted = sandbox.run(AMJourneys.login(emulator, tree: "Login", ["--profile", "script", "--answers", answers]))
        #expect(scripted.status == 1, "\(scripted)")
        #expect(scripted.rule == "journey-login-failure", "\(scripted)")
        #expect(scripted.stderr.split(separator: "\n").count == 1 && scripted.stderr.contains("Login failure"), "\(scripted)")
        #expect(!scripted.stderr.contains("Not-her-pw-1"))
    }

    @Test("journey-e2e-auth-session-timeout: an answer after AM's authentication session ended: errorCode 110 said, exit 4")
    func authSessionTimeout() throws {
        let (emulator, _, terminal) = try AMJourneys.atPassword("Login")
        emulator.advanceClock(by: 400)  // the person went for coffee; AM's authentication session lasts 300 s
        terminal.type(AMJourneys.password + "\n")
        let run = terminal.finish()
        #expect(run.status == 4, "\(run)")
        #expect(run.stdout.contains("the authentication session timed out at AM (errorCode 110)"), "\(run)")
        #expect(emulator.journeySessions.isEmpty)
        JourneySecrets(emulator, typed: [AMJourneys.password]).expectNotShown(run.stdout)
    }

    @Test(
        "journey-e2e-suspended: a suspended step prints its message and the exact command that resumes it, which runs as printed; a used link names the command that starts again"
    )
    func suspended() throws {
        let (emulator, sandbox, terminal) = try AMJourneys.walking("Email Link")
        let run = terminal.finish()
        #expect(run.status == 4, "\(run)")
        let resume = "then run pingcli login --profile default --resume LINK"
        #expect(run.stdout.contains("An email has been sent") && run.stdout.contains(resume), "\(run)")
        let link = try #require(emulator.suspendedJourneys.first?.resumeURL)
        let resumed = sandbox.run(Self.printed(run.stdout, after: "then run ", link: link))
        #expect(resumed.status == 0, "\(resumed)")
        #expect(resumed.lastErrorLine.hasPrefix("Logged in to") && !resumed.stderr.contains("User Name"), "\(resumed)")
        try AMJourneys.expectSecretsKept(JourneySecrets(emulator, typed: [AMJourneys.password]), run, sandbox, emulator)
        // The link again: used. The line names the command that starts the journey over, and it does.
        let used = sandbox.run(Self.printed(run.stdout, after: "then run ", link: link))
        #expect(used.rule == "journey-suspended-expired", "\(used)")
        #expect(used.status == 4 && used.lastErrorLine.hasSuffix("start the journey again: pingcli login --profile default"), "\(used)")
        let again = sandbox.run(Self.printed(used.stderr, after: "start the journey again: ", link: link), input: "")
        #expect(again.status == 4 && again.rule == "journey-no-answer", "\(again)")
        #expect(again.stderr.contains("\"User Name\"") && again.stderr.contains("--answers FILE"), "the tree walked again: \(again)")
    }

    /// The command a line prints after `marker` (up to its end, or to a parenthesis), as argv without the
    /// leading `pingcli`, with `LINK` replaced by `link`.
    static func printed(_ text: String, after marker: String, link: String) -> [String] {
        guard let start = text.range(of: marker) else { return ["printed-command-missing"] }
        let rest = text[start.upperBound...].prefix { $0 != "\n" && $0 != "\r" && $0 != "(" }
        let words = rest.split(separator: " ").map { $0 == "LINK" ? link : String($0) }
        return words.first == "pingcli" ? Array(words.dropFirst()) : ["not-a-pingcli-command"] + words
    }
}
