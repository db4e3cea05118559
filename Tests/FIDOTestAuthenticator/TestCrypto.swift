import CFIDOTestCrypto
import PingCrypto

/// Swift over the C helpers of Tests/CFIDOTestCrypto (libcrypto).
enum TestCrypto {
    static func random(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        precondition(fidotest_random(&out, count) == 1)
        return out
    }

    static func sha256(_ message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        precondition(fidotest_sha256(message, message.count, &digest) == 1)
        return digest
    }

    /// A P-256 key: the scalar, and the public point.
    static func p256() -> (scalar: [UInt8], x: [UInt8], y: [UInt8]) {
        var scalar = [UInt8](repeating: 0, count: 32)
        var x = scalar
        var y = scalar
        precondition(fidotest_p256_generate(&scalar, &x, &y) == 1)
        return (scalar, x, y)
    }

    /// An Ed25519 key (libsodium): the seed, and the public key as `x` (`y` empty).
    static func ed25519() -> (scalar: [UInt8], x: [UInt8], y: [UInt8]) {
        let seed = random(32)
        return (seed, Sodium.ed25519PublicKey(seed: seed)!, [])
    }

    static func signEd25519(_ seed: [UInt8], _ message: [UInt8]) -> [UInt8] {
        Sodium.ed25519Sign(message, seed: seed)!
    }

    static func sign(_ scalar: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 72)
        var length = 0
        precondition(fidotest_p256_sign(scalar, message, message.count, &signature, &length) == 1)
        return Array(signature.prefix(length))
    }

    static func ecdh(_ scalar: [UInt8], x: [UInt8], y: [UInt8]) -> [UInt8]? {
        guard x.count == 32, y.count == 32 else { return nil }
        var shared = [UInt8](repeating: 0, count: 32)
        return fidotest_p256_ecdh(scalar, x, y, &shared) == 1 ? shared : nil
    }

    static func aes256CBC(encrypt: Bool, key: [UInt8], iv: [UInt8], _ input: [UInt8]) -> [UInt8]? {
        guard key.count == 32, iv.count == 16, input.count % 16 == 0 else { return nil }
        var out = [UInt8](repeating: 0, count: input.count)
        return fidotest_aes256_cbc(encrypt ? 1 : 0, key, iv, input, input.count, &out) == 1 ? out : nil
    }

    static func hmacSHA256(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: 32)
        precondition(fidotest_hmac_sha256(key, key.count, message, message.count, &mac) == 1)
        return mac
    }

    static func hkdfSHA256(_ secret: [UInt8], info: String) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        precondition(fidotest_hkdf_sha256(secret, secret.count, info, &out) == 1)
        return out
    }
}
