import PingBase
import PingCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// The claims pingcli reads from an ID token ([OIDC Core §2](https://openid.net/specs/openid-connect-core-1_0.html#IDToken)).
public struct IDTokenClaims: Sendable, Equatable {
    public var issuer: String
    public var subject: String
    public var audiences: [String]
    public var authorizedParty: String?
    public var expiration: Double
    public var issuedAt: Double
    public var nonce: String?
    public var name: String?
    public var preferredUsername: String?
    public var email: String?
    /// Every claim, for `status` and for `userinfo`'s cross-check.
    public var all: [String: JSONValue]
}

/// One failure per rule of [OIDC Core §3.1.3.7](https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation).
public enum IDTokenError: Error, Sendable, Equatable {
    case notThreeParts
    case badBase64URL
    case notJSON
    case missingClaim(String)
    case issuerMismatch(received: String)
    case audienceMismatch
    case authorizedPartyMissing
    case authorizedPartyMismatch
    case expired
    case issuedInFuture
    case nonceMissing
    case nonceMismatch
    case subjectChanged

    public var message: String {
        switch self {
        case .notThreeParts: "the ID token is not a JWT (it must have three dot-separated parts)"
        case .badBase64URL: "the ID token's payload is not valid base64url"
        case .notJSON: "the ID token's payload is not a JSON object"
        case .missingClaim(let name): "the ID token has no valid \(name) claim"
        case .issuerMismatch(let received):
            "the ID token was issued by \(displaySafe(received, limit: 200)), not the issuer pingcli logged in to"
        case .audienceMismatch: "the ID token's aud does not contain this client id"
        case .authorizedPartyMissing: "the ID token has several audiences but no azp naming this client"
        case .authorizedPartyMismatch: "the ID token's azp is not this client id"
        case .expired: "the ID token has expired (check this machine's clock)"
        case .issuedInFuture: "the ID token's iat is in the future (check this machine's clock)"
        case .nonceMissing: "the ID token has no nonce although one was sent"
        case .nonceMismatch: "the ID token's nonce does not match the one pingcli sent"
        case .subjectChanged: "the refreshed ID token names a different subject"
        }
    }
}

/// The header and payload of a compact JWS (RFC 7515 §7.1), base64url-decoded, signature unchecked:
/// what ID tokens and JWT access tokens share before their own rules.
package enum CompactJWS {
    package static func decode(_ token: String) throws(IDTokenError) -> (header: [UInt8], payload: [UInt8]) {
        // One pass over the bytes: a Character split of a kilobyte token walks grapheme boundaries, and
        // even a split of its UTF-8 view into an array of parts was a tenth of `status --all`'s work.
        let decoded = token.utf8.withContiguousStorageIfAvailable(decodeParts) ?? Array(token.utf8).withUnsafeBufferPointer(decodeParts)
        return try decoded.get()
    }

    /// Exactly two dots, a header and a payload that are not empty, both base64url.
    private static func decodeParts(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<(header: [UInt8], payload: [UInt8]), IDTokenError> {
        guard let first = bytes.firstIndex(of: UInt8(ascii: ".")),
            let second = bytes[(first + 1)...].firstIndex(of: UInt8(ascii: ".")),
            !bytes[(second + 1)...].contains(UInt8(ascii: ".")), first > 0, second > first + 1
        else { return .failure(.notThreeParts) }
        guard let header = Base64URL.decodePublic(UnsafeBufferPointer(rebasing: bytes[..<first])),
            let payload = Base64URL.decodePublic(UnsafeBufferPointer(rebasing: bytes[(first + 1)..<second]))
        else { return .failure(.badBase64URL) }
        return .success((header, payload))
    }
}

extension IDTokenClaims {
    /// Decodes the payload of a compact JWS without checking its signature. pingcli receives ID tokens only
    /// from the token endpoint over TLS, which OIDC Core §3.1.3.7 (6) allows in place of the signature.
    public static func decode(_ token: String) throws(IDTokenError) -> IDTokenClaims {
        let (header, payload) = try CompactJWS.decode(token)
        guard JSONValue.parseObject(header) != nil, let claims = JSONValue.parseObject(payload) else { throw .notJSON }

        func string(_ key: String) throws(IDTokenError) -> String {
            guard let value = claims[key]?.stringValue, !value.isEmpty else { throw .missingClaim(key) }
            return value
        }
        func number(_ key: String) throws(IDTokenError) -> Double {
            guard let value = claims[key]?.numberValue, value.isFinite else { throw .missingClaim(key) }
            return value
        }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let value): audiences = [value]
        case .array(let values) where !values.isEmpty && values.allSatisfy({ $0.stringValue != nil }):
            audiences = values.compactMap(\.stringValue)
        default: throw .missingClaim("aud")
        }
        return IDTokenClaims(
            issuer: try string("iss"), subject: try string("sub"), audiences: audiences,
            authorizedParty: claims["azp"]?.stringValue, expiration: try number("exp"), issuedAt: try number("iat"),
            nonce: claims["nonce"]?.stringValue, name: claims["name"]?.stringValue,
            preferredUsername: claims["preferred_username"]?.stringValue, email: claims["email"]?.stringValue,
            all: claims)
    }

    /// Applies OIDC Core §3.1.3.7 rules 2, 3, 4/5, 9, 10 and 11. `leeway` allows for clock skew.
    /// `expectedNonce` is nil for refreshed ID tokens, which then must keep the original subject (§12.2).
    public func validate(
        issuer expectedIssuer: String, clientID: String, expectedNonce: String?, now: Double, leeway: Double = 60,
        previousSubject: String? = nil
    ) throws(IDTokenError) {
        guard issuer == expectedIssuer else { throw .issuerMismatch(received: issuer) }
        guard audiences.contains(clientID) else { throw .audienceMismatch }
        if audiences.count > 1 {
            guard let authorizedParty else { throw .authorizedPartyMissing }
            guard authorizedParty == clientID else { throw .authorizedPartyMismatch }
        } else if let authorizedParty, authorizedParty != clientID {
            throw .authorizedPartyMismatch
        }
        guard expiration + leeway > now else { throw .expired }
        guard issuedAt - leeway <= now else { throw .issuedInFuture }
        if let expectedNonce {
            guard let nonce else { throw .nonceMissing }
            guard stateMatches(nonce, expectedNonce) else { throw .nonceMismatch }
        }
        if let previousSubject, previousSubject != subject { throw .subjectChanged }
    }

    /// A short name for messages: name, preferred_username, email, or sub.
    public var displayName: String {
        displaySafe(name ?? preferredUsername ?? email ?? subject, limit: 80)
    }
}
