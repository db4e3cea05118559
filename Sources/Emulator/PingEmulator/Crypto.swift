import CSodium
import EmulatorHTTP
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
