import PingCrypto

/// Proof Key for Code Exchange with the S256 method only ([RFC 7636](https://www.rfc-editor.org/rfc/rfc7636)).
public struct PKCE: Sendable {
    /// The secret kept by pingcli and sent only to the token endpoint (§4.1).
    public let codeVerifier: String
    /// `BASE64URL(SHA256(ASCII(code_verifier)))` sent in the authorization request (§4.2).
    public let codeChallenge: String
    public let codeChallengeMethod = "S256"

    /// Derives the challenge from a verifier. The verifier must be 43 to 128 unreserved characters (§4.1).
    public init?(codeVerifier: String) {
        let allowed = codeVerifier.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                true
            default: false
            }
        }
        guard allowed, (43...128).contains(codeVerifier.utf8.count) else { return nil }
        self.codeVerifier = codeVerifier
        self.codeChallenge = Base64URL.encode(Sodium.sha256(codeVerifier.utf8))
    }

    /// A new verifier from 32 random bytes, base64url-encoded to 43 characters (§4.1, §7.1).
    public static func generate() -> PKCE {
        PKCE(codeVerifier: Base64URL.encode(Sodium.randomBytes(32)))!
    }
}

/// Random values that bind a response to its request: `state` (RFC 6749 §10.12) and `nonce` (OIDC Core §3.1.2.1).
public enum RandomValue {
    /// 32 random bytes as base64url.
    public static func generate() -> String { Base64URL.encode(Sodium.randomBytes(32)) }
}
