import Foundation
import PingEmulator
import Testing

@testable import PingBase
@testable import PingFlowCore
@testable import PingLogin
@testable import PingOAuth
@testable import PingPlatform
@testable import PingSession
@testable import PingSignIn

/// Failures carry their rule: the flows are called directly and the error's `rule` is asserted, not its wording.
@Suite("typed failures: rule names, in-process")
struct TypedFailureTests {
    /// The error `token` raises, called as `TokenProvider` directly.
    func refreshError(_ harness: FlowHarness) throws -> PingCLIError? {
        let (context, _) = try harness.context()
        let provider = TokenProvider(profile: try ProfileName("default"), context: context.forSession)
        do throws(PingCLIError) {
            _ = try provider.fresh(minimumTTL: 30)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "refresh rules: unavailable (5xx, 429), unreadable, client error, dead grant, backoff, not logged in, each with its exit status",
        arguments: [
            (CannedResponse(status: 503, body: "<h1>down</h1>"), Rule.refreshUnavailable, PingBase.ExitStatus.unreachable),
            (
                CannedResponse(status: 429, contentType: "application/json", body: "{\"error\":\"slow_down\"}"), .refreshUnavailable,
                .unreachable
            ),
            (CannedResponse(status: 200, contentType: "text/html", body: "<h1>proxy</h1>"), .refreshUnreadable, .failure),
            (
                CannedResponse(status: 401, contentType: "application/json", body: "{\"error\":\"invalid_client\"}"),
                .refreshClientError,
                .failure
            ),
            (
                CannedResponse(status: 400, contentType: "application/json", body: "{\"error\":\"invalid_grant\"}"), .sessionExpired,
                .loginRequired
            ),
        ])
    func refreshRules(response: CannedResponse, rule: Rule, status: PingBase.ExitStatus) throws {
        let harness = try loggedIn(lifetime: 1)
        harness.clock.advance(by: 2)
        harness.emulator.faults = Faults(responseOverrides: [.token: response])
        let error = try #require(try refreshError(harness))
        #expect(error.rule == rule, "\(error)")
        #expect(error.status == status)
        if rule != .sessionExpired {
            // Within the backoff, the same failure comes back under the backoff's rule, with no request.
            let held = try #require(try refreshError(harness))
            #expect(held.rule == .refreshBackoff && held.status == status, "\(held)")
            #expect(harness.emulator.refreshes.count == 1)
        }
    }

    @Test("refresh-unreachable and not-logged-in: the network down and a profile never signed in")
    func unreachableAndNotLoggedIn() throws {
        let harness = try loggedIn(lifetime: 1)
        harness.clock.advance(by: 2)
        harness.networkDown(true)
        #expect(try refreshError(harness)?.rule == .refreshUnreachable)
        let fresh = try FlowHarness()
        #expect(try refreshError(fresh)?.rule == .notLoggedIn)
    }

    @Test("the same classification for any status: 5xx and 429 are unavailable whatever the body, a 4xx OAuth error is the client's")
    func classification() {
        let oauth = { (status: Int, code: String) in
            TokenEndpointError.oauthError(status: status, PingOAuth.OAuthErrorResponse(error: code))
        }
        #expect(TokenFailureKind(status: 500, error: oauth(500, "invalid_grant")) == .unavailable)
        #expect(TokenFailureKind(status: 429, error: oauth(429, "invalid_client")) == .unavailable)
        #expect(TokenFailureKind(status: 400, error: oauth(400, "invalid_grant")) == .deadGrant)
        #expect(TokenFailureKind(status: 401, error: oauth(401, "invalid_client")) == .client)
        #expect(TokenFailureKind(status: 200, error: .notJSON(contentType: "text/html")) == .unreadable)
        #expect(TokenFailureKind.unavailable.isTransient && TokenFailureKind.unreadable.isTransient)
        #expect(!TokenFailureKind.client.isTransient && !TokenFailureKind.deadGrant.isTransient)
    }

    @Test(
        "device rules: access_denied, expired_token and the code's lifetime are named",
        arguments: ["access_denied", "expired_token", "lifetime"])
    func deviceRules(error: String) throws {
        let harness = try FlowHarness {
            $0.deviceInterval = 1
            $0.deviceCodeLifetime = error == "lifetime" ? 2 : 600
        }
        harness.emulator.faults.deviceErrors = error == "lifetime" ? Array(repeating: "authorization_pending", count: 10) : [error]
        harness.browser = RecordingBrowser(emulator: harness.emulator, visits: false)
        let (context, _) = try harness.context()
        let signIn = try #require(SignIn.forTests(issuer: harness.emulator.issuer))
        var rule: Rule?
        do throws(PingCLIError) { try DeviceLoginFlow(signIn: signIn, context: context.forSignIn).run() } catch { rule = error.rule }
        let expected: Rule? = ["access_denied": Rule.deviceDenied, "expired_token": .deviceExpired, "lifetime": .deviceExpiresIn][error]
        #expect(rule == expected)
    }

    @Test("lock-bounded is the lock's rule")
    func lockRule() throws {
        let harness = try loggedIn(lifetime: 1)
        harness.clock.advance(by: 2)
        let descriptor = open(harness.stateDirectory + "/tokens.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX) == 0)
        #expect(try refreshError(harness)?.rule == .lockBounded)
    }
}
