import Foundation
import Testing

@testable import PingAM
@testable import PingBase
@testable import PingEmulator
@testable import PingFlowCore
@testable import PingJourney
@testable import PingLogin
@testable import PingPlatform
@testable import PingState
@testable import PingTerminal

/// A person at a terminal, typing `lines` in order; records which prompts read a secret (without echo).
final class ScriptedTerminal: Sendable {
    let lines: Shared<[String]>
    let secretReads = Shared(0)
    init(_ lines: [String]) { self.lines = Shared(lines) }

    var input: TerminalInput {
        TerminalInput(
            readLine: { self.next() },
            readSecret: {
                self.secretReads.value += 1
                return self.next()
            })
    }

    private func next() -> String? {
        var queue = lines.value
        guard !queue.isEmpty else { return nil }
        let line = queue.removeFirst()
        lines.value = queue
        return line
    }
}

/// `login --journey` in process against the emulator's PingAM journeys, on the test clock: each built-in
/// tree's callbacks rendered and answered, a wrong password, the expired authentication session, a
/// push wait that polls without sleeping, a suspended step and its resumption, the answers file, and
/// the session kept only in the encrypted cache.
@Suite("journey sign-in, in process")
struct JourneyFlowTests {
    static func harness(_ configure: @escaping (inout EmulatorConfiguration) -> Void = { _ in }) throws -> FlowHarness {
        try FlowHarness {
            $0.layout = .pingAM
            configure(&$0)
        }
    }

    func journey(
        _ harness: FlowHarness, tree: String?, terminal: ScriptedTerminal?, answers: String? = nil, resume: String? = nil
    ) throws -> FlowRun {
        try runJourney(harness, tree: tree, resume: resume, terminal: terminal, answers: answers)
    }

    /// The journey `tree` run in a new harness, for a test that looks only at the run.
    func journey(tree: String, terminal: ScriptedTerminal?, answers: String? = nil) throws -> FlowRun {
        try journey(try Self.harness(), tree: tree, terminal: terminal, answers: answers)
    }

    /// What must never be shown: the password, and every session the emulator handed out.
    func expectNoSecrets(_ run: FlowRun, _ harness: FlowHarness, _ secrets: [String] = ["demo-password"]) {
        for secret in secrets + harness.emulator.journeySessions.map(\.tokenId) {
            #expect(!run.stderr.contains(secret) && !run.stdout.contains(secret), "\(run)")
        }
    }

    @Test("journey-login: user name and password, the password read without echo; the session kept only in the encrypted cache")
    func login() throws {
        let harness = try Self.harness()
        let terminal = ScriptedTerminal(["demo", "demo"])
        let run = try journey(harness, tree: "Login", terminal: terminal)
        #expect(run.status == 0, "\(run)")
        #expect(terminal.secretReads.value == 1)
        #expect(run.stderr.contains("User Name: ") && run.stderr.contains("Password: ") && run.stderr.contains("Logged in to"))
        let session = try #require(harness.emulator.journeySessions.first?.tokenId)
        expectNoSecrets(run, harness)
        let (context, _) = try harness.context()
        let profile = try #require(try StoreAdvice.worded(context.store.readProfile(.default)))
        #expect(profile.journey == "Login" && profile.amCookieName == "iPlanetDirectoryPro")
        let tokens = try StoreAdvice.worded(context.store.readTokens(.default, profile: profile, key: context.store.commandKey()))
        #expect(tokens?.amSession?.value == session)
        let json = try String(contentsOfFile: harness.profileDirectory + "/profile.json", encoding: .utf8)
        #expect(!json.contains(session) && !json.contains("demo-password"))
        #expect(harness.run(["token", "--raw"]).stdout == harness.emulator.newestTokenLine)
    }

