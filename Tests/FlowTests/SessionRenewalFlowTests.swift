import Foundation
import Testing

@testable import PingEmulator
@testable import PingFlowCore
@testable import PingOAuth
@testable import PingPlatform

/// The AM session used again when the refresh token is gone or refused, on the test clock: a new code
/// from the session without asking anyone, while AM accepts it; "sign in again" once it does not.
extension JourneyFlowTests {
    func cachedTokens(_ harness: FlowHarness) throws -> TokenSet? {
        let (context, _) = try harness.context()
        let name = try ProfileName("default")
        let profile = try #require(try StoreAdvice.worded(context.store.readProfile(name)))
        return try StoreAdvice.worded(context.store.readTokens(name, profile: profile, key: context.store.commandKey()))
    }

    @Test(
        "journey-session-reuse: a refresh refused with invalid_grant is replaced through the AM session, silently, with PKCE, state and nonce"
    )
    func sessionReusedAfterInvalidGrant() throws {
        let harness = try Self.harness()
        let run = try journey(harness, tree: "Login", terminal: nil, answers: "User Name=demo\nPassword=demo\n")
        #expect(run.status == 0, "\(run)")
        let session = try #require(harness.emulator.journeySessions.first?.tokenId)
        harness.clock.advance(by: 3600 * 2 - 60)  // the access token has expired; the session lives 2 h
        var faults = Faults()
        faults.failNextRefreshes = 1
        harness.emulator.faults = faults
        let token = harness.run(["token", "--raw"])
        #expect(token.status == 0 && token.stdout == harness.emulator.newestTokenLine && token.stderr.isEmpty, "\(token)")
        #expect(
            harness.emulator.requests(to: .token).compactMap(\.grantType) == ["authorization_code", "refresh_token", "authorization_code"])
        let authorize = try #require(harness.emulator.requests(to: .authorize).last)
        #expect(authorize.headers["iplanetdirectorypro"] == session && authorize.query["code_challenge"] != nil)
        #expect(authorize.query["nonce"] != nil && authorize.query["state"] != nil && authorize.query["client_id"] == "pingcli-test")
        let tokens = try #require(try cachedTokens(harness))
        #expect(tokens.amSession?.value == session && tokens.refreshToken != nil, "the session and the new refresh token kept")
        expectNoSecrets(token, harness)
    }

    @Test("journey-session-reuse: with no refresh token at all, the session brings a new code; once AM refuses it, sign in again")
    func sessionReusedWithoutRefreshToken() throws {
        let harness = try Self.harness()
        var faults = Faults()
        faults.tokenResponseOverrides = ["refresh_token": .null]
        harness.emulator.faults = faults
        let run = try journey(harness, tree: "Login", terminal: nil, answers: "User Name=demo\nPassword=demo\n")
        #expect(run.status == 0, "\(run)")
        #expect(try cachedTokens(harness)?.refreshToken == nil)
        harness.clock.advance(by: 3600)
        let renewed = harness.run(["token", "--raw"])
        #expect(renewed.status == 0 && renewed.stdout == harness.emulator.newestTokenLine, "\(renewed)")
        #expect(harness.emulator.requests(to: .authorize).count == 2)

        harness.clock.advance(by: 7200)  // the SSO session has ended at AM
        let refused = harness.run(["token", "--raw"])
        #expect(refused.status == 4 && refused.rule == .sessionExpired, "\(refused)")
        #expect(refused.stderr.contains("run pingcli login --profile default"), "\(refused)")
        #expect(try cachedTokens(harness)?.amSession == nil, "the refused session is dropped")
        #expect(harness.emulator.requests(to: .authorize).count == 3)
        #expect(harness.run(["token", "--raw"]).status == 4)
        #expect(harness.emulator.requests(to: .authorize).count == 3, "and never sent again")
    }

    @Test("journey-session-reuse: a browser login's profile has no AM session: a refused refresh token is the usual sign-in-again error")
    func noSessionNoReuse() throws {
        let harness = try Self.harness()
        #expect(harness.login().status == 0)
        harness.clock.advance(by: 3600)
        var faults = Faults()
        faults.failNextRefreshes = 1
        harness.emulator.faults = faults
        let refused = harness.run(["token", "--raw"])
        #expect(refused.status == 4 && refused.rule == .sessionExpired, "\(refused)")
        #expect(harness.emulator.requests(to: .authorize).count <= 1, "no session was sent to authorize")
    }
}
