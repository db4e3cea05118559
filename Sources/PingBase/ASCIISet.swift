/// A set of ASCII bytes as two 64-bit masks: a byte's membership is a shift and an and, not a chain of
/// comparisons (the token grammars run over every byte of every token read: about 12 instructions a
/// byte as comparisons). The masks are written out; `TokenGrammarTests` checks them against the
/// predicates they stand for on all 256 bytes.
package struct ASCIISet {
    /// Bytes 0–63, one bit each.
    package let low: UInt64
    /// Bytes 64–127.
    package let high: UInt64

    @inline(__always)
    package func contains(_ byte: UInt8) -> Bool {
        byte < 128 && ((byte < 64 ? low : high) >> UInt64(byte & 63)) & 1 != 0
    }

    /// RFC 6750 §2.1 b64token before its `=` padding: letters, digits, `-._~+/` (`AccessToken.isB64TokenBody`).
    package static let b64tokenBody = ASCIISet(low: 0x03FF_E800_0000_0000, high: 0x47FF_FFFE_87FF_FFFE)
    /// base64url (RFC 4648 §5) without padding: letters, digits, `-_` (`UInt8.isBase64URL`).
    package static let base64URL = ASCIISet(low: 0x03FF_2000_0000_0000, high: 0x07FF_FFFE_87FF_FFFE)
    /// RFC 3986 §2's unreserved and reserved characters: letters, digits, `-._~:/?#[]@!$&'()*+,;=`
    /// (`EndpointURL.isURLCharacter`; `%` is checked with its two hex digits apart).
    package static let urlCharacter = ASCIISet(low: 0xAFFF_FFDA_0000_0000, high: 0x47FF_FFFE_AFFF_FFFF)
}

extension UInt8 {
    /// RFC 6749 Appendix A `VSCHAR`: %x20-7E.
    package var isVisibleOrSpace: Bool { (0x20...0x7E).contains(self) }
    /// RFC 4648 §5 base64url alphabet, without padding.
    package var isBase64URL: Bool { isASCIILetter || isASCIIDigit || self == UInt8(ascii: "-") || self == UInt8(ascii: "_") }
}
