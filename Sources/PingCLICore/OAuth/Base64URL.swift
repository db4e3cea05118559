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
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        Sodium.base64Decode(text, .urlSafeUnpadded)
    }
}
