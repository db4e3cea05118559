import PingBase

/// A token whose bytes failed their grammar. Names the field and the rule, never the value: a hostile
/// value may hold escape sequences, and a real one is a secret.
public struct TokenGrammarError: GateFailure, Sendable, Equatable {
    public var field: String
    public var rule: String

    public var message: String { "the \(field) is not a valid \(rule)" }
}

/// A token from the provider that passed its grammar at the gate, so that code further in can print it,
/// put it in a header or a form without checking again. `description` never shows the value.
public protocol ProviderToken: Sendable, Equatable, CheckedString, CustomStringConvertible where Failure == TokenGrammarError {
    /// The token, exactly as the provider sent it.
    var value: String { get }
    init(unchecked value: String)
    /// The protocol name of the field, as in `the access_token is not …`.
    static var field: String { get }
    /// The grammar, as in `… a valid RFC 6750 §2.1 b64token`.
    static var rule: String { get }
    static func matchesGrammar(_ bytes: [UInt8]) -> Bool
}

/// Longest token accepted; real ones are under a few KiB, and every one ends up in a header or a form.
package let maximumTokenLength = 64 * 1024

extension ProviderToken {
    /// The gate: the value, or a `TokenGrammarError` naming the field.
    public init(checking text: String) throws(TokenGrammarError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumTokenLength, Self.matchesGrammar(bytes) else {
            throw TokenGrammarError(field: Self.field, rule: Self.rule)
        }
        self.init(unchecked: text)
    }

    public var description: String { "\(Self.field) (\(value.utf8.count) bytes)" }
}

/// An access token as RFC 6750 §2.1 allows it in `Authorization: Bearer` (`b64token`): letters, digits,
/// `-._~+/`, then `=` padding only at the end. pingcli sends it only that way, and prints it for scripts.
public struct AccessToken: ProviderToken {
    public let value: String
    public init(unchecked value: String) { self.value = value }
    public static let field = "access_token"
    public static let rule = "bearer token (RFC 6750 §2.1 b64token)"

    public static func matchesGrammar(_ bytes: [UInt8]) -> Bool {
        // One pass: the body up to the first byte outside it, which must be padding, as must all after it.
        bytes.withUnsafeBufferPointer { buffer in
            var index = ByteScan.wholeB64TokenBodyWords(in: buffer, from: 0)
            while index < buffer.count, ASCIISet.b64tokenBody.contains(buffer[index]) { index += 1 }
            guard index > 0 else { return false }
            while index < buffer.count, buffer[index] == UInt8(ascii: "=") { index += 1 }
            return index == buffer.count
        }
    }

    /// What `ASCIISet.b64tokenBody` holds, byte by byte (a test checks the two agree on all 256 bytes).
    package static func isB64TokenBody(_ byte: UInt8) -> Bool { byte.isASCIILetter || byte.isASCIIDigit || isB64TokenSymbol(byte) }

    /// `-._~+/`, by a switch: a `Set` costs a hash per byte of every token read.
    private static func isB64TokenSymbol(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"): true
        default: false
        }
    }
}

/// A refresh token (RFC 6749 Appendix A.17: `1*VSCHAR`, printable ASCII and space).
public struct RefreshToken: ProviderToken {
    public let value: String
    public init(unchecked value: String) { self.value = value }
    public static let field = "refresh_token"
    public static let rule = "refresh token (RFC 6749 Appendix A.17)"

    public static func matchesGrammar(_ bytes: [UInt8]) -> Bool { bytes.allSatisfy(\.isVisibleOrSpace) }
}

/// An ID token in the JWS compact serialization (RFC 7515 §7.1): three base64url parts joined by dots,
/// the header and payload non-empty (the signature is empty only for `alg: none`).
public struct IDToken: ProviderToken {
    public let value: String
    public init(unchecked value: String) { self.value = value }
    public static let field = "id_token"
    public static let rule = "JWS compact serialization (RFC 7515 §7.1)"

    /// One pass over the bytes: no array of parts (whose generic metadata every `token` paid for).
    public static func matchesGrammar(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var dots = 0
            var partLength = 0
            var index = 0
            while index < buffer.count {
                // Eight base64url bytes at a time, then the byte that ended the run.
                let next = ByteScan.wholeBase64URLWords(in: buffer, from: index)
                partLength += next - index
                index = next
                guard index < buffer.count else { break }
                let byte = buffer[index]
                if byte == UInt8(ascii: ".") {
                    // The header and the payload must not be empty, and there are exactly three parts.
                    guard partLength > 0, dots < 2 else { return false }
                    dots += 1
                    partLength = 0
                } else {
                    guard ASCIISet.base64URL.contains(byte) else { return false }
                    partLength += 1
                }
                index += 1
            }
            return dots == 2
        }
    }
}

/// RFC 6749 §3.3: `scope-token *( SP scope-token )`, each token `1*NQCHAR` (printable ASCII but `"`
/// and `\`). Runs of spaces are tolerated; nothing else is.
package func isValidScope(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    return bytes.count <= maximumTokenLength && bytes.contains { $0 != 0x20 }
        && bytes.allSatisfy { $0 == 0x20 || ($0.isVisibleOrSpace && $0 != 0x22 && $0 != 0x5C) }
}
