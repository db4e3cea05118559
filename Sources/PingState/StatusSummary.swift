import PingBase
import PingCrypto
import PingOAuth
import PingPlatform

/// What one line of `status --all` (and of `profiles`) shows about a profile, as the full read of its
/// files would find it: the issuer, client id and grant from `profile.json`; who signed in, the access
/// token's expiry and what can renew it from the token cache.
///
/// `writeTokens` keeps it beside the cache (`status.enc`), sealed under the cache key and bound to the
/// profile's name, with the BLAKE2b-256 of the exact bytes of `profile.json` and of the cache it was made
/// from and the cache's generation. It is written only when `profile.json` as it is on disk passed every
/// gate and matched the cache's binding. A table reads it instead of parsing `profile.json` and
/// decrypting the cache only when both files are still those bytes (read through the same file gates),
/// the recorded generation is not newer, and it decrypts under this key: then the full read would find
/// exactly this. Anything else (no summary, another or a damaged one, either file changed, a rollback, a
/// gate or the key failing) falls back to the full read, which reports what is wrong as before.
public struct StatusSummary: Sendable, Equatable {
    public var issuer: String
    public var clientID: String
    /// `authorization_code`, `client_credentials` or the device grant's URN, as `profile.json` says.
    public var grant: String
    /// false: the sealed, empty record `logout` leaves (not logged in, the settings kept).
    public var signedIn: Bool
    /// The ID token's `sub` (else the profile's, for a sign-in without one) and its display name
    /// (`name`, else `preferred_username`, else `email`).
    public var subject: String?
    public var name: String?
    public var expiresAt: Double?
    public var refreshToken: Bool
    /// A machine's session, renewed by asking again with its secret or certificate (RFC 8705).
    public var renewable: Bool
    /// What `status --json` shows beyond the line (nil: not kept, and a JSON report reads the files).
    public var details: StatusDetails?

    /// The line a full read makes of `profile` and `tokens` (nil: signed out), with the ID token's
    /// claims when it has one that decodes (`claims(of:)`).
    public init(profile: Profile, tokens: TokenSet?, claims: IDTokenClaims?) {
        issuer = profile.issuer
        clientID = profile.clientID
        grant = profile.grantType?.rawValue ?? "authorization_code"
        signedIn = tokens != nil
        refreshToken = tokens?.refreshToken != nil
        expiresAt = tokens?.expiresAt
        renewable =
            profile.grantType == .clientCredentials
            && (tokens?.clientSecret != nil || profile.tokenEndpointAuthMethod?.isMutualTLS == true)
        details = tokens.map { StatusDetails(profile: profile, tokens: $0, claims: claims) } ?? StatusDetails(profile: profile)
        guard tokens != nil else { return }
        if let claims {
            subject = claims.subject
            name = claims.name ?? claims.preferredUsername ?? claims.email
        } else {
            subject = profile.subject
        }
    }

    /// The claims of the set's ID token, nil when it has none or one that does not decode.
    public static func claims(of tokens: TokenSet?) -> IDTokenClaims? {
        tokens?.idToken.flatMap { try? IDTokenClaims.decode($0.value) }
    }

    package init(issuer: String, clientID: String, grant: String, signedIn: Bool) {
        (self.issuer, self.clientID, self.grant, self.signedIn) = (issuer, clientID, grant, signedIn)
        refreshToken = false
        renewable = false
    }

    /// Whether the session can still hand out a token without a new login.
    public func isLive(now: Double) -> Bool { refreshToken || renewable || (expiresAt.map { $0 > now } ?? true) }
}

