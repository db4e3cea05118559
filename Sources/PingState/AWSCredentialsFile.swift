import PingAWS
import PingBase
import PingCrypto
import PingPlatform

/// The cache of AWS credentials (`aws credential-process`, `aws env`) beside the profile's `tokens.enc`,
/// under the same key, lock and binding, in the layout of `targeted-tokens.enc`:
///
/// ```
/// offset 0   4 bytes  magic "PCLA"
/// offset 4   1 byte   format version (1)
/// offset 5   3 bytes  zero (reserved)
/// offset 8  32 bytes  BLAKE2b-256 of the profile's bound fields (`Profile.bindingDigest`)
/// offset 40 24 bytes  XChaCha20-Poly1305 nonce, random per write
/// offset 64  …        ciphertext of the records, then the 16-byte Poly1305 tag
/// record  4 bytes length (big-endian) + the key (role ARN, session name, duration), 4 bytes length +
///         the credentials (access key id, secret key, session token, expiry: NUL-separated)
/// ```
///
/// The associated data is `tokens.enc`'s header and profile name with `aws` and the session's id appended,
/// so this file decrypts as no other, and credentials of an earlier sign-in (a file put back after a
/// logout or a new login) do not decrypt at all. The credentials are read back through their gate
/// (`AWSCredentials`); anything that does not decrypt, decode or match reads as an empty cache: it only
/// costs a request to STS.
package enum AWSCredentialsFile {
    package static let magic: [UInt8] = Array("PCLA".utf8)
    package static let version: UInt8 = 1
    /// Records kept: the newest, expired ones dropped first.
    package static let maximumRecords = 16

    /// The record's key: what the credentials were asked for.
    package static func key(role: RoleARN, sessionName: RoleSessionName, duration: Int?) -> String {
        "role=\(role.value)\nsession=\(sessionName.value)\nduration=\(duration.map(String.init) ?? "default")"
    }

    static let layout = SessionSideFile(magic: magic, version: version, purpose: "aws", maximumRecords: maximumRecords)

    package static func encode(
        _ records: [String: AWSCredentials], key: [UInt8], name: ProfileName, profile: Profile, session: [UInt8]?
    ) -> [UInt8] {
        let encoded = records.map { target, credentials in
            (
                target,
                Array(
                    [credentials.accessKeyID, credentials.secretAccessKey, credentials.sessionToken, String(Int(credentials.expiration))]
                        .joined(separator: "\u{0}").utf8)
            )
        }
        return layout.seal(encoded, key: key, name: name, profile: profile, session: session)
    }

    /// The records, or nil when the bytes are not an AWS cache of this profile and session under this key.
    package static func decode(
        _ bytes: [UInt8], key: [UInt8], name: ProfileName, profile: Profile, session: [UInt8]?
    ) -> [String: AWSCredentials]? {
        layout.open(
            bytes, key: key, name: name, session: session, digest: { $0 == version ? profile.bindingDigest : nil },
            decode: credentials)
    }

    static func credentials(_ bytes: ArraySlice<UInt8>) -> AWSCredentials? {
        let parts = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard parts.count == 4, let expiration = Int(parts[3]) else { return nil }
        return try? AWSCredentials(accessKeyID: parts[0], secretAccessKey: parts[1], sessionToken: parts[2], expiration: Double(expiration))
    }
}

extension AWSCredentialsFile: SessionSideCache {
    package static func path(_ paths: Paths, _ name: ProfileName) -> String { paths.awsCredentialsFile(name) }
    package static func isLive(_ record: AWSCredentials, now: Double) -> Bool { record.expiration > now }
    /// The longest-lived first.
    package static func keptBefore(_ first: AWSCredentials, _ second: AWSCredentials) -> Bool { first.expiration > second.expiration }
}

extension Paths {
    /// AWS credentials from the profile's ID token, beside `tokens.enc`.
    public func awsCredentialsFile(_ profile: ProfileName) -> String { FileSystem.parent(of: tokensFile(profile)) + "/aws-credentials.enc" }
}
