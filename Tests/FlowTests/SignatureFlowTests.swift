import Foundation
import PingEmulator
import Testing

/// The JWK Set cache on the test's clock: a rotated key is fetched once its minute has passed, without
/// editing any file and without sleeping.
@Suite("ID token keys: the cache, in-process")
struct SignatureFlowTests {
    @Test(
        "id-token-key-rotation-clock: a new kid is fetched at once even within the minute; a kid still unknown after a fetch waits (exit 3) until the minute has passed"
    )
    func rotationOnTheClock() throws {
        let harness = try loggedIn(lifetime: 3600)
        #expect(harness.emulator.requests(to: .jwks).count == 1)
        let loginSet = try #require(readCache(harness)).split(separator: "\n", maxSplits: 1)[1]
        harness.emulator.rotateKeys()
        harness.emulator.accessTokenLifetime = 40
        harness.clock.advance(by: 3600 - 29)  // the first token is within --min-ttl: refresh
        let first = harness.run(["token", "--raw"])
        #expect(first.status == 0, "\(first)")
        #expect(harness.emulator.requests(to: .jwks).count == 2)

        harness.emulator.rotateKeys()
        harness.clock.advance(by: 20)  // the 40 s token is within --min-ttl; the keys are 20 s old
        let soon = harness.run(["token", "--raw"])
        #expect(soon.status == 0, "a new kid within the minute is fetched at once: \(soon)")
        #expect(harness.emulator.requests(to: .jwks).count == 3)

        // The provider keeps serving an old set: one fetch for the kid, then none within the minute.
        var faults = Faults()
        faults.responseOverrides[.jwks] = CannedResponse(status: 200, contentType: "application/json", body: String(loginSet))
        harness.emulator.faults = faults
        harness.emulator.rotateKeys()
        harness.emulator.accessTokenLifetime = 20  // whatever is kept, the next run refreshes again
        harness.clock.advance(by: 20)
        let missing = harness.run(["token", "--raw"])
        #expect(missing.status != 0 && harness.emulator.requests(to: .jwks).count == 4, "\(missing)")
        harness.clock.advance(by: 5)
        let early = harness.run(["token", "--raw"])
        #expect(early.status == 3 && early.rule == .idTokenKeyRotationClock, "\(early)")
        #expect(harness.emulator.requests(to: .jwks).count == 4, "no fetch within the minute for a kid still unknown")

        harness.emulator.faults = Faults()
        harness.emulator.accessTokenLifetime = 3600
        harness.clock.advance(by: 61)
        let later = harness.run(["token", "--raw"])
        #expect(later.status == 0 && later.stdout == harness.emulator.newestTokenLine, "\(later)")
        #expect(harness.emulator.requests(to: .jwks).count == 5)
        let cache = try #require(readCache(harness))
        #expect(cache.hasPrefix("\(Int(harness.clock.now))\n"), "the fetch time is the clock's, no kid left unknown")
    }

    func readCache(_ harness: FlowHarness) -> String? {
        FileManager.default.contents(atPath: harness.stateDirectory + "/jwks.json").map { String(decoding: $0, as: UTF8.self) }
    }
}
