#if canImport(Glibc)
    import Glibc
#endif

/// The token cache file format, version 3:
///
/// ```
/// offset 0   4 bytes  magic "PCLI"
/// offset 4   1 byte   format version (3)
/// offset 5   3 bytes  zero (reserved)
/// offset 8  32 bytes  SHA-256 of the profile's bound fields (`Profile.bindingBytes`)
/// offset 40 24 bytes  XChaCha20-Poly1305 nonce, random per write
/// offset 64  …        ciphertext of the token set (`CompactTokenSet`), then the 16-byte Poly1305 tag
/// ```
///
/// The associated data is the whole header (so the binding digest too) and the profile name: a file
/// copied to another profile, or encrypted under another key, fails to decrypt; a file that decrypts
/// but whose digest differs from the current `profile.json` means the profile was changed outside
/// pingcli. Older files still read, and the next write replaces them with version 3: version 2 has the
/// same header but the token set as JSON; version 1 has no digest (the issuer and client id are in the
/// associated data) and JSON.
public enum EncryptedTokenFile {
    static let magic: [UInt8] = Array("PCLI".utf8)
    static let version: UInt8 = 3
    static let headerLength = 8
    static let digestLength = 32

    static func header(version: UInt8 = version) -> [UInt8] { magic + [version, 0, 0, 0] }

    /// Version 1's associated data.
    static func associatedDataV1(profile: ProfileName, issuer: String, clientID: String) -> [UInt8] {
        header(version: 1) + Array("\u{0}profile=\(profile.value)\u{0}issuer=\(issuer)\u{0}client_id=\(clientID)".utf8)
    }

    /// Versions 2 and 3's associated data: the header with the binding digest, and the profile name.
    static func associatedData(profile: ProfileName, digest: [UInt8], version: UInt8 = version) -> [UInt8] {
        header(version: version) + digest + Array("\u{0}profile=\(profile.value)".utf8)
    }

    public enum DecodeError: Error, Sendable, Equatable {
        case truncated
        case notATokenFile
        case unsupportedVersion(UInt8)
        /// Authentication failed: edited, copied from another profile, or another key.
        case cannotDecrypt
        case notATokenSet
        /// The file is authentic, but `profile.json` no longer matches the profile it was written for.
        case profileChanged
    }

    /// Encrypts a token set under `key`, bound to the profile's name and bound fields. `version` 2 (the
    /// token set as JSON) is a test seam, to check that files earlier releases wrote still read.
    static func encode(
        _ tokens: TokenSet, key: [UInt8], name: ProfileName, profile: Profile, version: UInt8 = version
    ) -> [UInt8] {
        precondition(version == 2 || version == Self.version, "only formats 2 and 3 share this header")
        var plaintext = version == 2 ? tokens.legacyJSON : CompactTokenSet.encode(tokens)
        defer { Sodium.wipe(&plaintext) }
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let digest = profile.bindingDigest
        let ciphertext = Sodium.seal(
            plaintext: plaintext, associatedData: associatedData(profile: name, digest: digest, version: version), nonce: nonce,
            key: key)
        return header(version: version) + digest + nonce + ciphertext
    }

