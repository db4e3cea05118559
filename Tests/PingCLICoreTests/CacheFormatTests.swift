import Testing

@testable import PingCrypto
@testable import PingOAuth
@testable import PingPlatform
@testable import PingState

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
@Suite("token cache formats")
struct CacheFormatTests {
    let tokens = TokenSet(
        accessToken: "access-secret", tokenType: "Bearer", expiresAt: 1_900_000_000.25, refreshToken: "refresh secret",
        idToken: "eyJh.eyJz.", scope: "openid email", obtainedAt: 1_800_000_000, clientSecret: try! ClientSecret(checking: "s3cret"))
    let key = Sodium.randomBytes(32)
    let name = ProfileName.default
    let profile = Profile(
        issuer: "https://i", clientID: "c", scopes: ["openid"],
        metadata: ProviderMetadata(issuer: "https://i", authorizationEndpoint: "https://i/a", tokenEndpoint: "https://i/t"))

    /// A store in a new temporary directory, with `key` as its key file.
    func store(key: [UInt8]) throws -> TokenStore {
        let root = makeTemporaryDirectory("format")
        let store = TokenStore(
            paths: Paths(configDirectory: root + "/config", dataDirectory: root + "/data", stateDirectory: root + "/state"))
        try FileSystem.ensurePrivateDirectory(root + "/data")
        try FileSystem.atomicWrite(root + "/data/key", key)
        return store
    }

    /// A current-format file sealed around `plaintext` as it stands, to reach the compact reader's own checks.
    func sealed(_ plaintext: [UInt8]) -> [UInt8] {
        let digest = profile.bindingDigest
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let header = EncryptedTokenFile.header(generation: 1)
        let associatedData = EncryptedTokenFile.associatedData(header: header, profile: name, digest: digest)
        return header + digest + nonce
            + Sodium.seal(plaintext: plaintext, associatedData: associatedData, nonce: nonce, key: key)
    }

    func decode(_ bytes: [UInt8]) throws(EncryptedTokenFile.DecodeError) -> TokenSet {
        try EncryptedTokenFile.decode(bytes, key: key, name: name, profile: profile)
    }

    @Test(
        "cache-old-format-refused: a file of an older (never released) format is refused whole, whatever it holds, never read without the binding"
    )
    func olderFormatsRefused() throws {
        let current = EncryptedTokenFile.encode(tokens, key: key, name: name, profile: profile)
        for version: UInt8 in [0, 1, 2] {
            var old = current
            old[4] = version
            #expect(throws: EncryptedTokenFile.DecodeError.olderFormat(version)) { try decode(old) }
            let message = EncryptedTokenFile.DecodeError.olderFormat(version).message(path: "/t/tokens.enc", profile: name)
            #expect(message.contains("written by an older pingcli") && message.hasSuffix("run pingcli login --profile default"))
        }
        var newer = current
        newer[4] = 6
        #expect(throws: EncryptedTokenFile.DecodeError.unsupportedVersion(6)) { try decode(newer) }
    }

