import Foundation
import Testing

@testable import PingBase
@testable import PingEmulator
@testable import PingFlowCore
@testable import PingJourney
@testable import PingLogin
@testable import PingOAuth
@testable import PingPlatform
@testable import PingState

/// No orphan AM session, in process against the emulator's PingAM: when the code exchange or the ID
/// token's checks fail after a journey succeeded, the session it opened is ended at AM; a journey
/// profile whose cache cannot be read says at logout that its AM session stays valid.
@Suite("journey: no orphan AM session, in process")
struct JourneyOrphanSessionTests {
    func signIn(_ harness: FlowHarness, _ change: (inout SignIn) -> Void = { _ in }) throws -> FlowRun {
        let (context, captured) = try harness.context()
        var signIn = try #require(SignIn.forTests(issuer: harness.emulator.issuer))
        signIn.journey = try .demoAnswers("Login")
        change(&signIn)
        return runJourneyFlow(JourneyFlow(signIn: signIn, context: context.forJourney, terminal: nil), captured)
    }

    @Test("journey-orphan-session: the ID token's check fails after the journey (acr not met): the new AM session is ended at AM")
    func idTokenRefused() throws {
        let harness = try JourneyFlowTests.harness { $0.acr = "urn:silver" }
        let run = try signIn(harness) { $0.requirements = AuthenticationRequirements(acrValues: ["urn:gold"]) }
        #expect(run.status == 1 && run.rule == .acrMismatch, "\(run)")
        #expect(run.stderr.contains("the AM session the journey opened was ended at AM"))
        let session = try #require(harness.emulator.journeySessions.first)
        #expect(session.ended && harness.emulator.requests(to: .sessions).count == 1)
        #expect(!run.stderr.contains(session.tokenId))
    }

    @Test("journey-orphan-session: the code exchange fails after the journey (invalid_client): the new AM session is ended at AM")
    func exchangeRefused() throws {
        let harness = try JourneyFlowTests.harness { $0.clients[0].clientSecret = "only-the-server-knows" }
        let run = try signIn(harness)
        #expect(run.status == 1 && run.stderr.contains("the AM session the journey opened was ended at AM"), "\(run)")
        #expect(harness.emulator.journeySessions.first?.ended == true)
    }

    @Test("journey-logout-unverified: logout of a journey profile whose cache cannot be read says its AM session stays valid at AM")
    func logoutUnreadable() throws {
        let harness = try JourneyFlowTests.harness()
        #expect(try signIn(harness).status == 0)
        try FileSystem.atomicWrite(harness.paths.tokensFile(try ProfileName("default")), Array("not a cache".utf8))
        let logout = harness.run(["logout"])
        #expect(
            logout.stderr.contains(
                "its AM session was in the cache that could not be read: it was not ended and stays valid at AM until it expires"),
            "\(logout)")
        #expect(harness.emulator.journeySessions.first?.ended == false)
    }
}

/// The command a suspended journey prints, in process.
@Suite("journey: the resume command, in process")
struct JourneyResumeCommandTests {
    func emailLink(_ harness: FlowHarness, issuer: String) throws -> FlowRun {
        let (context, captured) = try harness.context()
        var signIn = try #require(SignIn.forTests(issuer: issuer))
        signIn.journey = try .demoAnswers("Email Link")
        return runJourneyFlow(JourneyFlow(signIn: signIn, context: context.forJourney, terminal: nil), captured)
    }

    @Test(
        "journey-suspended: a profile signed in to another issuer is left as it was, and the line names --issuer and --client-id; a new profile is saved and the short command resumes it"
    )
    func otherIssuerFullCommand() throws {
        let harness = try JourneyFlowTests.harness()
        #expect(try JourneyOrphanSessionTests().signIn(harness).status == 0)
        let other = try harness.addEmulator { $0.layout = .pingAM }
        let run = try emailLink(harness, issuer: other.issuer)
        #expect(run.status == 4 && run.rule == .journeySuspended, "\(run)")
        #expect(
            run.stderr.contains("then run pingcli login --profile default --issuer \(other.issuer) --client-id pingcli-test --resume LINK"),
            "\(run)")
        let (context, _) = try harness.context()
        #expect(try StoreAdvice.worded(context.store.readProfile(.default))?.issuer == harness.emulator.issuer)
        // A profile that did not exist: saved, and the printed command (with the link) signs in.
        let fresh = try JourneyFlowTests.harness()
        let suspended = try emailLink(fresh, issuer: fresh.emulator.issuer)
        #expect(suspended.stderr.contains("then run pingcli login --profile default --resume LINK"), "\(suspended)")
        let link = try #require(fresh.emulator.suspendedJourneys.first?.resumeURL)
        let resumed = fresh.run(["login", "--profile", "default", "--resume", link])
        #expect(resumed.status == 0, "\(resumed)")
    }
}
