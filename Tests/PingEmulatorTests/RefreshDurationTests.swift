import Foundation
import Testing

@testable import PingEmulator

/// PingOne's refresh-token settings: refreshTokenDuration (each token), refreshTokenRollingDuration (the
/// grant, from sign-in) and refreshTokenRollingGracePeriodDuration (reuse after an exchange).
@Suite struct RefreshDurationTests {
    /// The emulator's clock stands still unless the test moves it (`advanceClock`), so a loaded machine
    /// cannot age a token.
    func standingClock(_ change: (inout EmulatorConfiguration) -> Void) -> EmulatorConfiguration {
        var configuration = EmulatorConfiguration()
        configuration.clock = { 1_900_000_000 }
        change(&configuration)
        return configuration
    }

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
        try withEmulator(standingClock { $0.refreshTokenGracePeriod = 60 }) { emulator in
            let token = try firstRefreshToken(emulator)
            #expect(try refresh(emulator, token).status == 200)
            emulator.advanceClock(by: 59)
            #expect(try refresh(emulator, token).status == 200, "reused inside the grace period")
            emulator.advanceClock(by: 2)
            #expect(try refresh(emulator, token).json?["error"] == "invalid_grant")
        }
    }

    @Test("refresh-rolling: no refresh token of the grant outlives the rolling duration from sign-in")
    func rollingDuration() throws {
        try withEmulator(standingClock { $0.refreshTokenRollingDuration = 3600 }) { emulator in
            let token = try firstRefreshToken(emulator)
            emulator.advanceClock(by: 1800)
            let next = try #require(refresh(emulator, token).json?["refresh_token"]?.stringValue)
            #expect(try #require(emulator.introspect(next).exp) == 1_900_003_600, "capped by the grant, not 30 days")
            emulator.advanceClock(by: 1801)
            #expect(try refresh(emulator, next).json?["error"] == "invalid_grant")
        }
    }

    @Test("refresh-duration: each refresh token expires after its own lifetime")
    func tokenDuration() throws {
        let configuration = standingClock {
            $0.refreshTokenLifetime = 60
            $0.refreshTokenRollingDuration = nil
        }
        try withEmulator(configuration) { emulator in
            let token = try firstRefreshToken(emulator)
            emulator.advanceClock(by: 59)
            let next = try #require(refresh(emulator, token).json?["refresh_token"]?.stringValue, "alive until its lifetime ends")
            #expect(try #require(emulator.introspect(next).exp) == 1_900_000_119, "its own lifetime from its issue")
            emulator.advanceClock(by: 61)
            #expect(try refresh(emulator, next).json?["error"] == "invalid_grant")
        }
    }
}
