/// Base64url without padding, [RFC 4648 §5](https://www.rfc-editor.org/rfc/rfc4648#section-5), as JOSE and PKCE use it;
/// libsodium's codec underneath.
public enum Base64URL {
    /// Encodes bytes as unpadded base64url text.
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Sodium.base64(bytes, .urlSafeUnpadded)
    }

    /// Encodes bytes as base64 with the standard alphabet and `=` padding (RFC 4648 §4), as HTTP Basic
    /// authentication (RFC 7617) wants it.
    public static func encodeStandard(_ bytes: [UInt8]) -> String {
        Sodium.base64(bytes, .standard)
    }

    /// Decodes unpadded base64url text; returns nil for any character outside the alphabet,
    /// padding, an impossible length (a single trailing character), or leftover bits that are not zero.
    /// libsodium's constant-time decoder: for keys and anything else secret.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        Sodium.base64Decode(text, .urlSafeUnpadded)
    }

    /// `decode`'s rules, by table in one pass over the bytes (libsodium's constant-time decoder costs
    /// about 50 instructions a character: a fifth of `status --all`'s work per profile was the ID token's
    /// base64url). Only for what is then read by variable-time code anyway, or is public: the parts of a
    /// JWS, whose JSON is parsed right after. Keys go through `decode`.
    package static func decodePublic(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(text.count / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in text {
            let value = sextet(character)
            guard value < 64 else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // What is left over must be zero bits, or two texts would decode to the same bytes.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }

    /// A byte's 6-bit value in the base64url alphabet; 64 for every other byte.
    @inline(__always)
    private static func sextet(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte &- UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte &- UInt8(ascii: "a") &+ 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0") &+ 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: 64
        }
    }
}