    /// Decrypts and decodes a token cache file, and checks that `profile` is the one it was written for.
    public static func decode(_ bytes: [UInt8], key: [UInt8], name: ProfileName, profile: Profile) throws(DecodeError) -> TokenSet {
        guard bytes.count >= magic.count else { throw .truncated }
        guard Array(bytes.prefix(magic.count)) == magic else { throw .notATokenFile }
        guard bytes.count > headerLength else { throw .truncated }
        let fileVersion = bytes[4]
        guard (1...version).contains(fileVersion) else { throw .unsupportedVersion(fileVersion) }
        guard bytes[5] == 0, bytes[6] == 0, bytes[7] == 0 else { throw .notATokenFile }
        let digestLength = fileVersion == 1 ? 0 : Self.digestLength
        let nonceStart = headerLength + digestLength
        guard bytes.count >= nonceStart + Sodium.aeadNonceLength + Sodium.aeadTagLength else { throw .truncated }
        let storedDigest = Array(bytes[headerLength..<nonceStart])
        let nonce = Array(bytes[nonceStart..<(nonceStart + Sodium.aeadNonceLength)])
        let ciphertext = Array(bytes[(nonceStart + Sodium.aeadNonceLength)...])
        let associatedData =
            fileVersion == 1
            ? associatedDataV1(profile: name, issuer: profile.issuer, clientID: profile.clientID)
            : associatedData(profile: name, digest: storedDigest, version: fileVersion)
        guard var plaintext = Sodium.open(ciphertext: ciphertext, associatedData: associatedData, nonce: nonce, key: key)
        else { throw .cannotDecrypt }
        defer { Sodium.wipe(&plaintext) }
        // Version 1 bound only the issuer and client id (checked above); trust on first use for the rest.
        if fileVersion != 1 && !Sodium.constantTimeEquals(storedDigest, profile.bindingDigest) { throw .profileChanged }
        if fileVersion == version {
            guard let tokens = CompactTokenSet.decode(plaintext) else { throw .notATokenSet }
            return tokens
        }
        guard let members = JSONValue.parseObject(plaintext), let tokens = try? TokenSet(saved: SavedObject(members: members)),
            tokens.hasPlausibleTimes
        else { throw .notATokenSet }
        return tokens
    }

    /// Test and upgrade seam: a version 1 file, as pingcli 0.x wrote it.
    static func encodeV1(_ tokens: TokenSet, key: [UInt8], name: ProfileName, profile: Profile) -> [UInt8] {
        var plaintext = tokens.legacyJSON
        defer { Sodium.wipe(&plaintext) }
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let associatedData = associatedDataV1(profile: name, issuer: profile.issuer, clientID: profile.clientID)
        return header(version: 1) + nonce + Sodium.seal(plaintext: plaintext, associatedData: associatedData, nonce: nonce, key: key)
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
        case .profileChanged:
            "profile file \(FileSystem.parent(of: path))/profile.json was changed outside pingcli (its issuer, client id, endpoints or CA file differ from those the token cache was saved with), so no token is sent: run pingcli login --profile \(profile)"
        }
    }
}

extension TokenSet {
    /// The token set as formats 1 and 2 held it: JSON, read through the same gates as format 3.
    init(saved object: SavedObject) throws(SavedProfileError) {
        typealias Key = CodingKeys
        guard let accessToken = try object.optionalChecked(Key.accessToken.rawValue, as: AccessToken.self) else { throw .damaged }
        self.init(
            accessToken: accessToken, tokenType: try object.string(Key.tokenType.rawValue),
            expiresAt: try object.optionalNumber(Key.expiresAt.rawValue),
            refreshToken: try object.optionalChecked(Key.refreshToken.rawValue, as: RefreshToken.self),
            idToken: try object.optionalChecked(Key.idToken.rawValue, as: IDToken.self),
            scope: try object.optionalString(Key.scope.rawValue),
            obtainedAt: try object.number(Key.obtainedAt.rawValue),
            clientSecret: try object.optionalChecked(Key.clientSecret.rawValue, as: ClientSecret.self))
    }

    /// Test seam: the JSON formats 1 and 2 held.
    var legacyJSON: [UInt8] { Array(((try? JSONValueEncoder.encode(self)) ?? .null).rendered(pretty: false).utf8) }

    /// Times a pingcli could have written: finite, after 1970 and before the year 10000. Anything else
    /// in an authenticated file means it was not written by a sane pingcli; reading it as a token set
    /// would only move the surprise further down.
    var hasPlausibleTimes: Bool {
        [obtainedAt, expiresAt ?? obtainedAt].allSatisfy { $0.isFinite && $0 >= 0 && $0 <= latestDisplayableTime }
    }
}
