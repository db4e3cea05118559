import Foundation
import Testing

@testable import PingEmulator

/// PingOne's refresh-token settings: refreshTokenDuration (each token), refreshTokenRollingDuration (the
/// grant, from sign-in) and refreshTokenRollingGracePeriodDuration (reuse after an exchange).
@Suite struct RefreshDurationTests {
    func firstRefreshToken(_ emulator: Emulator) throws -> String {
        try #require(redeem(emulator, code: obtainCode(emulator)).json?["refresh_token"]?.stringValue)
    }

    @Test("refresh-defaults: 30 days per token, 180 days per grant, no grace period")
    func defaults() {
        let configuration = EmulatorConfiguration()
        #expect(configuration.refreshTokenLifetime == 2_592_000)
        #expect(configuration.refreshTokenRollingDuration == 15_552_000)
        #expect(configuration.refreshTokenGracePeriod == 0)
    }

    @Test("refresh-no-grace: an exchanged refresh token is refused at once (invalid_grant)")
    func noGrace() throws {
        try withEmulator { emulator in
            let token = try firstRefreshToken(emulator)
            #expect(try refresh(emulator, token).status == 200)
            #expect(try refresh(emulator, token).json?["error"] == "invalid_grant")
        }
    }

    @Test("refresh-grace: within the grace period the old token still works, after it invalid_grant")
    func grace() throws {
        var configuration = EmulatorConfiguration()
        // Seconds, not one: a loaded machine (or a sanitizer build) may take a second between two requests.
        configuration.refreshTokenGracePeriod = 4
        try withEmulator(configuration) { emulator in
            let token = try firstRefreshToken(emulator)
            #expect(try refresh(emulator, token).status == 200)
            let exchanged = Date()
            #expect(try refresh(emulator, token).status == 200, "reused inside the grace period")
            Thread.sleep(until: exchanged.addingTimeInterval(4.5))
            #expect(try refresh(emulator, token).json?["error"] == "invalid_grant")
        }
    }

    @Test("refresh-rolling: no refresh token of the grant outlives the rolling duration from sign-in")
    func rollingDuration() throws {
        var configuration = EmulatorConfiguration()
        // Seconds, not one: a loaded machine (or a sanitizer build) may take a second between two requests.
        configuration.refreshTokenRollingDuration = 4
        try withEmulator(configuration) { emulator in
            let token = try firstRefreshToken(emulator)
            let signedIn = Date()  // the grant's sign-in was no later than this
            let next = try #require(refresh(emulator, token).json?["refresh_token"]?.stringValue)
            #expect(try #require(emulator.introspect(next).exp) <= Int(nowSeconds()) + 4, "capped by the grant, not 30 days")
            Thread.sleep(until: signedIn.addingTimeInterval(4.5))
            #expect(try refresh(emulator, next).json?["error"] == "invalid_grant")
        }
    }

    @Test("refresh-duration: each refresh token expires after its own lifetime")
    func tokenDuration() throws {
        var configuration = EmulatorConfiguration()
        configuration.refreshTokenLifetime = 1
        configuration.refreshTokenRollingDuration = nil
        try withEmulator(configuration) { emulator in
            let token = try firstRefreshToken(emulator)
            Thread.sleep(forTimeInterval: 1.2)
            #expect(try refresh(emulator, token).json?["error"] == "invalid_grant")
        }
    }
}
