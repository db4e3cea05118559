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

    static func associatedData(_ header: [UInt8], name: ProfileName, session: [UInt8]?) -> [UInt8] {
        header + Array("\u{0}profile=\(name.value)\u{0}aws".utf8) + (session.map { Array("\u{0}session=".utf8) + $0 } ?? [])
    }

    package static func encode(
        _ records: [String: AWSCredentials], key: [UInt8], name: ProfileName, profile: Profile, session: [UInt8]?
    ) -> [UInt8] {
        var plaintext: [UInt8] = []
        defer { Sodium.wipe(&plaintext) }
        func append(_ field: [UInt8]) {
            let count = UInt32(field.count)
            plaintext += [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] + field
        }
        for (target, credentials) in records.sorted(by: { $0.key < $1.key }) {
            append(Array(target.utf8))
            var value = Array(
                [credentials.accessKeyID, credentials.secretAccessKey, credentials.sessionToken, String(Int(credentials.expiration))]
                    .joined(separator: "\u{0}").utf8)
            append(value)
            Sodium.wipe(&value)
        }
        let header = magic + [version, 0, 0, 0] + profile.bindingDigest
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        return header + nonce
            + Sodium.seal(
                plaintext: plaintext, associatedData: associatedData(header, name: name, session: session), nonce: nonce, key: key)
    }

    /// The records, or nil when the bytes are not an AWS cache of this profile and session under this key.
    package static func decode(
        _ bytes: [UInt8], key: [UInt8], name: ProfileName, profile: Profile, session: [UInt8]?
    ) -> [String: AWSCredentials]? {
        let headerLength = 8 + 32
        guard bytes.count >= headerLength + Sodium.aeadNonceLength + Sodium.aeadTagLength, Array(bytes[0..<4]) == magic,
            bytes[4] == version, bytes[5..<8].allSatisfy({ $0 == 0 })
        else { return nil }
        let header = Array(bytes[0..<headerLength])
        guard Sodium.constantTimeEquals(Array(header[8...]), profile.bindingDigest) else { return nil }
        let nonce = Array(bytes[headerLength..<(headerLength + Sodium.aeadNonceLength)])
        guard
            var plaintext = Sodium.open(
                ciphertext: Array(bytes[(headerLength + Sodium.aeadNonceLength)...]),
                associatedData: associatedData(header, name: name, session: session), nonce: nonce, key: key)
        else { return nil }
        defer { Sodium.wipe(&plaintext) }
        var records: [String: AWSCredentials] = [:]
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
            guard let target = field().flatMap(validUTF8String), let credentials = field().flatMap(Self.credentials),
                records.count < maximumRecords
            else { return nil }
            records[target] = credentials
        }
        return records
    }

    static func credentials(_ bytes: ArraySlice<UInt8>) -> AWSCredentials? {
        let parts = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard parts.count == 4, let expiration = Int(parts[3]) else { return nil }
        return try? AWSCredentials(accessKeyID: parts[0], secretAccessKey: parts[1], sessionToken: parts[2], expiration: Double(expiration))
    }
}

extension TokenStore {
    /// The AWS credentials cached for `session` (the profile's `TokenSet.sessionID`): empty when none,
    /// or when the file is unreadable as a cache of this session.
    package func readAWSCredentials(
        _ name: ProfileName, profile: Profile, session: [UInt8]?, key: CommandKey
    ) throws(StoreFailure) -> [String: AWSCredentials] {
        guard
            let bytes = try passing({ () throws(PingCLIError) in try FileSystem.read(paths.awsCredentialsFile(name), protection: .secret) })
        else { return [:] }
        return AWSCredentialsFile.decode(bytes, key: try key.load(), name: name, profile: profile, session: session) ?? [:]
    }

    /// Saves the records, without those expired at `now` and at most `maximumRecords` of the longest-lived.
    /// The caller holds the profile's lock.
    package func writeAWSCredentials(
        _ records: [String: AWSCredentials], _ name: ProfileName, profile: Profile, session: [UInt8]?, key: CommandKey, now: Double
    ) throws(StoreFailure) {
        let kept = records.filter { $0.value.expiration > now }.sorted { $0.value.expiration > $1.value.expiration }
            .prefix(AWSCredentialsFile.maximumRecords)
        let path = paths.awsCredentialsFile(name)
        let bytes = AWSCredentialsFile.encode(
            Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) }), key: try key.load(create: true), name: name,
            profile: profile, session: session)
        try passing { () throws(PingCLIError) in
            FileSystem.removeTemporaryFiles(of: path)
            try FileSystem.atomicWrite(path, bytes)
        }
    }
}

extension Paths {
    /// AWS credentials from the profile's ID token, beside `tokens.enc`.
    public func awsCredentialsFile(_ profile: ProfileName) -> String { FileSystem.parent(of: tokensFile(profile)) + "/aws-credentials.enc" }
}