    /// `Tests/Fixtures/<name>`.
    static func fixture(_ name: String) throws -> [UInt8] {
        // Tests/PingCLICoreTests/CacheFormatTests.swift -> Tests/Fixtures
        let path = FileSystem.parent(of: FileSystem.parent(of: #filePath)) + "/Fixtures/" + name
        return try #require(try FileSystem.read(path), "missing fixture \(path)")
    }

    @Test(
        "cache-v3-still-reads: a cache pingcli 0.1's format 3 wrote (SHA-256 binding; the fixture was written by main's release binary at 1417d1c) still reads, its binding still checked; the next write is format 5"
    )
    func formatThreeStillReads() throws {
        let bytes = try Self.fixture("cache-format-3/tokens.enc")
        let key = try Self.fixture("cache-format-3/key")
        let saved = try Profile(savedJSON: try Self.fixture("cache-format-3/profile.json"))
        #expect(bytes[4] == 3)
        let tokens = try EncryptedTokenFile.decode(bytes, key: key, name: .default, profile: saved)
        #expect(tokens.refreshToken != nil && tokens.idToken != nil && tokens.tokenType == "Bearer")
        #expect(try IDTokenClaims.decode(#require(tokens.idToken).value).subject == "5a1c0f3e-8b2d-4e6a-9c7f-1d2e3f4a5b6c")
        // The binding of a format 3 file still holds: another client id is a changed profile.
        var changed = saved
        changed.clientID = "another-client"
        #expect(throws: EncryptedTokenFile.DecodeError.profileChanged) {
            try EncryptedTokenFile.decode(bytes, key: key, name: .default, profile: changed)
        }
        // The version byte is authenticated: a format 3 file relabelled 4 (or 4 relabelled 3) does not decrypt.
        var relabelled = bytes
        relabelled[4] = 4
        #expect(throws: EncryptedTokenFile.DecodeError.cannotDecrypt) {
            try EncryptedTokenFile.decode(relabelled, key: key, name: .default, profile: saved)
        }
        let rewritten = EncryptedTokenFile.encode(tokens, key: key, name: .default, profile: saved)
        #expect(rewritten[4] == 5 && Array(rewritten[16..<48]) == saved.bindingDigest)
        #expect(try EncryptedTokenFile.decode(rewritten, key: key, name: .default, profile: saved) == tokens)
        relabelled = rewritten
        relabelled[4] = 3
        #expect(throws: EncryptedTokenFile.DecodeError.cannotDecrypt) {
            try EncryptedTokenFile.decode(relabelled, key: key, name: .default, profile: saved)
        }
    }

    @Test(
        "cache-v5-record: a signed-out record and a token set carry their generation; kind and generation are authenticated; a format 4 file reads as generation 0"
    )
    func formatFiveRecord() throws {
        let signedOut = EncryptedTokenFile.encode(nil, key: key, name: name, profile: profile, generation: 7)
        #expect(signedOut[4] == 5 && signedOut[5] == 1)
        #expect(try EncryptedTokenFile.decodeRecord(signedOut, key: key, name: name, profile: profile) == .init(tokens: nil, generation: 7))
        #expect(throws: EncryptedTokenFile.DecodeError.notATokenSet) { try decode(signedOut) }
        let session = EncryptedTokenFile.encode(tokens, key: key, name: name, profile: profile, generation: 8)
        #expect(
            try EncryptedTokenFile.decodeRecord(session, key: key, name: name, profile: profile) == .init(tokens: tokens, generation: 8))
        for (offset, value) in [(5, UInt8(1)), (15, UInt8(9)), (8, UInt8(1))] {
            var forged = session
            forged[offset] = value
            #expect(throws: EncryptedTokenFile.DecodeError.cannotDecrypt) { try decode(forged) }
        }
        var changed = profile
        changed.dpop = "ES256"
        #expect(throws: EncryptedTokenFile.DecodeError.profileChanged) {
            try EncryptedTokenFile.decodeRecord(signedOut, key: key, name: name, profile: changed)
        }
    }

    @Test("cache-v4-binding: BLAKE2b-256 (RFC 7693) of the binding bytes; format 3's SHA-256 differs")
    func blake2bBinding() {
        let hex = { (bytes: [UInt8]) in bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
        #expect(hex(Sodium.blake2b256([])) == "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8")
        #expect(hex(Sodium.blake2b256(Array("abc".utf8))) == "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319")
        #expect(profile.bindingDigest == Sodium.blake2b256(profile.bindingBytes))
        #expect(profile.bindingDigestSHA256 == Sodium.sha256(profile.bindingBytes))
        #expect(profile.bindingDigest != profile.bindingDigestSHA256)
    }

    @Test(
        "targeted-cache-v1-still-reads: a targeted cache of version 1 (SHA-256 binding) still reads; version 2 is written; other versions read as empty"
    )
    func targetedVersionOneStillReads() throws {
        let records = [
            "scope:email": TokenSet(
                accessToken: "narrow", tokenType: "Bearer", expiresAt: 2e9, refreshToken: nil, idToken: nil, scope: "email",
                obtainedAt: 1.5e9)
        ]
        let current = TargetedTokenFile.encode(records, key: key, name: name, profile: profile, session: nil)
        #expect(current[4] == 2 && TargetedTokenFile.decode(current, key: key, name: name, profile: profile, session: nil) == records)
        // The same records as version 1 wrote them: its header, its SHA-256 digest, sealed under its header.
        var plaintext = try #require(
            Sodium.open(
                ciphertext: Array(current[64...]),
                associatedData: TargetedTokenFile.associatedData(Array(current[0..<40]), name: name, session: nil),
                nonce: Array(current[40..<64]), key: key))
        defer { Sodium.wipe(&plaintext) }
        let header = TargetedTokenFile.magic + [1, 0, 0, 0] + profile.bindingDigestSHA256
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let versionOne =
            header + nonce
            + Sodium.seal(
                plaintext: plaintext, associatedData: TargetedTokenFile.associatedData(header, name: name, session: nil), nonce: nonce,
                key: key)
        #expect(TargetedTokenFile.decode(versionOne, key: key, name: name, profile: profile, session: nil) == records)
        var changed = profile
        changed.clientID = "another"
        #expect(TargetedTokenFile.decode(versionOne, key: key, name: name, profile: changed, session: nil) == nil)
        for version: UInt8 in [0, 3] {
            var other = current
            other[4] = version
            #expect(TargetedTokenFile.decode(other, key: key, name: name, profile: profile, session: nil) == nil)
        }
    }

    @Test("cache-v3-round-trip: every field, absent optionals, and times to the last bit")
    func compactRoundTrip() throws {
        #expect(try decode(EncryptedTokenFile.encode(tokens, key: key, name: name, profile: profile)) == tokens)
        let bare = TokenSet(
            accessToken: "a", tokenType: "", expiresAt: nil, refreshToken: nil, idToken: nil, scope: nil, obtainedAt: 0.1)
        #expect(CompactTokenSet.decode(CompactTokenSet.encode(bare)) == bare)
        #expect(CompactTokenSet.decode(CompactTokenSet.encode(tokens)) == tokens)
        var bound = tokens
        bound.sessionID = Sodium.randomBytes(16)
        #expect(CompactTokenSet.decode(CompactTokenSet.encode(bound)) == bound)
        var journey = bound
        journey.amSession = try SSOToken(checking: "AQIC5wM2LY4Sfcw.*AAJTSQACMDE.*")
        journey.amSessionEnds = 1_708_532_996
        #expect(CompactTokenSet.decode(CompactTokenSet.encode(journey)) == journey)
        #expect(Array(CompactTokenSet.encode(journey).suffix(13).prefix(5)) == [12, 0, 0, 0, 8], "am_session_ends is tag 12, last")
        #expect(CompactTokenSet.decode(CompactTokenSet.encode(tokens) + Self.field((11, [1, 2, 3]))) == nil, "a session id is 16 bytes")
    }

    /// The compact bytes of `tokens` with one field's value replaced.
    func replacing(_ tag: CompactTokenSet.Tag, with value: [UInt8]) -> [UInt8] {
        var fields = fieldsOf(CompactTokenSet.encode(tokens))
        fields[fields.firstIndex { $0.tag == tag.rawValue }!].value = value
        return fields.flatMap(Self.field)
    }

    func fieldsOf(_ bytes: [UInt8]) -> [(tag: UInt8, value: [UInt8])] {
        var fields: [(tag: UInt8, value: [UInt8])] = []
        var index = 0
        while index < bytes.count {
            let count = bytes[(index + 1)...(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            fields.append((bytes[index], Array(bytes[(index + 5)..<(index + 5 + count)])))
            index += 5 + count
        }
        return fields
    }

    static func field(_ field: (tag: UInt8, value: [UInt8])) -> [UInt8] {
        let count = field.value.count
        return [field.tag, UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] + field.value
    }

    @Test(
        "cache-v3-gates: an authentic file whose token fails its grammar is not a token set",
        arguments: [
            (CompactTokenSet.Tag.accessToken, "a\r\nX-Injected: 1"), (.accessToken, ""), (.refreshToken, "r\u{1b}[2J"),
            (.idToken, "not-a-jwt"), (.clientSecret, "s\n"), (.tokenType, "\u{FFFF}\u{0}"),
        ])
    func compactGates(tag: CompactTokenSet.Tag, value: String) {
        var bytes = Array(value.utf8)
        if tag == .tokenType { bytes = [0xC3, 0x28] }  // invalid UTF-8
        #expect(throws: EncryptedTokenFile.DecodeError.notATokenSet) { try decode(sealed(replacing(tag, with: bytes))) }
    }

    @Test("cache-v3-layout: unknown, repeated, unordered, truncated, trailing or missing fields make the set unreadable")
    func compactLayout() throws {
        let good = CompactTokenSet.encode(tokens)
        #expect(try decode(sealed(good)) == tokens)
        let fields = fieldsOf(good)
        var variants: [(String, [UInt8])] = [
            ("unknown tag", good + Self.field((9, [1]))),
            ("tag 0", Self.field((0, [])) + good),
            ("repeated", Self.field(fields[0]) + good),
            ("out of order", fields.reversed().flatMap(Self.field)),
            ("truncated value", Array(good.dropLast())),
            ("trailing byte", good + [0]),
            ("missing access token", fields.dropFirst().flatMap(Self.field)),
            ("missing obtained_at", fields.filter { $0.tag != 7 }.flatMap(Self.field)),
            ("short time", replacing(.obtainedAt, with: [0, 0, 0, 0])),
            ("NaN time", replacing(.expiresAt, with: [0x7F, 0xF8, 0, 0, 0, 0, 0, 0])),
            ("JSON plaintext", Array((try JSONEncoder().encode(tokens)))),
        ]
        variants.append(("huge length", [1, 0xFF, 0xFF, 0xFF, 0xFF, 0x61]))
        for (what, plaintext) in variants {
            #expect(throws: EncryptedTokenFile.DecodeError.notATokenSet, "\(what)") { try decode(sealed(plaintext)) }
        }
    }
}
