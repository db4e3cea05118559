import Foundation
import Testing

@testable import PingAM
@testable import PingAuthenticators
@testable import PingBase
@testable import PingEmulator
@testable import PingFlowCore
@testable import PingHTTP
@testable import PingJourney
@testable import PingLogin
@testable import PingOAuth
@testable import PingOTP
@testable import PingPlatform
@testable import PingState

/// A "no" that means no, in process against the emulator's PingAM on the test clock: a declined OATH
/// registration is never confirmed at AM (the person's authenticator keeps working), a QR code for a
/// phone is drawn only when asked and confirmed only after, Cancel and declined terms end the sign-in in
/// one line without starting the tree over, and wrong credentials start it over at most three walks.
@Suite("journey: a no that means no, in process")
struct JourneyDeclineFlowTests {
    func journey(_ harness: FlowHarness, tree: String, _ lines: [String]) throws -> FlowRun {
        try JourneyDeviceFlowTests().journey(harness, tree: tree, terminal: ScriptedTerminal(lines))
    }

    /// The steps posted to AM's authenticate endpoint (the first request of each walk included).
    func posts(_ harness: FlowHarness) -> Int { harness.emulator.requests(to: .authenticate).count }

    @Test("journey-cancelled: a declined OATH registration is not posted, so AM keeps the authenticator; one line names the browser")
    func oathDeclined() throws {
        let harness = try JourneyDeviceFlowTests.harness()
        let run = try journey(harness, tree: "OATH Registration", ["demo", "demo", "n"])
        #expect(run.status == 1 && run.rule == .journeyCancelled, "\(run)")
        #expect(run.stderr.contains("cancelled at the OATH registration: not signed in") && run.stderr.contains("without --journey"))
        // Started, credentials posted: the registration step itself never went back to AM.
        #expect(posts(harness) == 2, "\(harness.emulator.requests(to: .authenticate).map(\.jsonBody))")
        #expect(harness.emulator.oathSecret(for: "demo") == nil, "AM stored a secret nobody holds")
        #expect(!run.stderr.contains("otpauth") && !run.stderr.contains("█"))
        // One default per question.
        #expect(run.stderr.contains("as your authenticator for one-time codes [y/N]: ") && !run.stderr.contains("[n]"))
    }

    @Test("journey-oath-qr: on a terminal the URI is drawn as a QR code only when asked, and confirmed at AM only after")
    func oathPhone() throws {
        let harness = try JourneyDeviceFlowTests.harness()
        harness.errorIsTerminal = true
        let refused = try journey(harness, tree: "OATH Registration", ["demo", "demo", "n", "n"])
        #expect(refused.rule == .journeyCancelled && !refused.stderr.contains("█"), "\(refused)")
        let scannedNot = try journey(harness, tree: "OATH Registration", ["demo", "demo", "n", "y", "n"])
        #expect(scannedNot.rule == .journeyCancelled && scannedNot.stderr.contains("█"), "\(scannedNot)")
        #expect(harness.emulator.oathSecret(for: "demo") == nil && posts(harness) == 4)
        // Scanned: confirmed at AM (the verifier then asks for a code this script does not have).
        let scanned = try journey(harness, tree: "OATH Registration", ["demo", "demo", "n", "y", "y"])
        let secret = try #require(harness.emulator.oathSecret(for: "demo"), "\(scanned)")
        #expect(scanned.stderr.contains("registration confirmed at AM for the app that scanned it"))
        #expect(!scanned.stderr.contains(secret) && !scanned.stderr.contains("otpauth"))
    }

    @Test("journey-cancelled: Cancel in a confirmation ends the sign-in in one line; the tree is not started over")
    func cancelConfirmation() throws {
        let harness = try JourneyFlowTests.harness()
        let run = try journey(harness, tree: "Notice", ["demo", "demo", "2"])
        #expect(run.status == 1 && run.rule == .journeyCancelled, "\(run)")
        #expect(run.stderr.contains("cancelled at \"Continue/Cancel\": not signed in"))
        #expect(!run.stderr.contains("Starting over") && !run.stderr.contains("Login failure") && posts(harness) == 3)
    }

    @Test("journey-cancelled: declined terms and conditions end the sign-in without posting the step")
    func termsDeclined() throws {
        let harness = try JourneyFlowTests.harness()
        let run = try journey(harness, tree: "Profile Checks", ["demo", "demo", "long-enough-password", "n"])
        #expect(run.status == 1 && run.rule == .journeyCancelled, "\(run)")
        #expect(run.stderr.contains("cancelled at the terms and conditions: not signed in") && posts(harness) == 3)
    }

    @Test(
        "journey-login-failure: wrong credentials start the tree over at most three walks, each naming its try, the user name the default"
    )
    func retriesCount() throws {
        let harness = try JourneyFlowTests.harness()
        let run = try journey(harness, tree: "Login", ["demo", "wrong", "", "wrong", "", "wrong", "demo", "demo"])
        #expect(run.status == 1 && run.rule == .journeyLoginFailure, "\(run)")
        #expect(run.stderr.contains("Starting over (try 2 of 3).") && run.stderr.contains("Starting over (try 3 of 3)."))
        #expect(!run.stderr.contains("try 4"))
        #expect(run.stderr.components(separatedBy: "User Name [demo]: ").count == 3, "\(run)")
        // Three walks of two posts each; the empty answers took the default.
        #expect(posts(harness) == 6)
        #expect(harness.emulator.requests(to: .authenticate).compactMap(\.jsonBody).filter { $0.contains("\"demo\"") }.count == 3)
    }
}