    @Test("journey-login-failure: a wrong password shows AM's message and starts over; the second try signs in")
    func wrongPassword() throws {
        let run = try journey(tree: "Login", terminal: ScriptedTerminal(["demo", "wrong", "demo", "demo"]))
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("AM refused the sign-in: Login failure. Starting over (try 2 of 3)."))
        #expect(!run.stderr.contains("wrong"))
    }

    @Test("journey-login-failure: without a terminal a refused answer ends in one line, exit 1")
    func wrongPasswordScripted() throws {
        let run = try journey(tree: "Login", terminal: nil, answers: "User Name=demo\nPassword=wrong\n")
        #expect(run.status == 1 && run.rule == .journeyLoginFailure, "\(run)")
        #expect(run.stderr.contains("Login failure") && !run.stderr.contains("wrong"))
    }

    @Test("journey-no-answer: no terminal and no answer for a prompt: exit 4 naming the prompt")
    func missingAnswer() throws {
        let run = try journey(tree: "Login", terminal: nil, answers: "User Name=demo\n")
        #expect(run.status == 4 && run.rule == .journeyNoAnswer, "\(run)")
        #expect(run.stderr.contains("\"Password\""))
    }

    @Test("journey-push: a choice of second factor, then a push wait that polls on the test clock with a countdown")
    func push() throws {
        let harness = try Self.harness { $0.journeys.pushApproveAfterPolls = 2 }
        harness.errorIsTerminal = true
        let started = harness.clock.now
        let run = try journey(harness, tree: "Second Factor", terminal: ScriptedTerminal(["demo", "demo", "2"]))
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("1) One-time code") && run.stderr.contains("2) Push notification"))
        #expect(run.stderr.contains("(checking again in 5 s)") && run.stderr.contains(" 5 4 3 2 1"))
        #expect(harness.clock.now - started >= 10)
    }

    @Test("journey-otp: the one-time code branch, the code read without echo")
    func oneTimeCode() throws {
        let harness = try Self.harness()
        let code = try #require(OneTimeCode.totp(secret: "JBSWY3DPEHPK3PXP", at: harness.clock.now))
        let terminal = ScriptedTerminal(["demo", "demo", "One-time code", code])
        let run = try journey(harness, tree: "Second Factor", terminal: terminal)
        #expect(run.status == 0, "\(run)")
        #expect(terminal.secretReads.value == 2 && !run.stderr.contains(code))
    }

    @Test("journey-notice: messages by severity, the script not shown, a confirmation as a menu")
    func notice() throws {
        let run = try journey(tree: "Notice", terminal: ScriptedTerminal(["demo", "demo", "1"]))
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("Warning: ") && run.stderr.contains("Error: "))
        #expect(!run.stderr.contains("<script") && !run.stderr.lowercased().contains("javascript"))
    }

    @Test("journey-suspended: the message and how to resume, exit 4; --resume with the link signs in")
    func suspended() throws {
        let harness = try Self.harness()
        let run = try journey(harness, tree: "Email Link", terminal: nil, answers: "User Name=demo\nPassword=demo\n")
        #expect(run.status == 4 && run.rule == .journeySuspended, "\(run)")
        #expect(run.stderr.contains("--resume"))
        let link = try #require(harness.emulator.suspendedJourneys.first?.resumeURL)
        let resumed = try journey(harness, tree: "Email Link", terminal: nil, resume: link)
        #expect(resumed.status == 0, "\(resumed)")
    }

    @Test("journey-auth-session-timeout: an answer after the authentication session ended: errorCode 110 says so")
    func expired() throws {
        let harness = try Self.harness()
        let clock = harness.clock
        let terminal = ScriptedTerminal(["demo"])
        let slow = TerminalInput(
            readLine: { terminal.input.readLine() },
            readSecret: {
                clock.advance(by: 400)  // the person went for coffee
                return "demo"
            })
        let (context, captured) = try harness.context()
        var signIn = try #require(SignIn.forTests(issuer: harness.emulator.issuer))
        signIn.journey = SignIn.Journey(tree: PingAM.JourneyTree("Login"))
        signIn.timeout = 3600  // AM's authentication session ends first
        do {
            try JourneyFlow(signIn: signIn, context: context.forJourney, terminal: slow).run()
            Issue.record("an answer after the authentication session's end signed in")
        } catch {
            #expect(error.rule == .journeyAuthSessionTimeout && error.status == .loginRequired && error.message.contains("110"))
        }
        #expect(!captured.err.contains("demo\n"))
    }

    @Test("journey-validated: a short password's failed policy is explained; terms, KBA and an attribute are asked")
    func profileChecks() throws {
        let harness = try Self.harness()
        let answers = "User Name=demo\nPassword=demo\n"
        let typed = ["short", "long-enough-1", "y", "1", "blue", "demo@example.com"]
        let run = try journey(harness, tree: "Profile Checks", terminal: ScriptedTerminal(typed), answers: answers)
        #expect(run.status == 0 && run.stderr.contains("at least 8 characters"), "\(run)")
        #expect(!run.stderr.contains("long-enough-1") && !run.stderr.contains("blue"))
    }

    @Test("journey-not-am: a journey against a provider without AM endpoints is refused before anything is asked")
    func notAM() throws {
        let harness = try FlowHarness()
        let terminal = ScriptedTerminal(["demo", "demo"])
        let run = try journey(harness, tree: "Login", terminal: terminal)
        #expect(run.status == 2 && run.rule == .journeyNotAm, "\(run)")
        #expect(terminal.lines.value.count == 2 && harness.emulator.requests.isEmpty)
    }
}

