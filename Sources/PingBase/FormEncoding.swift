#if canImport(Glibc)
    import Glibc
#endif

/// `application/x-www-form-urlencoded` and query-string encoding and decoding
/// ([RFC 6749 Appendix B](https://www.rfc-editor.org/rfc/rfc6749#appendix-B)).
///
/// Encoding escapes everything but RFC 3986 unreserved characters, so `+`, `&` and `=` in a value
/// can never be read back as something else.
public enum FormEncoding {
    public typealias Pair = (name: String, value: String)

    /// Percent-encodes one component, leaving only `A-Z a-z 0-9 - . _ ~` as they are.
    public static func escape(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                output.unicodeScalars.append("%")
                output.unicodeScalars.append(hex[Int(byte >> 4)])
                output.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return output
    }

    /// Encodes pairs in order as `name=value&name=value`.
    public static func encode(_ pairs: [Pair]) -> String {
        pairs.map { escape($0.name) + "=" + escape($0.value) }.joined(separator: "&")
    }

    /// Decodes a query string or form body into pairs in order. `+` is a space. Returns nil when a
    /// percent escape is malformed or the bytes are not UTF-8, rather than guessing.
    public static func decode(_ text: some StringProtocol) -> [Pair]? {
        var pairs = [Pair]()
        for field in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = unescape(parts[0]) else { return nil }
            guard let value = parts.count > 1 ? unescape(parts[1]) : "" else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// Reverses `escape`, treating `+` as a space.
    public static func unescape(_ text: some StringProtocol) -> String? {
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue)
                else { return nil }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