/// The summary's file: `magic "PCLS"`, version 3, three zero bytes, a 24-byte XChaCha20-Poly1305 nonce,
/// then the sealed body (associated data: the 8-byte header and `\0profile=<name>`). The body: the
/// BLAKE2b-256 of `profile.json` and of the cache, the cache's generation (8 bytes, big-endian), the
/// access token the cache holds (a presence byte, a 4-byte length and its bytes; for the front, which
/// answers `token --raw` from it, Sources/pingcli-front), one byte of flags (1 signed in, 2 a refresh
/// token, 4 renewable, 8 an expiry), the expiry (an IEEE 754 double, big-endian), then issuer, client id,
/// grant, subject and name, each a presence byte, a 4-byte length and UTF-8. Version 2 (no token) is not
/// read: the table reads the files in full until the next write replaces it.
package enum StatusSummaryFile {
    package static let header: [UInt8] = Array("PCLS".utf8) + [3, 0, 0, 0]

    package struct Sealed {
        package var profileDigest: [UInt8]
        package var cacheDigest: [UInt8]
        package var generation: UInt64
        /// The cache's access token: written for the front, stepped over (never made a string) when read.
        package var accessToken: String? = nil
        package var summary: StatusSummary
    }

    package static func associatedData(_ name: ProfileName) -> [UInt8] { header + Array("\u{0}profile=\(name.value)".utf8) }

    package static func encode(_ sealed: Sealed, key: [UInt8], name: ProfileName) -> [UInt8] {
        var body = sealed.profileDigest + sealed.cacheDigest
        appendNumber(sealed.generation, width: 8, to: &body)
        appendText(sealed.accessToken, to: &body)
        appendFields(sealed.summary, to: &body)
        defer { Sodium.wipe(&body) }
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        return header + nonce + Sodium.seal(plaintext: body, associatedData: associatedData(name), nonce: nonce, key: key)
    }

    /// `value`'s low `width` bytes, big-endian.
    package static func appendNumber(_ value: UInt64, width: Int, to body: inout [UInt8]) {
        for index in 0..<width { body.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - index)))) }
    }

    /// The summary's fields as the body holds them: the flags, the expiry, the five strings, the details
    /// (the status index, `StatusIndex`, keeps the same after each entry's fingerprints).
    package static func appendFields(_ summary: StatusSummary, to body: inout [UInt8]) {
        let flags = (summary.signedIn ? 1 : 0) | (summary.refreshToken ? 2 : 0) | (summary.renewable ? 4 : 0)
        body.append(UInt8(flags | (summary.expiresAt == nil ? 0 : 8)))
        appendNumber((summary.expiresAt ?? 0).bitPattern, width: 8, to: &body)
        for text in [summary.issuer, summary.clientID, summary.grant, summary.subject, summary.name] { appendText(text, to: &body) }
        appendDetails(summary.details, to: &body)
    }

    /// What `appendFields` wrote; nil when malformed. `details` false steps over the details without
    /// making them (the summary's `details` is then nil).
    package static func fields(_ reader: inout RecordReader, details wanted: Bool = true) -> StatusSummary? {
        guard let flags = reader.integer(1), flags & 0xF0 == 0, let expiry = reader.integer(8), let issuer = text(&reader),
            let clientID = text(&reader), let grant = text(&reader), let subject = optionalText(&reader),
            let name = optionalText(&reader), let details = wanted ? details(&reader) : (skipDetails(&reader) ? .some(nil) : nil)
        else { return nil }
        var summary = StatusSummary(issuer: issuer, clientID: clientID, grant: grant, signedIn: flags & 1 != 0)
        summary.details = details
        (summary.subject, summary.name) = (subject, name)
        (summary.refreshToken, summary.renewable) = (flags & 2 != 0, flags & 4 != 0)
        summary.expiresAt = flags & 8 != 0 ? Double(bitPattern: expiry) : nil
        return summary
    }

    /// nil: not a summary, another profile's, another key's, or altered.
    package static func decode(_ bytes: [UInt8], key: [UInt8], name: ProfileName) -> Sealed? {
        let start = header.count + Sodium.aeadNonceLength
        guard bytes.count >= start + Sodium.aeadTagLength, Array(bytes[..<header.count]) == header,
            var body = Sodium.open(
                ciphertext: Array(bytes[start...]), associatedData: associatedData(name), nonce: Array(bytes[header.count..<start]),
                key: key)
        else { return nil }
        defer { Sodium.wipe(&body) }
        var reader = RecordReader(body, maximumField: 0)
        guard let profileDigest = reader.take(32), let cacheDigest = reader.take(32), let generation = reader.integer(8),
            skipText(&reader), let summary = fields(&reader), reader.atEnd
        else { return nil }
        return Sealed(profileDigest: Array(profileDigest), cacheDigest: Array(cacheDigest), generation: generation, summary: summary)
    }

    /// The body's strings: a presence byte, then a 4-byte length and UTF-8 (`.some(nil)`: absent; nil:
    /// malformed). Read by index over the one array: no array is made per field.
    package static func optionalText(_ reader: inout RecordReader) -> String?? {
        guard let present = reader.integer(1), present <= 1 else { return nil }
        if present == 0 { return .some(nil) }
        guard let count = reader.integer(4), let bytes = reader.take(Int(count)), let text = validUTF8String(bytes) else { return nil }
        return .some(text)
    }

    /// Steps over an optional string (the access token) without making it; false when malformed.
    package static func skipText(_ reader: inout RecordReader) -> Bool {
        guard let present = reader.integer(1), present <= 1 else { return false }
        guard present == 1 else { return true }
        guard let count = reader.integer(4), reader.take(Int(count)) != nil else { return false }
        return true
    }

    /// A string that must be present; nil when absent or malformed.
    package static func text(_ reader: inout RecordReader) -> String? { optionalText(&reader) ?? nil }
}

