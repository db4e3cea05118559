import CFront

/// libsodium in the front (its static archive, linked in): the one file that calls it. XChaCha20-Poly1305
/// and BLAKE2b-256 as the full binary's `Sodium` uses them, its constant-time comparison and its wipe.
enum FrontSodium {
    /// XChaCha20-Poly1305's nonce and tag.
    static let nonceLength = 24
    static let tagLength = 16

    /// libsodium's picks of its fastest code for these primitives, as `sodium_init` makes them, without
    /// seeding its random generator: a cache hit draws no randomness.
    static func ready() { front_ready_sodium() }

    /// XChaCha20-Poly1305 (libsodium's IETF construction): the 24-byte nonce at `nonceAt` in `input`, the
    /// ciphertext and its tag after it. The plaintext, or nil when it does not open.
    static func decrypt(_ input: [UInt8], nonceAt start: Int, associatedData: [UInt8], key: [UInt8]) -> [UInt8]? {
        let sealedAt = start + nonceLength
        guard input.count > sealedAt + tagLength, key.count == 32, !associatedData.isEmpty else { return nil }
        var plaintext = [UInt8](repeating: 0, count: input.count - sealedAt - tagLength)
        var length: UInt64 = 0
        let opened = plaintext.withUnsafeMutableBufferPointer { output in
            input.withUnsafeBufferPointer { sealed in
                associatedData.withUnsafeBufferPointer { data in
                    key.withUnsafeBufferPointer { secret in
                        crypto_aead_xchacha20poly1305_ietf_decrypt(
                            output.baseAddress!, &length, nil, sealed.baseAddress! + sealedAt, UInt64(sealed.count - sealedAt),
                            data.baseAddress!, UInt64(data.count), sealed.baseAddress! + start, secret.baseAddress!)
                    }
                }
            }
        }
        guard opened == 0, Int(length) == plaintext.count else {
            wipe(&plaintext)
            return nil
        }
        return plaintext
    }

    /// Constant-time comparison of two digests (`sodium_memcmp`), as `Sodium.constantTimeEquals`.
    static func same(_ one: [UInt8], _ other: [UInt8]) -> Bool {
        one.count == other.count
            && one.withUnsafeBufferPointer { left in
                other.withUnsafeBufferPointer { sodium_memcmp(left.baseAddress!, $0.baseAddress!, left.count) }
            } == 0
    }

    /// BLAKE2b-256, as `Sodium.blake2b256`.
    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        digest.withUnsafeMutableBufferPointer { output in
            bytes.withUnsafeBufferPointer { input in
                _ = crypto_generichash(output.baseAddress!, 32, input.baseAddress, UInt64(input.count), nil, 0)
            }
        }
        return digest
    }

}

/// Zeroes secret bytes (libsodium's `sodium_memzero`, which the optimiser does not remove).
func wipe(_ bytes: inout [UInt8]) {
    let count = bytes.count
    bytes.withUnsafeMutableBufferPointer { if let base = $0.baseAddress { sodium_memzero(base, count) } }
}