extension JourneyFlowTests {
    @Test("journey-logout: logout ends the AM session at AM (sessions?_action=logout) before removing the cache")
    func logoutEndsSession() throws {
        let harness = try Self.harness()
        let run = try journey(harness, tree: "Login", terminal: nil, answers: "User Name=demo\nPassword=demo\n")
        #expect(run.status == 0, "\(run)")
        #expect(harness.emulator.journeySessions.first?.ended == false)
        let logout = harness.run(["logout"])
        #expect(logout.status == 0 && logout.stderr.contains("Ended the AM session"), "\(logout)")
        #expect(harness.emulator.journeySessions.first?.ended == true)
        expectNoSecrets(logout, harness)
    }
}

/// A journey sign-in run in process, as `login --journey TREE` (or `--resume ID`) would: typed answers from
/// `terminal`, an answers file, the OTP options; the run's output, status and rule.
func runJourney(
    _ harness: FlowHarness, tree: String?, resume: String? = nil, terminal: ScriptedTerminal?, answers: String? = nil,
    otp: String? = nil, enroll: String? = nil, replace: Bool = false
) throws -> FlowRun {
    let (context, captured) = try harness.context()
    var signIn = try #require(SignIn.forTests(issuer: harness.emulator.issuer))
    var journey = SignIn.Journey(
        tree: tree.flatMap { PingAM.JourneyTree($0) }, resume: resume.flatMap { SuspendedID($0) },
        answers: try answers.map { try JourneyAnswersFile(Array($0.utf8)) })
    journey.otpAccount = otp
    journey.otpEnroll = enroll
    journey.otpReplace = replace
    signIn.journey = journey
    return runJourneyFlow(JourneyFlow(signIn: signIn, context: context.forJourney, terminal: terminal?.input), captured)
}

/// Runs a journey sign-in and keeps what it printed: its output, status and rule (the error's message
/// after stderr, as the command would print it).
func runJourneyFlow(_ flow: JourneyFlow, _ captured: CapturedConsole) -> FlowRun {
    do throws(PingCLIError) {
        try flow.run()
        return FlowRun(status: 0, stdout: captured.out, stderr: captured.err)
    } catch {
        return FlowRun(status: error.status.rawValue, stdout: captured.out, stderr: captured.err + error.message, rule: error.rule)
    }
}

extension SignIn.Journey {
    /// The journey through `tree` with the demo user's name and password in an answers file.
    static func demoAnswers(_ tree: String) throws -> SignIn.Journey {
        SignIn.Journey(tree: PingAM.JourneyTree(tree), answers: try JourneyAnswersFile(Array("User Name=demo\nPassword=demo\n".utf8)))
    }
}
