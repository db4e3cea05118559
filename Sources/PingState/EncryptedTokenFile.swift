import PingBase
import PingCrypto
import PingOAuth
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// The token cache file format, version 5:
///
/// ```
/// offset 0   4 bytes  magic "PCLI"
/// offset 4   1 byte   format version (5)
/// offset 5   1 byte   what it holds: 0 a token set, 1 nothing (the sealed record `logout` leaves)
/// offset 6   2 bytes  zero (reserved)
/// offset 8   8 bytes  generation, big-endian: one more than the record it replaced
/// offset 16 32 bytes  BLAKE2b-256 of the profile's bound fields (`Profile.bindingBytes`)
/// offset 48 24 bytes  XChaCha20-Poly1305 nonce, random per write
/// offset 72  …        ciphertext of the token set (`CompactTokenSet`; empty for a signed-out record),
///                     then the 16-byte Poly1305 tag
/// ```
///
/// The associated data is the whole header (so the kind, the generation and the binding digest too)
/// and the profile name: a file copied to another profile, or encrypted under another key, fails to
/// decrypt; a file that decrypts but whose digest differs from the current `profile.json` means the
/// profile was changed outside pingcli. The generation is compared with the one recorded beside the key
/// (`TokenStore.recordedGeneration`): an older record (restored from a backup or a sync) is refused, so
/// a profile that was logged out stays logged out. Versions 4 and 3 (pingcli 0.1, SHA-256 digest) hold
/// a token set with an 8-byte header and no generation (read as 0): they are still read until this
/// machine records a generation for the profile, and the next write replaces them with version 5.
/// Formats 1 and 2 were never released: a file in those or any other version is refused whole
/// (`olderFormat`, `unsupportedVersion`), never read with the binding skipped: a binding that an older
/// file could skip would be no binding.
public enum EncryptedTokenFile {
    package static let magic: [UInt8] = Array("PCLI".utf8)
    package static let version: UInt8 = 5
    /// The oldest version read: 3, the format pingcli 0.1 wrote.
    package static let oldestReadVersion: UInt8 = 3
    package static let digestLength = 32

    /// The header's length in a file of `version`: 16 from version 5 (kind and generation), 8 before.
    package static func headerLength(_ version: UInt8) -> Int { version >= 5 ? 16 : 8 }

