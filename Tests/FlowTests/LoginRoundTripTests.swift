import Foundation
import PingEmulator
import Testing

/// The browser login's round trip in-process: the browser's tab is answered after the code exchange, so
/// its page says how the sign-in ended.
@Suite("login: the round trip, in-process")
struct LoginRoundTripTests {
    @Test("login-page-after-exchange: the browser's last page names the account signed in, after the tokens were validated")
    func signedInPage() throws {
        let harness = try FlowHarness()
        let run = harness.login()
        #expect(run.status == 0, "\(run)")
        #expect(harness.browser.settle())
        #expect(harness.browser.lastPage.contains("Demo User"), "\(harness.browser.lastPage)")
        #expect(harness.emulator.requests(to: .token).count == 1)
        #expect(run.stderr.contains("Logged in to \(harness.emulator.issuer) as Demo User"))
    }

    @Test("login-exchange-failed-page: a refused code exchange shows the failure on the browser's page, exits 1 and saves nothing")
    func failedExchangePage() throws {
        let harness = try FlowHarness()
        harness.emulator.faults = Faults(tokenErrors: [
            "authorization_code": CannedOAuthError(status: 400, error: "invalid_grant", errorDescription: "code expired")
        ])
        let run = harness.login()
        #expect(run.status == 1 && run.rule == .tokenErrorObject, "\(run)")
        #expect(run.stderr.contains("invalid_grant: code expired"), "\(run)")
        #expect(harness.browser.settle())
        #expect(harness.browser.lastPage.contains("invalid_grant"), "\(harness.browser.lastPage)")
        #expect(!FileManager.default.fileExists(atPath: harness.stateDirectory + "/tokens.enc"))
        #expect(!FileManager.default.fileExists(atPath: harness.profileDirectory + "/profile.json"))
    }

    @Test("login-provider-error-page: an error from the provider (access_denied) gets the receiver's page and ends the login, exit 1")
    func providerErrorPage() throws {
        let harness = try FlowHarness()
        harness.emulator.faults.authorizationResponseOverrides = ["error": "access_denied", "code": nil]
        let run = harness.login()
        #expect(run.status == 1 && run.rule == .accessDenied, "\(run)")
        #expect(harness.browser.settle())
        #expect(harness.emulator.requests(to: .token).isEmpty, "no code, no exchange")
    }
}
