import PingBase
import PingCrypto
import PingOAuth
import PingPlatform

/// The cache of access tokens for a narrower scope, a resource or an audience (`token --scope`,
/// `--resource`, `--audience`), beside the profile's `tokens.enc`, under the same key, lock and binding:
///
/// ```
/// offset 0   4 bytes  magic "PCLT"
/// offset 4   1 byte   format version (2)
/// offset 5   3 bytes  zero (reserved)
/// offset 8  32 bytes  BLAKE2b-256 of the profile's bound fields (`Profile.bindingBytes`; SHA-256 in
///                     version 1, still read)
/// offset 40 24 bytes  XChaCha20-Poly1305 nonce, random per write
/// offset 64  …        ciphertext of the records, then the 16-byte Poly1305 tag
/// record  4 bytes length (big-endian) + the target's key, 4 bytes length + a `CompactTokenSet`
/// ```
///
/// The associated data is `tokens.enc`'s (header, digest, profile name) with `targeted` and the
/// session's id (`TokenSet.sessionID`, drawn at login) appended, so neither file decrypts as the other,
/// and narrower tokens of an earlier session (a file restored after a logout or a new login) do not
/// decrypt at all. A record holds an access token, its type, expiry and scope: never
/// a refresh token (the session's, in `tokens.enc`, obtains them all) nor the DPoP key. Anything that
/// does not decrypt, decode or match the profile reads as an empty cache: it only costs a request.
package enum TargetedTokenFile {
    package static let magic: [UInt8] = Array("PCLT".utf8)
    package static let version: UInt8 = 2
    /// Records kept: the newest, expired ones dropped first.
    package static let maximumRecords = 32
    static let layout = SessionSideFile(magic: magic, version: version, purpose: "targeted", maximumRecords: maximumRecords)

    package static func associatedData(_ header: [UInt8], name: ProfileName, session: [UInt8]?) -> [UInt8] {
        layout.associatedData(header, name: name, session: session)
    }

    package static func encode(
        _ records: [String: TokenSet], key: [UInt8], name: ProfileName, profile: Profile, session: [UInt8]?
    ) -> [UInt8] {
        layout.seal(records.map { ($0.key, CompactTokenSet.encode($0.value)) }, key: key, name: name, profile: profile, session: session)
    }

    /// The records, or nil when the bytes are not a targeted cache of this profile under this key.
    package static func decode(
        _ bytes: [UInt8], key: [UInt8], name: ProfileName, profile: Profile, session: [UInt8]?
    ) -> [String: TokenSet]? {
        // Version 1 bound the profile with SHA-256; it is still read.
        layout.open(
            bytes, key: key, name: name, session: session,
            digest: { $0 == 1 ? profile.bindingDigestSHA256 : $0 == version ? profile.bindingDigest : nil },
            decode: { (slice: ArraySlice<UInt8>) -> TokenSet? in CompactTokenSet.decode(Array(slice)) })
    }
}

extension TargetedTokenFile: SessionSideCache {
    package static func path(_ paths: Paths, _ name: ProfileName) -> String { paths.targetedTokensFile(name) }
    package static func isLive(_ record: TokenSet, now: Double) -> Bool { !record.isExpired(now: now) }
    /// The newest first.
    package static func keptBefore(_ first: TokenSet, _ second: TokenSet) -> Bool { first.obtainedAt > second.obtainedAt }
}

extension Paths {
    /// Access tokens for narrower scopes, resources and audiences, beside `tokens.enc`.
    public func targetedTokensFile(_ profile: ProfileName) -> String { FileSystem.parent(of: tokensFile(profile)) + "/targeted-tokens.enc" }
}

/// One cached targeted token as `status` shows it: the target and when its token expires, never the token.
package struct TargetedRecord: Sendable, Equatable {
    package var target: TokenTarget
    package var expiresAt: Double?

    /// The target a record's key names, or nil when the key does not parse back.
    package static func target(ofKey key: String) -> TokenTarget? {
        var fields: [Substring: String] = [:]
        for line in key.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "="), line.index(after: equals) < line.endIndex else { continue }
            fields[line[..<equals]] = String(line[line.index(after: equals)...])
        }
        return try? TokenTarget(scope: fields["scope"], resource: fields["resource"], audience: fields["audience"])
    }

    /// The records of a targeted cache, soonest expiry first; a key that does not parse back is left out.
    package static func list(_ records: [String: TokenSet]) -> [TargetedRecord] {
        records.compactMap { key, tokens in
            target(ofKey: key).map { TargetedRecord(target: $0, expiresAt: tokens.expiresAt) }
        }.sorted { ($0.expiresAt ?? .infinity, $0.target.summary) < ($1.expiresAt ?? .infinity, $1.target.summary) }
    }

    package var json: JSONValue {
        .object([
            "expires_at": expiresAt.map { .string(formatUTC($0)) } ?? .null, "scope": target.scope.map { .string($0) } ?? .null,
            "resource": target.resource.map { .string($0) } ?? .null, "audience": target.audience.map { .string($0) } ?? .null,
        ])
    }

    package func text(now: Double) -> String {
        "\(target.summary) (\(expiresAt.map { ($0 > now ? "expires " : "") + describeInterval($0 - now) } ?? "no expiry given"))"
    }
}
