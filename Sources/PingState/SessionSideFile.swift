import PingBase
import PingCrypto
import PingPlatform

/// The layout the session's side caches share (`targeted-tokens.enc`, `aws-credentials.enc`): beside the
/// profile's `tokens.enc`, under the same key and binding, records of a key and a value, sealed so that
/// the file decrypts as no other (`purpose` in the associated data) and only for the session it was
/// written in:
///
/// ```
/// offset 0   4 bytes  magic
/// offset 4   1 byte   format version
/// offset 5   3 bytes  zero (reserved)
/// offset 8  32 bytes  the profile's binding digest (`Profile.bindingDigest`)
/// offset 40 24 bytes  XChaCha20-Poly1305 nonce, random per write
/// offset 64  …        ciphertext of the records, then the 16-byte Poly1305 tag
/// record  4 bytes length (big-endian) + the key, 4 bytes length + the value
/// ```
///
/// The associated data is the header, the profile's name, `purpose` and the session's id.
package struct SessionSideFile: Sendable {
    package let magic: [UInt8]
    package let version: UInt8
    /// What the file is for, in its associated data ("targeted", "aws").
    package let purpose: String
    /// Records kept at the most; a file with more reads as no cache.
    package let maximumRecords: Int

    package func associatedData(_ header: [UInt8], name: ProfileName, session: [UInt8]?) -> [UInt8] {
        header + Array("\u{0}profile=\(name.value)\u{0}\(purpose)".utf8) + (session.map { Array("\u{0}session=".utf8) + $0 } ?? [])
    }

    /// `records` (each value already encoded; wiped here) sealed under `key` for `name`, `profile` and `session`.
    package func seal(
        _ records: [(key: String, value: [UInt8])], key: [UInt8], name: ProfileName, profile: Profile, session: [UInt8]?
    ) -> [UInt8] {
        var plaintext: [UInt8] = []
        defer { Sodium.wipe(&plaintext) }
        func append(_ field: [UInt8]) {
            let count = UInt32(field.count)
            plaintext += [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] + field
        }
        for record in records.sorted(by: { $0.key < $1.key }) {
            append(Array(record.key.utf8))
            var value = record.value
            append(value)
            Sodium.wipe(&value)
        }
        let header = magic + [version, 0, 0, 0] + profile.bindingDigest
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        return header + nonce
            + Sodium.seal(
                plaintext: plaintext, associatedData: associatedData(header, name: name, session: session), nonce: nonce, key: key)
    }

    /// The records, each value read by `decode` (nil: the file is refused), or nil when the bytes are not this
    /// file of this profile and session under this key. `digest` gives the binding digest a version was
    /// written with (nil: a version not read).
    package func open<Value>(
        _ bytes: [UInt8], key: [UInt8], name: ProfileName, session: [UInt8]?, digest: (UInt8) -> [UInt8]?,
        decode: (ArraySlice<UInt8>) -> Value?
    ) -> [String: Value]? {
        let headerLength = 8 + 32
        guard bytes.count >= headerLength + Sodium.aeadNonceLength + Sodium.aeadTagLength, Array(bytes[0..<4]) == magic,
            let expected = digest(bytes[4]), bytes[5..<8].allSatisfy({ $0 == 0 })
        else { return nil }
        let header = Array(bytes[0..<headerLength])
        guard Sodium.constantTimeEquals(Array(header[8...]), expected) else { return nil }
        let nonce = Array(bytes[headerLength..<(headerLength + Sodium.aeadNonceLength)])
        guard
            var plaintext = Sodium.open(
                ciphertext: Array(bytes[(headerLength + Sodium.aeadNonceLength)...]),
                associatedData: associatedData(header, name: name, session: session), nonce: nonce, key: key)
        else { return nil }
        defer { Sodium.wipe(&plaintext) }
        var records: [String: Value] = [:]
        var index = 0
        func field() -> ArraySlice<UInt8>? {
            guard plaintext.count - index >= 4 else { return nil }
            let count = plaintext[index..<(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            index += 4
            guard plaintext.count - index >= count else { return nil }
            defer { index += count }
            return plaintext[index..<(index + count)]
        }
        while index < plaintext.count {
            guard let recordKey = field().flatMap(validUTF8String), let value = field().flatMap(decode), records.count < maximumRecords
            else { return nil }
            records[recordKey] = value
        }
        return records
    }
}

/// A cache kept in a `SessionSideFile`: where it lies, how its records are sealed and read, and which
/// records a write keeps.
package protocol SessionSideCache {
    associatedtype Record
    static var maximumRecords: Int { get }
    static func path(_ paths: Paths, _ name: ProfileName) -> String
    static func encode(_ records: [String: Record], key: [UInt8], name: ProfileName, profile: Profile, session: [UInt8]?) -> [UInt8]
    static func decode(_ bytes: [UInt8], key: [UInt8], name: ProfileName, profile: Profile, session: [UInt8]?) -> [String: Record]?
    /// Whether a write at `now` keeps the record.
    static func isLive(_ record: Record, now: Double) -> Bool
    /// Whether `first` is kept before `second` when there are more than `maximumRecords`.
    static func keptBefore(_ first: Record, _ second: Record) -> Bool
}

extension TokenStore {
    /// The records `Cache` holds for `session` (the profile's `TokenSet.sessionID`): empty when none, or when
    /// the file is unreadable as that cache of this session.
    package func readSide<Cache: SessionSideCache>(
        _: Cache.Type, _ name: ProfileName, profile: Profile, session: [UInt8]?, key: CommandKey
    ) throws(StoreFailure) -> [String: Cache.Record] {
        let path = Cache.path(paths, name)
        guard let bytes = try passing({ () throws(FileFailure) in try FileSystem.read(path, protection: .secret) }) else { return [:] }
        return Cache.decode(bytes, key: try key.load(), name: name, profile: profile, session: session) ?? [:]
    }

    /// Saves the records `Cache` keeps at `now`, at most `maximumRecords` of them, its leftover temporary
    /// files removed first. The caller holds the profile's lock.
    package func writeSide<Cache: SessionSideCache>(
        _: Cache.Type, _ records: [String: Cache.Record], _ name: ProfileName, profile: Profile, session: [UInt8]?,
        key: CommandKey, now: Double
    ) throws(StoreFailure) {
        let kept = records.filter { Cache.isLive($0.value, now: now) }.sorted { Cache.keptBefore($0.value, $1.value) }
            .prefix(Cache.maximumRecords)
        let path = Cache.path(paths, name)
        let bytes = Cache.encode(
            Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) }), key: try key.load(create: true), name: name,
            profile: profile, session: session)
        try passing { () throws(FileFailure) in
            FileSystem.removeTemporaryFiles(of: path)
            try FileSystem.atomicWrite(path, bytes)
        }
    }
}
