#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The token cache file format, version 1:
///
/// ```
/// offset 0   4 bytes  magic "PCLI"
/// offset 4   1 byte   format version (1)
/// offset 5   3 bytes  zero (reserved)
/// offset 8  24 bytes  XChaCha20-Poly1305 nonce, random per write
/// offset 32  …        ciphertext of the TokenSet JSON, then the 16-byte Poly1305 tag
/// ```
///
/// The associated data binds the header, the profile name, the issuer and the client id, so a file
/// copied to another profile, or left behind after the profile changed issuer, fails to decrypt.
public enum EncryptedTokenFile {
    static let magic: [UInt8] = Array("PCLI".utf8)
    static let version: UInt8 = 1
    static let headerLength = 8

    static func header() -> [UInt8] { magic + [version, 0, 0, 0] }

    static func associatedData(profile: ProfileName, issuer: String, clientID: String) -> [UInt8] {
        header() + Array("\u{0}profile=\(profile.value)\u{0}issuer=\(issuer)\u{0}client_id=\(clientID)".utf8)
    }

    public enum DecodeError: Error, Sendable, Equatable {
        case truncated
        case notATokenFile
        case unsupportedVersion(UInt8)
        /// Authentication failed: edited, copied from another profile, or another key.
        case cannotDecrypt
        case notATokenSet
    }

    /// Encrypts a token set under `key`.
    public static func encode(
        _ tokens: TokenSet, key: [UInt8], profile: ProfileName, issuer: String, clientID: String
    )
        -> [UInt8]
    {
        var plaintext = Array((try? JSONEncoder().encode(tokens)) ?? Data())
        defer { Sodium.wipe(&plaintext) }
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let ciphertext = Sodium.seal(
            plaintext: plaintext, associatedData: associatedData(profile: profile, issuer: issuer, clientID: clientID),
            nonce: nonce, key: key)
        return header() + nonce + ciphertext
    }

    /// Decrypts and decodes a token cache file.
    public static func decode(
        _ bytes: [UInt8], key: [UInt8], profile: ProfileName, issuer: String, clientID: String
    )
        throws(DecodeError) -> TokenSet
    {
        guard bytes.count >= magic.count else { throw .truncated }
        guard Array(bytes.prefix(magic.count)) == magic else { throw .notATokenFile }
        guard bytes.count > headerLength else { throw .truncated }
        guard bytes[4] == version else { throw .unsupportedVersion(bytes[4]) }
        guard bytes[5] == 0, bytes[6] == 0, bytes[7] == 0 else { throw .notATokenFile }
        guard bytes.count >= headerLength + Sodium.aeadNonceLength + Sodium.aeadTagLength else { throw .truncated }
        let nonce = Array(bytes[headerLength..<(headerLength + Sodium.aeadNonceLength)])
        let ciphertext = Array(bytes[(headerLength + Sodium.aeadNonceLength)...])
        guard
            var plaintext = Sodium.open(
                ciphertext: ciphertext,
                associatedData: associatedData(profile: profile, issuer: issuer, clientID: clientID), nonce: nonce,
                key: key)
        else { throw .cannotDecrypt }
        defer { Sodium.wipe(&plaintext) }
        guard let tokens = try? JSONDecoder().decode(TokenSet.self, from: Data(plaintext)), tokens.hasPlausibleTimes
        else { throw .notATokenSet }
        return tokens
    }
}

extension EncryptedTokenFile.DecodeError {
    /// One line naming the file and the fix; never any content of the file.
    func message(path: String, profile: ProfileName) -> String {
        let fix = "run pingcli login --profile \(profile) to replace it"
        return switch self {
        case .truncated: "token cache \(path) is truncated: \(fix)"
        case .notATokenFile: "\(path) is not a pingcli token cache: \(fix)"
        case .unsupportedVersion(let version):
            "token cache \(path) has format version \(version), which this pingcli cannot read: upgrade pingcli, or \(fix)"
        case .cannotDecrypt:
            "token cache \(path) cannot be decrypted: it was modified, copied from another profile or issuer, or encrypted with another key: \(fix)"
        case .notATokenSet: "token cache \(path) decrypted but holds no token set: \(fix)"
        }
    }
}

extension TokenSet {
    /// Times a pingcli could have written: finite, after 1970 and before the year 10000. Anything else
    /// in an authenticated file means it was not written by a sane pingcli; reading it as a token set
    /// would only move the surprise further down.
    var hasPlausibleTimes: Bool {
        [obtainedAt, expiresAt ?? obtainedAt].allSatisfy { $0.isFinite && $0 >= 0 && $0 <= latestDisplayableTime }
    }
}