    package static func header(version: UInt8 = version, signedOut: Bool = false, generation: UInt64 = 0) -> [UInt8] {
        guard version >= 5 else { return magic + [version, 0, 0, 0] }
        return magic + [version, signedOut ? 1 : 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: generation >> (56 - 8 * UInt64($0))) }
    }

    /// The associated data: the header with the binding digest, and the profile name.
    package static func associatedData(header: [UInt8], profile: ProfileName, digest: [UInt8]) -> [UInt8] {
        header + digest + Array("\u{0}profile=\(profile.value)".utf8)
    }

    /// The binding digest a file of `version` carries for `profile`.
    package static func bindingDigest(_ profile: Profile, version: UInt8) -> [UInt8] {
        version == 3 ? profile.bindingDigestSHA256 : profile.bindingDigest
    }

    /// What a cache file holds once it decrypted and matched its profile.
    public struct Record: Sendable, Equatable {
        /// nil: the sealed, empty record `logout` leaves (the profile's settings still vouched for).
        public var tokens: TokenSet?
        /// 0 for versions 3 and 4.
        public var generation: UInt64
    }

    public enum DecodeError: Error, Sendable, Equatable {
        case truncated
        case notATokenFile
        /// A newer format than this pingcli knows.
        case unsupportedVersion(UInt8)
        /// An older (or never released) format: refused, never read without the binding.
        case olderFormat(UInt8)
        /// Authentication failed: edited, copied from another profile, or another key.
        case cannotDecrypt
        case notATokenSet
        /// The file is authentic, but `profile.json` no longer matches the profile it was written for.
        case profileChanged
        /// Authentic, but older than the newest record this machine wrote for the profile: restored
        /// from a backup or a sync.
        case rolledBack
    }

    /// Encrypts a token set (nil: the signed-out record) under `key`, bound to the profile's name and
    /// bound fields, as generation `generation`.
    package static func encode(_ tokens: TokenSet?, key: [UInt8], name: ProfileName, profile: Profile, generation: UInt64 = 1) -> [UInt8] {
        var plaintext = tokens.map(CompactTokenSet.encode) ?? []
        defer { Sodium.wipe(&plaintext) }
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let digest = profile.bindingDigest
        let header = header(signedOut: tokens == nil, generation: generation)
        let ciphertext = Sodium.seal(
            plaintext: plaintext, associatedData: associatedData(header: header, profile: name, digest: digest), nonce: nonce, key: key)
        return header + digest + nonce + ciphertext
    }

    /// Decrypts and decodes a token cache file, and checks that `profile` is the one it was written for.
    /// A signed-out record is `notATokenSet` here; `decodeRecord` tells it apart.
    public static func decode(_ bytes: [UInt8], key: [UInt8], name: ProfileName, profile: Profile) throws(DecodeError) -> TokenSet {
        guard let tokens = try decodeRecord(bytes, key: key, name: name, profile: profile).tokens else { throw .notATokenSet }
        return tokens
    }

    /// Decrypts a cache file of any version read, checks its binding, and returns what it holds.
    public static func decodeRecord(_ bytes: [UInt8], key: [UInt8], name: ProfileName, profile: Profile) throws(DecodeError) -> Record {
        guard bytes.count >= magic.count else { throw .truncated }
        guard Array(bytes.prefix(magic.count)) == magic else { throw .notATokenFile }
        guard bytes.count > 8 else { throw .truncated }
        let fileVersion = bytes[4]
        guard fileVersion <= version else { throw .unsupportedVersion(fileVersion) }
        guard fileVersion >= oldestReadVersion else { throw .olderFormat(fileVersion) }
        let headerLength = headerLength(fileVersion)
        guard bytes[6] == 0, bytes[7] == 0, fileVersion >= 5 ? bytes[5] <= 1 : bytes[5] == 0 else { throw .notATokenFile }
        let nonceStart = headerLength + digestLength
        guard bytes.count >= nonceStart + Sodium.aeadNonceLength + Sodium.aeadTagLength else { throw .truncated }
        let header = Array(bytes[..<headerLength])
        let storedDigest = Array(bytes[headerLength..<nonceStart])
        let nonce = Array(bytes[nonceStart..<(nonceStart + Sodium.aeadNonceLength)])
        let ciphertext = Array(bytes[(nonceStart + Sodium.aeadNonceLength)...])
        guard
            var plaintext = Sodium.open(
                ciphertext: ciphertext, associatedData: associatedData(header: header, profile: name, digest: storedDigest),
                nonce: nonce, key: key)
        else { throw .cannotDecrypt }
        defer { Sodium.wipe(&plaintext) }
        guard Sodium.constantTimeEquals(storedDigest, bindingDigest(profile, version: fileVersion)) else { throw .profileChanged }
        let generation = fileVersion >= 5 ? bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } : 0
        if fileVersion >= 5 && bytes[5] == 1 {
            guard plaintext.isEmpty else { throw .notATokenSet }
            return Record(tokens: nil, generation: generation)
        }
        guard let tokens = CompactTokenSet.decode(plaintext) else { throw .notATokenSet }
        return Record(tokens: tokens, generation: generation)
    }
}

extension EncryptedTokenFile.DecodeError {
    /// The rule the cache broke, by the name its negative test starts with.
    package var rule: Rule {
        switch self {
        case .truncated: .cacheTruncated
        case .notATokenFile: .cacheNotACache
        case .unsupportedVersion: .cacheVersion
        case .olderFormat: .cacheOlderFormat
        case .cannotDecrypt: .cacheTampered
        case .notATokenSet: .cacheNotATokenSet
        case .profileChanged: .profileBinding
        case .rolledBack: .cacheRolledBack
        }
    }
}

extension TokenSet {
    /// Times a pingcli could have written: finite, after 1970 and before the year 10000. Anything else
    /// in an authenticated file means it was not written by a sane pingcli; reading it as a token set
    /// would only move the surprise further down.
    package var hasPlausibleTimes: Bool {
        // Two calls, not an array of the two: a `[Double]` cost `token --raw` its generic metadata.
        func plausible(_ time: Double) -> Bool { time.isFinite && time >= 0 && time <= latestDisplayableTime }
        return plausible(obtainedAt) && plausible(expiresAt ?? obtainedAt)
    }
}
