import EmulatorHTTP
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

// MARK: - Misc helpers

/// Text with some of its scalars replaced, as HTML and JSON strings need: one loop for both, each
/// with its table.
enum Escaping {
    static func apply(_ s: String, _ table: [Unicode.Scalar: String], control: ((Unicode.Scalar) -> String)? = nil) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            if let replacement = table[scalar] {
                out += replacement
            } else if let control, scalar.value < 0x20 {
                out += control(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

enum HTML {
    static let entities: [Unicode.Scalar: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"]

    static func escape(_ s: String) -> String { Escaping.apply(s, entities) }

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

/// The lock the emulator's state lives behind, for tests that share a value with the emulator's threads.
public typealias Locked = EmulatorHTTP.Locked
