/// CTAP2's PIN/UV auth protocols one and two (CTAP 2.1 §6.5.6, §6.5.7), the authenticator's side.
struct PINProtocol {
    let version: Int

    /// The shared secret from the ECDH x coordinate: SHA-256 of it (one), or HKDF-SHA-256's HMAC key
    /// then AES key (two).
    func kdf(_ z: [UInt8]) -> [UInt8] {
        version == 1
            ? TestCrypto.sha256(z) : TestCrypto.hkdfSHA256(z, info: "CTAP2 HMAC key") + TestCrypto.hkdfSHA256(z, info: "CTAP2 AES key")
    }

    private func aesKey(_ shared: [UInt8]) -> [UInt8] { version == 1 ? shared : Array(shared.suffix(32)) }
    private func hmacKey(_ shared: [UInt8]) -> [UInt8] { version == 1 ? shared : Array(shared.prefix(32)) }

    func encrypt(_ shared: [UInt8], _ plaintext: [UInt8]) -> [UInt8]? {
        if version == 1 { return TestCrypto.aes256CBC(encrypt: true, key: aesKey(shared), iv: [UInt8](repeating: 0, count: 16), plaintext) }
        let iv = TestCrypto.random(16)
        return TestCrypto.aes256CBC(encrypt: true, key: aesKey(shared), iv: iv, plaintext).map { iv + $0 }
    }

    func decrypt(_ shared: [UInt8], _ ciphertext: [UInt8]) -> [UInt8]? {
        if version == 1 {
            return TestCrypto.aes256CBC(encrypt: false, key: aesKey(shared), iv: [UInt8](repeating: 0, count: 16), ciphertext)
        }
        guard ciphertext.count >= 16 else { return nil }
        return TestCrypto.aes256CBC(encrypt: false, key: aesKey(shared), iv: Array(ciphertext.prefix(16)), Array(ciphertext.dropFirst(16)))
    }

    /// pinUvAuthParam: HMAC-SHA-256, its first 16 bytes in protocol one.
    func authenticate(_ key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        let mac = TestCrypto.hmacSHA256(key: hmacKey(key), message)
        return version == 1 ? Array(mac.prefix(16)) : mac
    }
}