extension Paths {
    /// The profile's status summary (`StatusSummary`), beside its cache.
    public func statusSummaryFile(_ profile: ProfileName) -> String { profileDirectory(profile) + "/status.enc" }
}

extension TokenStore {
    /// The summary of the profile's line, or nil when the full read must be made (see `StatusSummary`).
    /// Reads the summary, `profile.json`, the cache and the generation record through their usual gates;
    /// a gate that refuses, like every other mismatch, is left to the full read to report.
    public func readStatusSummary(_ name: ProfileName, key: CommandKey) -> StatusSummary? {
        guard let bytes = try? FileSystem.read(paths.statusSummaryFile(name), limit: 256 * 1024, protection: .secret),
            let profileBytes = try? FileSystem.read(paths.profileFile(name), protection: .owned),
            let cacheBytes = try? FileSystem.read(paths.tokensFile(name), protection: .secret),
            let recorded = try? recordedGeneration(name), let secret = try? key.load(),
            let sealed = StatusSummaryFile.decode(bytes, key: secret, name: name), sealed.generation >= recorded,
            Sodium.constantTimeEquals(sealed.cacheDigest, Sodium.blake2b256(cacheBytes)),
            Sodium.constantTimeEquals(sealed.profileDigest, Sodium.blake2b256(profileBytes))
        else { return nil }
        return sealed.summary
    }

    /// After a cache write (`bytes`, generation `generation`, sealed for `profile`): the summary of that
    /// cache, when `profile.json` on disk passes its gates and is the profile the cache is bound to;
    /// else any older summary is removed. Never fails the write: a summary missing or out of date only
    /// sends the table to the full read.
    package func writeStatusSummary(
        _ tokens: TokenSet?, _ name: ProfileName, profile: Profile, key: [UInt8], cache bytes: [UInt8], generation: UInt64
    ) {
        let path = paths.statusSummaryFile(name)
        FileSystem.removeTemporaryFiles(of: path)
        // What a full read of exactly these bytes finds (the profile through its gates, the cache decrypted,
        // bound to it and decoded through every token's gate): the front hands out the token on its word.
        guard let profileBytes = try? FileSystem.read(paths.profileFile(name), protection: .owned),
            let saved = try? self.profile(fromSaved: profileBytes, name: name), saved.bindingDigest == profile.bindingDigest,
            let record = try? EncryptedTokenFile.decodeRecord(bytes, key: key, name: name, profile: saved),
            record.generation == generation, record.tokens == tokens
        else {
            try? FileSystem.remove(path)
            return
        }
        let sealed = StatusSummaryFile.Sealed(
            profileDigest: Sodium.blake2b256(profileBytes), cacheDigest: Sodium.blake2b256(bytes), generation: generation,
            accessToken: record.tokens?.accessToken.value,
            summary: StatusSummary(profile: saved, tokens: record.tokens, claims: StatusSummary.claims(of: record.tokens)))
        if (try? FileSystem.atomicWrite(path, StatusSummaryFile.encode(sealed, key: key, name: name), durable: false)) == nil {
            try? FileSystem.remove(path)
        }
    }
}
