import Foundation

// MARK: - application/x-www-form-urlencoded and query strings

/// The single form/query encoding helper.
package enum FormEncoding {
    /// RFC 3986 unreserved characters; everything else is percent-encoded.
    package static func isUnreserved(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
            || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
    }

    package static func percentEncode(_ string: String) -> String {
        var out = ""
        for b in string.utf8 {
            if isUnreserved(b) {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out += String(format: "%%%02X", b)
            }
        }
        return out
    }

    /// Encodes ordered pairs as `a=b&c=d` (spaces as %20, valid in both queries and forms).
    package static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { percentEncode($0.0) + "=" + percentEncode($0.1) }.joined(separator: "&")
    }

    /// Percent-decodes, treating '+' as space. Invalid escapes are kept literally.
    package static func percentDecode<S: StringProtocol>(_ s: S) -> String {
        let bytes = Array(s.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x2B {
                out.append(0x20)
            } else if b == 0x25, i + 2 < bytes.count, let h = hexValue(bytes[i + 1]), let l = hexValue(bytes[i + 2]) {
                out.append(h << 4 | l)
                i += 2
            } else {
                out.append(b)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }

    /// Decodes `a=b&c=d` into ordered pairs.
    package static func decodePairs<S: StringProtocol>(_ s: S) -> [(String, String)] {
        s.split(separator: "&", omittingEmptySubsequences: true).map { part in
            if let eq = part.firstIndex(of: "=") {
                return (percentDecode(part[..<eq]), percentDecode(part[part.index(after: eq)...]))
            }
            return (percentDecode(part), "")
        }
    }

    /// Decodes into a dictionary; the first occurrence of a name wins.
    package static func decode<S: StringProtocol>(_ s: S) -> [String: String] {
        var result: [String: String] = [:]
        for (k, v) in decodePairs(s) where result[k] == nil { result[k] = v }
        return result
    }

    /// Appends parameters to a URL with `?` or `&` as appropriate (keeps any fragment last).
    package static func append(_ pairs: [(String, String)], to url: String) -> String {
        guard !pairs.isEmpty else { return url }
        var base = url
        var fragment = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = String(base[hash...])
            base = String(base[..<hash])
        }
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return base + separator + encode(pairs) + fragment
    }
}
