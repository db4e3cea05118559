import CSodium
import Foundation

/// libsodium wrappers: randomness, SHA-256 and Ed25519 JWS signing.
enum Crypto {
    /// sodium_init is idempotent and thread-safe.
    static func initialize() -> Bool { sodium_init() >= 0 }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    /// 32 random bytes, base64url: codes, tokens, flow ids.
    static func randomToken(_ count: Int = 32) -> String { Base64URL.encode(randomBytes(count)) }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256(&out, bytes, UInt64(bytes.count))
        return out
    }

    /// RFC 7636 S256: base64url(SHA-256(ASCII(verifier))).
    static func pkceChallenge(forVerifier verifier: String) -> String {
        Base64URL.encode(sha256(Array(verifier.utf8)))
    }
}

/// An Ed25519 key pair generated at start, used for ID tokens and access tokens (alg EdDSA).
struct SigningKey: Sendable {
    let publicKey: [UInt8]
    let secretKey: [UInt8]
    let kid: String

    init() {
        var pk = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var sk = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        crypto_sign_keypair(&pk, &sk)
        publicKey = pk
        secretKey = sk
        kid = Base64URL.encode(Crypto.sha256(pk).prefix(12))
    }

    var jwk: JSONValue {
        [
            "kty": "OKP", "crv": "Ed25519", "x": .string(Base64URL.encode(publicKey)),
            "kid": .string(kid), "use": "sig", "alg": "EdDSA",
        ]
    }

    /// JWS compact serialization of `claims` with header {"alg":"EdDSA","typ":"JWT","kid":…}.
    func sign(claims: [String: JSONValue], typ: String = "JWT") -> String {
        let header: JSONValue = ["alg": "EdDSA", "typ": .string(typ), "kid": .string(kid)]
        let signingInput =
            Base64URL.encode(Array(header.serialized.utf8)) + "."
            + Base64URL.encode(Array(JSONValue.object(claims).serialized.utf8))
        let message = Array(signingInput.utf8)
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        var length: UInt64 = 0
        crypto_sign_detached(&signature, &length, message, UInt64(message.count), secretKey)
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Verifies a JWS made by `sign` and returns its claims.
    func verify(_ jws: String) -> [String: JSONValue]? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let sig = Base64URL.decode(String(parts[2])), sig.count == Int(crypto_sign_BYTES),
            let payload = Base64URL.decode(String(parts[1]))
        else { return nil }
        let message = Array((parts[0] + "." + parts[1]).utf8)
        guard crypto_sign_verify_detached(sig, message, UInt64(message.count), publicKey) == 0,
            case .object(let claims)? = JSONValue.parse(Data(payload))
        else { return nil }
        return claims
    }
}
