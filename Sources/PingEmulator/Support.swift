import Foundation

// MARK: - Base64url (RFC 4648 §5, no padding)

/// The single base64url helper used for codes, tokens, JWS segments and PKCE.
enum Base64URL {
    static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ string: String) -> [UInt8]? {
        var s = string.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard isAlphabet(string) else { return nil }
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map { [UInt8]($0) }
    }

    /// True when `string` consists only of base64url alphabet characters.
    static func isAlphabet(_ string: String) -> Bool {
        string.utf8.allSatisfy { b in
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x5F
        }
    }
}

// MARK: - application/x-www-form-urlencoded and query strings

/// The single form/query encoding helper.
enum FormEncoding {
    /// RFC 3986 unreserved characters; everything else is percent-encoded.
    static func isUnreserved(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
            || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
    }

    static func percentEncode(_ string: String) -> String {
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
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { percentEncode($0.0) + "=" + percentEncode($0.1) }.joined(separator: "&")
    }

    /// Percent-decodes, treating '+' as space. Invalid escapes are kept literally.
    static func percentDecode<S: StringProtocol>(_ s: S) -> String {
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
    static func decodePairs<S: StringProtocol>(_ s: S) -> [(String, String)] {
        s.split(separator: "&", omittingEmptySubsequences: true).map { part in
            if let eq = part.firstIndex(of: "=") {
                return (percentDecode(part[..<eq]), percentDecode(part[part.index(after: eq)...]))
            }
            return (percentDecode(part), "")
        }
    }

    /// Decodes into a dictionary; the first occurrence of a name wins.
    static func decode<S: StringProtocol>(_ s: S) -> [String: String] {
        var result: [String: String] = [:]
        for (k, v) in decodePairs(s) where result[k] == nil { result[k] = v }
        return result
    }

    /// Appends parameters to a URL with `?` or `&` as appropriate (keeps any fragment last).
    static func append(_ pairs: [(String, String)], to url: String) -> String {
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

// MARK: - Misc helpers

enum HTML {
    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>\(escape(title))</title></head>
        <body>
        \(body)
        </body></html>

        """
    }
}

extension String {
    /// Space-separated scope string to an ordered list without duplicates.
    var scopeList: [String] {
        var seen = Set<String>()
        return split(separator: " ").map(String.init).filter { seen.insert($0).inserted }
    }
}

func nowSeconds() -> Double { Date().timeIntervalSince1970 }
