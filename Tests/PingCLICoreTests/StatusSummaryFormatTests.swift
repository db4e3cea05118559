import Foundation
import Testing

@testable import PingCrypto
@testable import PingOAuth
@testable import PingPlatform
@testable import PingSession
@testable import PingState

/// The status summary's file format, version 3 (`StatusSummaryFile`): it carries the access token the
/// front prints (Sources/pingcli-front), written only for a cache whose full read finds exactly it.
@Suite("status summary: the file format")
struct StatusSummaryFormatTests {
    static let key = Sodium.randomBytes(Sodium.aeadKeyLength)

    static func sealed(token: String?) throws -> StatusSummaryFile.Sealed {
        let tokens = StatusSummaryTests.tokens()
        return StatusSummaryFile.Sealed(
            profileDigest: Sodium.randomBytes(32), cacheDigest: Sodium.randomBytes(32), generation: 0x0102_0304_0506_0708,
            accessToken: token,
            summary: StatusSummary(profile: StatusSummaryTests.profile(), tokens: tokens, claims: StatusSummary.claims(of: tokens)))
    }

    /// The body of an encoded summary, opened as the front opens it.
    static func body(_ bytes: [UInt8], name: ProfileName, key: [UInt8] = StatusSummaryFormatTests.key) throws -> [UInt8] {
        let start = StatusSummaryFile.header.count + Sodium.aeadNonceLength
        return try #require(
            Sodium.open(
                ciphertext: Array(bytes[start...]), associatedData: StatusSummaryFile.associatedData(name),
                nonce: Array(bytes[StatusSummaryFile.header.count..<start]), key: key))
    }

    @Test(
        "status-summary-v3-round-trip: version 3 holds the access token after the generation; decode gives back the digests, generation and summary and steps over the token"
    )
    func roundTrip() throws {
        let name = try ProfileName("work")
        for token in ["eyJ.access-token_1~+/=", nil] {
            let sealed = try Self.sealed(token: token)
            let bytes = StatusSummaryFile.encode(sealed, key: Self.key, name: name)
            #expect(Array(bytes.prefix(8)) == Array("PCLS".utf8) + [3, 0, 0, 0])
            let decoded = try #require(StatusSummaryFile.decode(bytes, key: Self.key, name: name))
            #expect(decoded.profileDigest == sealed.profileDigest && decoded.cacheDigest == sealed.cacheDigest)
            #expect(decoded.generation == sealed.generation && decoded.summary == sealed.summary)
            #expect(decoded.accessToken == nil, "the token is stepped over, never made a string")
            // Where the front reads it: a presence byte at 72, a 4-byte length, the bytes; then the flags.
            let body = try Self.body(bytes, name: name)
            #expect(Array(body[64..<72]) == [1, 2, 3, 4, 5, 6, 7, 8])
            if let token {
                let count = Array(token.utf8).count
                #expect(body[72] == 1 && Array(body[73..<77]) == [0, 0, 0, UInt8(count)])
                #expect(Array(body[77..<(77 + count)]) == Array(token.utf8))
                #expect(body[77 + count] & 1 == 1, "signed in")
            } else {
                #expect(body[72] == 0 && body[73] & 1 == 1)
            }
        }
    }

    @Test("status-summary-v2-refused: a version-2 summary (no token field), sealed as version 2 wrote it, is not read")
    func versionTwoRefused() throws {
        let name = try ProfileName("work")
        let sealed = try Self.sealed(token: nil)
        let header = Array("PCLS".utf8) + [2, 0, 0, 0]
        var body = sealed.profileDigest + sealed.cacheDigest
        StatusSummaryFile.appendNumber(sealed.generation, width: 8, to: &body)
        StatusSummaryFile.appendFields(sealed.summary, to: &body)
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let associated = header + Array("\u{0}profile=work".utf8)
        let versionTwo = header + nonce + Sodium.seal(plaintext: body, associatedData: associated, nonce: nonce, key: Self.key)
        #expect(StatusSummaryFile.decode(versionTwo, key: Self.key, name: name) == nil)
        // The same body under version 3's header and associated data (no token field): refused as malformed too.
        let relabelled =
            StatusSummaryFile.header + nonce
            + Sodium.seal(plaintext: body, associatedData: StatusSummaryFile.associatedData(name), nonce: nonce, key: Self.key)
        #expect(StatusSummaryFile.decode(relabelled, key: Self.key, name: name) == nil)
        // And the version 3 file whose header byte says 2: refused before anything is opened.
        var downgraded = StatusSummaryFile.encode(sealed, key: Self.key, name: name)
        downgraded[4] = 2
        #expect(StatusSummaryFile.decode(downgraded, key: Self.key, name: name) == nil)
    }

    @Test(
        "status-summary-write-checks-cache: no summary is written (an old one is removed) when the cache bytes do not decode to the tokens given, or are of another generation"
    )
    func writeChecksTheCache() throws {
        let store = StatusSummaryTests.store()
        let name = try StatusSummaryTests.saveWork(store)
        let summaryFile = store.paths.statusSummaryFile(name)
        let key = try store.commandKey().load()
        let cache = try #require(try FileSystem.read(store.paths.tokensFile(name), protection: .secret))
        let generation = try store.recordedGeneration(name)
        let profile = StatusSummaryTests.profile()
        // The tokens the cache holds, at its generation: written, with the token the front prints.
        store.writeStatusSummary(StatusSummaryTests.tokens(), name, profile: profile, key: key, cache: cache, generation: generation)
        let written = try #require(try FileSystem.read(summaryFile, protection: .secret))
        let body = try Self.body(written, name: name, key: key)
        #expect(body[72] == 1 && Array(body[77..<78]) == Array("a".utf8), "the cache's access token")
        // Tokens the cache does not hold: the old summary goes, none is written.
        let others = StatusSummaryTests.tokens(expiresAt: 2_000)
        store.writeStatusSummary(others, name, profile: profile, key: key, cache: cache, generation: generation)
        #expect(!FileSystem.exists(summaryFile))
        // The cache's tokens at another generation than its header's: none either.
        store.writeStatusSummary(StatusSummaryTests.tokens(), name, profile: profile, key: key, cache: cache, generation: generation)
        #expect(FileSystem.exists(summaryFile))
        store.writeStatusSummary(StatusSummaryTests.tokens(), name, profile: profile, key: key, cache: cache, generation: generation + 1)
        #expect(!FileSystem.exists(summaryFile))
        // Bytes that are no cache at all: none.
        store.writeStatusSummary(
            StatusSummaryTests.tokens(), name, profile: profile, key: key, cache: Array(cache.dropLast()), generation: generation)
        #expect(!FileSystem.exists(summaryFile))
    }
}
