import Testing

@testable import PingCLICore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
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
        var template = Array("/tmp/pingcli-format-XXXXXX".utf8CString)
        let root = String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }!)
        let store = TokenStore(
            paths: Paths(configDirectory: root + "/config", dataDirectory: root + "/data", stateDirectory: root + "/state"))
        try FileSystem.ensurePrivateDirectory(root + "/data")
        try FileSystem.atomicWrite(root + "/data/key", key)
        return store
    }

    /// A format 3 file sealed around `plaintext` as it stands, to reach the compact reader's own checks.
    func sealed(_ plaintext: [UInt8]) -> [UInt8] {
        let digest = profile.bindingDigest
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let associatedData = EncryptedTokenFile.associatedData(profile: name, digest: digest)
        return EncryptedTokenFile.header() + digest + nonce
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
        newer[4] = 4
        #expect(throws: EncryptedTokenFile.DecodeError.unsupportedVersion(4)) { try decode(newer) }
    }

    @Test("cache-v3-round-trip: every field, absent optionals, and times to the last bit")
    func compactRoundTrip() throws {
        #expect(try decode(EncryptedTokenFile.encode(tokens, key: key, name: name, profile: profile)) == tokens)
        let bare = TokenSet(
            accessToken: "a", tokenType: "", expiresAt: nil, refreshToken: nil, idToken: nil, scope: nil, obtainedAt: 0.1)
        #expect(CompactTokenSet.decode(CompactTokenSet.encode(bare)) == bare)
        #expect(CompactTokenSet.decode(CompactTokenSet.encode(tokens)) == tokens)
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
