import CLibCrypto

/// The only door to OpenSSL's libcrypto: RSA and ECDSA signatures and HMAC, for what libsodium lacks.
///
/// The library is loaded with `dlopen` on the first call (Sources/CLibCrypto/shim.h), never at start-up,
/// so that `token --raw` on a cache hit does not map it.
public enum LibCrypto {
    /// The hash of a JWS algorithm (RFC 7518 §3.1).
    public enum Digest: Int32, Sendable {
        case sha256 = 0
        case sha384 = 1
        case sha512 = 2
        /// For HMAC only (OATH's default hash, RFC 4226 §5.2); never for a signature.
        case sha1 = 3
    }

    /// The kinds of asymmetric keys pingcli uses.
    public enum KeyType: Sendable, Equatable {
        case rsa
        case ec
        case other
    }

    /// libcrypto could not be loaded, or refused a key.
    public enum Failure: Error, Sendable, Equatable {
        case unavailable
        case badKey
    }

    package static func load() throws(Failure) {
        guard pingcli_crypto_available() == 1 else { throw .unavailable }
    }

    /// Verifies `signature` (DER for ECDSA) over `message` with the public key in a DER
    /// SubjectPublicKeyInfo; `pss` for RSASSA-PSS with a salt as long as the hash (RFC 7518 §3.5).
    /// Returns the key's size in bits with the result, so that callers can refuse weak keys.
    package static func verify(
        publicKey spki: [UInt8], digest: Digest, pss: Bool, message: [UInt8], signature: [UInt8]
    ) throws(Failure) -> (valid: Bool, type: KeyType, bits: Int) {
        try load()
        guard let key = spki.withUnsafeBufferPointer({ pingcli_crypto_public_key($0.baseAddress, $0.count) }) else {
            throw .badKey
        }
        defer { pingcli_crypto_key_free(key) }
        var signatureBytes = signature.isEmpty ? [0] : signature
        var length = signature.count
        let valid = pingcli_crypto_signature(key, digest.rawValue, pss ? 1 : 0, 1, message, message.count, &signatureBytes, &length)
        return (valid == 1, keyType(key), Int(pingcli_crypto_key_bits(key)))
    }

    /// A new key pair for DPoP (RFC 9449): an EC key on P-256 (ES256) or a 2048-bit RSA key (PS256,
    /// RS256). Returns the private key's DER (SEC 1 or PKCS#1, which `sign` reads back) and the public
    /// key's SubjectPublicKeyInfo. The caller wipes the private bytes when done with them.
    package static func generateKey(rsa: Bool) throws(Failure) -> (privateKey: [UInt8], publicKey: [UInt8]) {
        try load()
        guard let key = pingcli_crypto_generate(rsa ? 1 : 0) else { throw .badKey }
        defer { pingcli_crypto_key_free(key) }
        var privateKey = [UInt8](repeating: 0, count: 4096)
        var publicKey = [UInt8](repeating: 0, count: 1024)
        let privateLength = pingcli_crypto_key_der(key, 0, &privateKey, Int32(privateKey.count))
        let publicLength = pingcli_crypto_key_der(key, 1, &publicKey, Int32(publicKey.count))
        guard privateLength > 0, publicLength > 0 else {
            Sodium.wipe(&privateKey)
            throw .badKey
        }
        let result = (Array(privateKey[..<Int(privateLength)]), Array(publicKey[..<Int(publicLength)]))
        Sodium.wipe(&privateKey)
        return result
    }

    /// HMAC (RFC 2104) of `message` under `key`, with the hash `digest`.
    package static func hmac(_ digest: Digest, key: [UInt8], message: [UInt8]) throws(Failure) -> [UInt8] {
        try load()
        var out = [UInt8](repeating: 0, count: 64)
        let length = pingcli_crypto_hmac(digest.rawValue, key, Int32(key.count), message, message.count, &out)
        guard length > 0 else { throw .badKey }
        return Array(out[..<Int(length)])
    }

    /// A private key for client assertions (RFC 7523), from its DER (PKCS#8, PKCS#1 RSA or SEC 1 EC).
    /// The DER is wiped once libcrypto has read it; the key itself lives only in libcrypto's memory.
    public final class PrivateKey: @unchecked Sendable {
        private let key: OpaquePointer
        public let type: KeyType
        public let bits: Int

        package init(der: inout [UInt8]) throws(Failure) {
            defer { Sodium.wipe(&der) }
            try LibCrypto.load()
            guard let key = der.withUnsafeBufferPointer({ pingcli_crypto_private_key($0.baseAddress, $0.count) }) else {
                throw .badKey
            }
            self.key = key
            type = LibCrypto.keyType(key)
            bits = Int(pingcli_crypto_key_bits(key))
        }

        deinit { pingcli_crypto_key_free(key) }

        /// The signature of `message`: RSASSA-PKCS1-v1_5 or -PSS, or ECDSA as DER.
        package func sign(_ message: [UInt8], digest: Digest, pss: Bool) -> [UInt8]? {
            var signature = [UInt8](repeating: 0, count: 1024)
            var length = signature.count
            guard pingcli_crypto_signature(key, digest.rawValue, pss ? 1 : 0, 0, message, message.count, &signature, &length) == 1
            else { return nil }
            return Array(signature[..<length])
        }
    }

    private static func keyType(_ key: OpaquePointer) -> KeyType {
        switch pingcli_crypto_key_type(key) {
        case EVP_PKEY_RSA: .rsa
        case EVP_PKEY_EC: .ec
        default: .other
        }
    }
}
