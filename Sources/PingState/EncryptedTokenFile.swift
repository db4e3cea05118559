import PingBase
import PingCrypto
import PingOAuth
import PingPlatform
import PingTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// The token cache file format, version 4:
///
/// ```
/// offset 0   4 bytes  magic "PCLI"
/// offset 4   1 byte   format version (4)
/// offset 5   3 bytes  zero (reserved)
/// offset 8  32 bytes  BLAKE2b-256 of the profile's bound fields (`Profile.bindingBytes`)
/// offset 40 24 bytes  XChaCha20-Poly1305 nonce, random per write
/// offset 64  …        ciphertext of the token set (`CompactTokenSet`), then the 16-byte Poly1305 tag
/// ```
///
/// The associated data is the whole header (so the binding digest too) and the profile name: a file
/// copied to another profile, or encrypted under another key, fails to decrypt; a file that decrypts
/// but whose digest differs from the current `profile.json` means the profile was changed outside
/// pingcli. Version 3 (pingcli 0.1) is the same but for the digest, SHA-256: it is still read, and the
/// next write (a refresh, a login) replaces it with version 4 (BLAKE2b costs `token --raw` about 55,000
/// instructions fewer, docs/performance.md). Formats 1 and 2 were never released: a file in those or any
/// other version is refused whole (`olderFormat`, `unsupportedVersion`), never read with the binding
/// skipped: a binding that an older file could skip would be no binding.
public enum EncryptedTokenFile {
    package static let magic: [UInt8] = Array("PCLI".utf8)
    package static let version: UInt8 = 4
    /// The oldest version read: 3, the format pingcli 0.1 wrote.
    package static let oldestReadVersion: UInt8 = 3
    package static let headerLength = 8
    package static let digestLength = 32

    package static func header(version: UInt8 = version) -> [UInt8] { magic + [version, 0, 0, 0] }

    /// The associated data: the header with the binding digest, and the profile name.
    package static func associatedData(profile: ProfileName, digest: [UInt8], version: UInt8 = version) -> [UInt8] {
        header(version: version) + digest + Array("\u{0}profile=\(profile.value)".utf8)
    }

    /// The binding digest a file of `version` carries for `profile`.
    package static func bindingDigest(_ profile: Profile, version: UInt8) -> [UInt8] {
        version == 3 ? profile.bindingDigestSHA256 : profile.bindingDigest
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
    }

    /// Encrypts a token set under `key`, bound to the profile's name and bound fields.
    package static func encode(_ tokens: TokenSet, key: [UInt8], name: ProfileName, profile: Profile) -> [UInt8] {
        var plaintext = CompactTokenSet.encode(tokens)
        defer { Sodium.wipe(&plaintext) }
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let digest = profile.bindingDigest
        let ciphertext = Sodium.seal(
            plaintext: plaintext, associatedData: associatedData(profile: name, digest: digest), nonce: nonce, key: key)
        return header() + digest + nonce + ciphertext
    }

    /// Decrypts and decodes a token cache file, and checks that `profile` is the one it was written for.
    public static func decode(_ bytes: [UInt8], key: [UInt8], name: ProfileName, profile: Profile) throws(DecodeError) -> TokenSet {
        guard bytes.count >= magic.count else { throw .truncated }
        guard Array(bytes.prefix(magic.count)) == magic else { throw .notATokenFile }
        guard bytes.count > headerLength else { throw .truncated }
        let fileVersion = bytes[4]
        guard fileVersion <= version else { throw .unsupportedVersion(fileVersion) }
        guard fileVersion >= oldestReadVersion else { throw .olderFormat(fileVersion) }
        guard bytes[5] == 0, bytes[6] == 0, bytes[7] == 0 else { throw .notATokenFile }
        let nonceStart = headerLength + digestLength
        guard bytes.count >= nonceStart + Sodium.aeadNonceLength + Sodium.aeadTagLength else { throw .truncated }
        let storedDigest = Array(bytes[headerLength..<nonceStart])
        let nonce = Array(bytes[nonceStart..<(nonceStart + Sodium.aeadNonceLength)])
        let ciphertext = Array(bytes[(nonceStart + Sodium.aeadNonceLength)...])
        guard
            var plaintext = Sodium.open(
                ciphertext: ciphertext, associatedData: associatedData(profile: name, digest: storedDigest, version: fileVersion),
                nonce: nonce, key: key)
        else { throw .cannotDecrypt }
        defer { Sodium.wipe(&plaintext) }
        guard Sodium.constantTimeEquals(storedDigest, bindingDigest(profile, version: fileVersion)) else { throw .profileChanged }
        guard let tokens = CompactTokenSet.decode(plaintext) else { throw .notATokenSet }
        return tokens
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
        }
    }

    /// One line naming the file and the fix; never any content of the file.
    /// `profileFile`: the profile's settings, named when they no longer match (default: beside `path`).
    package func message(path: String, profile: ProfileName, profileFile: String? = nil) -> String {
        let fix = "run pingcli login --profile \(profile) to replace it"
        return switch self {
        case .truncated: "token cache \(path) is truncated: \(fix)"
        case .notATokenFile: "\(path) is not a pingcli token cache: \(fix)"
        case .unsupportedVersion(let version):
            "token cache \(path) has format version \(version), which this pingcli cannot read: upgrade pingcli, or \(fix)"
        case .olderFormat(let version):
            "token cache \(path) was written by an older pingcli (format \(version)), which this one does not read: run pingcli login --profile \(profile)"
        case .cannotDecrypt:
            "token cache \(path) cannot be decrypted: it was modified, copied from another profile or issuer, or encrypted with another key: \(fix)"
        case .notATokenSet: "token cache \(path) decrypted but holds no token set: \(fix)"
        case .profileChanged:
            "profile file \(profileFile ?? FileSystem.parent(of: path) + "/profile.json") was changed outside pingcli (its issuer, client id, endpoints or CA file differ from those the token cache was saved with), so no token is sent: run pingcli login --profile \(profile)"
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
