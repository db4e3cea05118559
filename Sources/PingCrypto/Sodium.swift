import CSodium

/// The only door to libsodium. Everything cryptographic in pingcli goes through here.
public enum Sodium {
    /// The primitives ready (the CPU's features found, the fastest code picked), without touching the
    /// random generator: a cache hit decrypts and hashes, and draws no randomness.
    private static let initialized: Bool = pingcli_sodium_init_without_random() >= 0
    /// The random generator ready too: `sodium_init`, the first time something needs random bytes.
    private static let randomInitialized: Bool = initialized && sodium_init() >= 0

    /// Makes sure libsodium's primitives are ready (once).
    package static func ensureInitialized() {
        precondition(initialized, "libsodium failed to initialise")
    }

    /// `count` bytes from the operating system's CSPRNG (`randombytes_buf`).
    public static func randomBytes(_ count: Int) -> [UInt8] {
        precondition(randomInitialized, "libsodium failed to initialise")
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return bytes
    }

    /// SHA-256 of the bytes.
    public static func sha256<Bytes: Collection>(_ input: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        hash(Array(input), length: Int(crypto_hash_sha256_BYTES)) { crypto_hash_sha256($0, $1, $2) }
    }

    /// SHA-512 of the bytes (the digest an RS512 TPM key signs).
    public static func sha512(_ input: [UInt8]) -> [UInt8] {
        hash(input, length: Int(crypto_hash_sha512_BYTES)) { crypto_hash_sha512($0, $1, $2) }
    }

    /// The `length`-byte digest one of libsodium's `crypto_hash_*` functions makes of `message`.
    @inline(__always)
    private static func hash(
        _ message: [UInt8], length: Int, _ function: (UnsafeMutablePointer<UInt8>, UnsafePointer<UInt8>?, UInt64) -> Int32
    ) -> [UInt8] {
        ensureInitialized()
        var digest = [UInt8](repeating: 0, count: length)
        _ = message.withUnsafeBufferPointer { messageBuffer in
            digest.withUnsafeMutableBufferPointer { digestBuffer in
                function(digestBuffer.baseAddress!, messageBuffer.baseAddress, UInt64(messageBuffer.count))
            }
        }
        return digest
    }

    /// BLAKE2b with a 32-byte output, unkeyed (`crypto_generichash`, RFC 7693): libsodium's vectorised
    /// code hashes a kilobyte in about a seventh of the instructions its portable SHA-256 takes.
    public static func blake2b256(_ input: [UInt8]) -> [UInt8] {
        ensureInitialized()
        var digest = [UInt8](repeating: 0, count: 32)
        _ = input.withUnsafeBufferPointer { message in
            crypto_generichash(&digest, 32, message.baseAddress, UInt64(message.count), nil, 0)
        }
        return digest
    }