/// `--timeout` bounds the whole journey sign-in, on the test clock.
@Suite("journey: --timeout bounds the sign-in, in process")
struct JourneyTimeoutFlowTests {
    @Test("login-timeout: a push nobody approves ends at --timeout, the last wait cut to what is left; not 200 polls")
    func pushNeverApproved() throws {
        let harness = try JourneyFlowTests.harness()
        let (context, captured) = try harness.context()
        var signIn = try #require(SignIn.forTests(issuer: harness.emulator.issuer))
        signIn.timeout = 12
        signIn.journey = SignIn.Journey(tree: PingAM.JourneyTree("Second Factor"))
        let started = harness.clock.now
        do throws(PingCLIError) {
            try JourneyFlow(signIn: signIn, context: context.forJourney, terminal: ScriptedTerminal(["demo", "demo", "2"]).input).run()
            Issue.record("signed in without an approval: \(captured.err)")
        } catch {
            #expect(error.status == .failure && error.rule == .loginTimeout, "\(error)")
            #expect(error.message.contains("within 12 s"))
        }
        // Start, credentials, the choice, a poll after each 5 s wait; then the 2 s left, and nothing posted after.
        #expect(harness.clock.now - started == 12, "\(harness.clock.now - started)")
        #expect(captured.err.contains("(checking again in 2 s)"))
        #expect(harness.emulator.requests(to: .authenticate).count == 5)
    }
}

extension JourneyDeclineFlowTests {
    @Test("device-pin: once the device key's PIN tries are used up, AM's refusal does not start the tree over (no more PINs asked)")
    func pinTriesEndTheWalks() throws {
        let harness = try JourneyDeviceFlowTests.harness()
        #expect(try journey(harness, tree: "Device Binding PIN", ["demo", "demo", "4711", "4711"]).status == 0)
        let before = posts(harness)
        // Three wrong PINs, then what a new walk would take: it must not be asked for.
        let terminal = ScriptedTerminal(["demo", "demo", "1", "22", "333", "demo", "demo", "4444"])
        let run = try JourneyDeviceFlowTests().journey(harness, tree: "Device Verify", terminal: terminal)
        #expect(run.status == 1 && run.rule == .journeyLoginFailure, "\(run)")
        #expect(run.stderr.contains("not started over: the device key's PIN tries are used up") && !run.stderr.contains("Starting over"))
        #expect(terminal.lines.value == ["demo", "demo", "4444"] && posts(harness) - before == 3, "\(run)")
    }
}

extension JourneyDeclineFlowTests {
    /// An OATH registration step whose confirmation offers its own Skip (AM's registration with "allow skip").
    static func registrationWithSkip() throws -> JourneyStep {
        let uri = "otpauth://totp/PingAM:demo?secret=JBSWY3DPEHPK3PXP&issuer=PingAM"
        let body = """
            {"authId":"eyJ0eXAi.eyJvdGsi.sig","callbacks":[\
            {"type":"HiddenValueCallback","output":[{"name":"value","value":"\(uri)"},{"name":"id","value":"mfaDeviceRegistration"}],\
            "input":[{"name":"IDToken1","value":"mfaDeviceRegistration"}]},\
            {"type":"ConfirmationCallback","output":[{"name":"prompt","value":""},{"name":"messageType","value":0},\
            {"name":"options","value":["Next","Skip"]},{"name":"optionType","value":-1},{"name":"defaultOption","value":0}],\
            "input":[{"name":"IDToken2","value":0}]}]}
            """
        let response = HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(body.utf8))
        guard case .step(let step) = try JourneyResponse.process(response) else { throw JourneyError.malformed("not a step") }
        return step
    }

    @Test("journey-cancelled: a declined registration whose step has its own Skip answers Skip, never Next, and stores nothing")
    func declinedAnswersSkip() throws {
        let harness = try JourneyDeviceFlowTests.harness()
        let (context, captured) = try harness.context()
        let step = try Self.registrationWithSkip()
        let accounts = OTPAccounts(store: OTPStore(paths: harness.paths), key: context.store.commandKey(), clock: { harness.clock.now })
        var prompter = JourneyPrompter(
            console: context.console, terminal: ScriptedTerminal(["n"]).input, answers: nil,
            device: DeviceProfileAnswer(osName: "Linux", osVersion: "6", machineID: nil), sleep: { _ in },
            browserAlternative: "pingcli login (browser)")
        prompter.otp = JourneyOTP(accounts: accounts, account: nil, enrollName: nil, hostName: "host", origin: harness.emulator.baseURL)
        let confirmation = try #require(step.callbacks.first { if case .confirmation = $0.kind { true } else { false } })
        #expect(try prompter.handle(step) == .answer([confirmation.position: confirmation.values(.index(1))]))
        #expect(captured.err.contains("not registered: the registration was skipped at AM") && !captured.err.contains("JBSWY3DP"))
        #expect(try accounts.list().isEmpty)
    }
}
