import Foundation
import PingEmulator
import Testing

@testable import PingBase

/// The JWK Set cache on the test's clock: a rotated key is fetched once its minute has passed, without
/// editing any file and without sleeping.
@Suite("ID token keys: the cache, in-process")
struct SignatureFlowTests {
    @Test("id-token-key-rotation-clock: within the minute a new kid waits (exit 3); after it, one fetch and the refresh succeeds")
    func rotationOnTheClock() throws {
        let harness = try loggedIn(lifetime: 3600)
        #expect(harness.emulator.requests(to: .jwks).count == 1)
        harness.emulator.rotateKeys()
        harness.emulator.accessTokenLifetime = 40
        harness.clock.advance(by: 3600 - 29)  // the first token is within --min-ttl: refresh
        // The keys were fetched at login, 3571 s ago: the new kid is fetched at once.
        let first = harness.run(["token", "--raw"])
        #expect(first.status == 0, "\(first)")
        #expect(harness.emulator.requests(to: .jwks).count == 2)

        harness.emulator.rotateKeys()
        harness.clock.advance(by: 20)  // the 40 s token is within --min-ttl; the keys are 20 s old
        let early = harness.run(["token", "--raw"])
        #expect(early.status == 3 && early.rule == .idTokenKeyRotationClock, "\(early)")
        #expect(harness.emulator.requests(to: .jwks).count == 2, "no fetch within the minute")

        harness.emulator.accessTokenLifetime = 3600
        harness.clock.advance(by: 41)  // the kept token has expired; the keys are 61 s old
        let later = harness.run(["token", "--raw"])
        #expect(later.status == 0 && later.stdout == harness.emulator.newestTokenLine, "\(later)")
        #expect(harness.emulator.requests(to: .jwks).count == 3)
        let cache = try #require(readCache(harness))
        #expect(cache.hasPrefix("\(Int(harness.clock.now))\n"), "the fetch time is the clock's")
    }

    func readCache(_ harness: FlowHarness) -> String? {
        FileManager.default.contents(atPath: harness.stateDirectory + "/jwks.json").map { String(decoding: $0, as: UTF8.self) }
    }
}