    /// XChaCha20-Poly1305 (IETF) key length in bytes.
    public static let aeadKeyLength = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    /// XChaCha20-Poly1305 (IETF) nonce length in bytes.
    public static let aeadNonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    /// Poly1305 tag length in bytes.
    public static let aeadTagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    /// Encrypts and authenticates `plaintext`, binding `associatedData`. Returns the ciphertext with its tag.
    public static func seal(plaintext: [UInt8], associatedData: [UInt8], nonce: [UInt8], key: [UInt8]) -> [UInt8] {
        ensureInitialized()
        precondition(key.count == aeadKeyLength && nonce.count == aeadNonceLength)
        var output = [UInt8](repeating: 0, count: plaintext.count + aeadTagLength)
        var outputLength: UInt64 = 0
        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
            &output, &outputLength, plaintext, UInt64(plaintext.count), associatedData,
            UInt64(associatedData.count), nil, nonce, key)
        return output
    }

    /// Verifies and decrypts; nil when the key, nonce, associated data or ciphertext do not match.
    public static func open(ciphertext: [UInt8], associatedData: [UInt8], nonce: [UInt8], key: [UInt8]) -> [UInt8]? {
        ensureInitialized()
        guard key.count == aeadKeyLength, nonce.count == aeadNonceLength, ciphertext.count >= aeadTagLength
        else { return nil }
        var output = [UInt8](repeating: 0, count: ciphertext.count - aeadTagLength)
        var outputLength: UInt64 = 0
        let status = crypto_aead_xchacha20poly1305_ietf_decrypt(
            &output, &outputLength, nil, ciphertext, UInt64(ciphertext.count), associatedData,
            UInt64(associatedData.count), nonce, key)
        guard status == 0 else { return nil }
        return output
    }

    /// `open` in place, for a large file read whole (the status index): `bytes[start...]` is the
    /// ciphertext with its tag; when it verifies, its plaintext replaces it and the tag is dropped, so
    /// `bytes[start...]` is then the plaintext (no copy of either). false when it does not verify: then
    /// the ciphertext's bytes are zeros (libsodium clears the output of a failed open), the rest kept.
    public static func openInPlace(
        _ bytes: inout [UInt8], from start: Int, associatedData: [UInt8], nonce: [UInt8], key: [UInt8]
    ) -> Bool {
        ensureInitialized()
        guard key.count == aeadKeyLength, nonce.count == aeadNonceLength, start >= 0, bytes.count - start >= aeadTagLength
        else { return false }
        let length = bytes.count - start - aeadTagLength
        // libsodium verifies the tag over the ciphertext before it writes a byte, and its stream cipher
        // may write each block over the one it read (message and ciphertext at the same address).
        let status = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            let text = buffer.baseAddress! + start
            return crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
                text, nil, text, UInt64(length), text + length, associatedData, UInt64(associatedData.count), nonce, key)
        }
        guard status == 0 else { return false }
        bytes.removeLast(aeadTagLength)
        return true
    }

    /// Salt length for `passwordKey` (Argon2id).
    public static let passwordSaltLength = Int(crypto_pwhash_SALTBYTES)

    /// An AEAD key from a low-entropy secret (a PIN): Argon2id with libsodium's interactive limits, so
    /// each guess costs 64 MiB and a fraction of a second; nil when memory cannot be had.
    public static func passwordKey(_ password: [UInt8], salt: [UInt8]) -> [UInt8]? {
        ensureInitialized()
        guard salt.count == passwordSaltLength, !password.isEmpty else { return nil }
        var key = [UInt8](repeating: 0, count: aeadKeyLength)
        let status = password.withUnsafeBufferPointer { pointer in
            pointer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(password.count, 1)) { characters in
                crypto_pwhash(
                    &key, UInt64(key.count), characters, UInt64(password.count), salt, UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE),
                    Int(crypto_pwhash_MEMLIMIT_INTERACTIVE), crypto_pwhash_ALG_ARGON2ID13)
            }
        }
        guard status == 0 else { return nil }
        return key
    }

    /// Overwrites the bytes with zeros in a way the optimiser may not remove (`sodium_memzero`).
    ///
    /// Swift may have copied the array before (copy-on-write, resizing), so this wipes the copy we hold,
    /// not every copy that ever existed; docs/security.md says so.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
    }

    /// Ed25519 ([RFC 8032](https://www.rfc-editor.org/rfc/rfc8032)): the public key of a 32-byte seed.
    public static func ed25519PublicKey(seed: [UInt8]) -> [UInt8]? {
        guard var pair = ed25519KeyPair(seed: seed) else { return nil }
        defer { wipe(&pair.secretKey) }
        return pair.publicKey
    }

    /// Ed25519: the 64-byte signature of `message` by the key of `seed` (deterministic, RFC 8032 §5.1.6).
    public static func ed25519Sign(_ message: [UInt8], seed: [UInt8]) -> [UInt8]? {
        guard var pair = ed25519KeyPair(seed: seed) else { return nil }
        defer { wipe(&pair.secretKey) }
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        guard crypto_sign_detached(&signature, nil, message, UInt64(message.count), pair.secretKey) == 0 else { return nil }
        return signature
    }

    /// The key pair of a seed (RFC 8032 §5.1.5); the caller wipes the secret key.
    private static func ed25519KeyPair(seed: [UInt8]) -> (publicKey: [UInt8], secretKey: [UInt8])? {
        ensureInitialized()
        guard seed.count == Int(crypto_sign_SEEDBYTES) else { return nil }
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        guard crypto_sign_seed_keypair(&publicKey, &secretKey, seed) == 0 else {
            wipe(&secretKey)
            return nil
        }
        return (publicKey, secretKey)
    }

    /// Compares two byte strings in constant time for equal lengths.
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return sodium_memcmp(lhs, rhs, lhs.count) == 0
    }

    /// The base64 alphabets libsodium encodes and decodes ([RFC 4648 §4, §5](https://www.rfc-editor.org/rfc/rfc4648#section-4)).
    public enum Base64Variant: Sendable {
        /// `+` and `/`, padded with `=` (HTTP Basic authentication).
        case standard
        /// `-` and `_`, unpadded (JOSE, PKCE).
        case urlSafeUnpadded

        package var raw: Int32 {
            switch self {
            case .standard: sodium_base64_VARIANT_ORIGINAL
            case .urlSafeUnpadded: sodium_base64_VARIANT_URLSAFE_NO_PADDING
            }
        }
    }

    /// `bytes` as base64 text (`sodium_bin2base64`).
    public static func base64<Bytes: Collection>(_ bytes: Bytes, _ variant: Base64Variant) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        let length = sodium_base64_encoded_len(input.count, variant.raw)
        var output = [CChar](repeating: 0, count: length)
        _ = sodium_bin2base64(&output, length, input, input.count, variant.raw)
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The bytes of base64 text (`sodium_base642bin`), or nil for any character outside the variant's
    /// alphabet (padding included where it has none), an impossible length, or leftover bits that are
    /// not zero (so no two texts decode to the same bytes).
    /// `ignoring` lists bytes skipped anywhere (PEM's line breaks).
    public static func base64Decode(_ text: some StringProtocol, _ variant: Base64Variant, ignoring: String = "") -> [UInt8]? {
        let input = Array(text.utf8)
        // libsodium 1.0.18 reads every byte from 0x80 up as '_' (or '/'): its constant-time comparisons
        // take a negative `char` for a match. Outside ASCII nothing is base64 (base64-non-ascii).
        guard input.allSatisfy({ $0 < 0x80 }) else { return nil }
        var output = [UInt8](repeating: 0, count: input.count / 4 * 3 + 3)
        var length = 0
        let status = input.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                sodium_base642bin(
                    &output, output.count, $0.baseAddress, $0.count, ignoring.isEmpty ? nil : ignoring, &length, nil, variant.raw)
            }
        }
        guard status == 0 else { return nil }
        return Array(output.prefix(length))
    }

    /// Decodes padded standard base64 (RFC 4648 §4); `ignoring` lists bytes skipped anywhere (PEM's line
    /// breaks). nil for any other byte, missing padding or trailing text.
    public static func decodeBase64(_ text: some StringProtocol, ignoring: String = "") -> [UInt8]? {
        base64Decode(text, .standard, ignoring: ignoring)
    }

    /// The bytes of hex text (`sodium_hex2bin`), either case; nil unless every character is a hex digit
    /// and there is an even number of them.
    public static func hexDecode(_ text: [UInt8]) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var output = [UInt8](repeating: 0, count: text.count / 2)
        var length = 0
        var end: UnsafePointer<CChar>? = nil
        let consumed = text.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars -> Bool in
                guard sodium_hex2bin(&output, output.count, chars.baseAddress, chars.count, nil, &length, &end) == 0 else { return false }
                return end == chars.baseAddress.map { $0 + chars.count }
            }
        }
        guard consumed, length == output.count else { return nil }
        return output
    }
}

extension Sodium {
    /// Verifies an Ed25519 signature (RFC 8032, as JWS's EdDSA uses it, RFC 8037 §3.1).
    public static func verifyEd25519(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        ensureInitialized()
        guard signature.count == Int(crypto_sign_BYTES), publicKey.count == Int(crypto_sign_PUBLICKEYBYTES) else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }
}
