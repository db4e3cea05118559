import EmulatorHTTP
import Foundation

/// A small JSON value used for discovery/claim/token-response overrides and for
/// building every JSON body the emulator sends (serialized with sorted keys).
public enum EmulatorJSON: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([EmulatorJSON])
    case object([String: EmulatorJSON])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([EmulatorJSON].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: EmulatorJSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n):
            if let i = Int64(exactly: n) { try c.encode(i) } else { try c.encode(n) }
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// Compact JSON text with sorted object keys; whole numbers print without a fraction.
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n):
            if !n.isFinite {
                out += "null"
            } else if let i = Int64(exactly: n) {
                out += String(i)
            } else {
                out += "\(n)"
            }
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, key) in o.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                o[key]!.write(to: &out)
            }
            out += "}"
        }
    }

    private static let escapes: [Unicode.Scalar: String] = ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"]

    private static func writeString(_ s: String, to out: inout String) {
        out += "\"" + Escaping.apply(s, escapes, control: { String(format: "\\u%04x", $0.value) }) + "\""
    }

    /// Parses JSON text (or returns nil).
    public static func parse(_ data: Data) -> EmulatorJSON? {
        try? JSONDecoder().decode(EmulatorJSON.self, from: data)
    }

    public subscript(key: String) -> EmulatorJSON? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var objectValue: [String: EmulatorJSON]? {
        if case .object(let members) = self { return members }
        return nil
    }

    public var arrayValue: [EmulatorJSON]? {
        if case .array(let a) = self { return a }
        return nil
    }
}

extension EmulatorJSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: EmulatorJSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, EmulatorJSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension Dictionary where Key == String, Value == EmulatorJSON {
    /// Merges overrides into a JSON object; a `null` override removes the key.
    func applying(_ overrides: [String: EmulatorJSON]) -> [String: EmulatorJSON] {
        var result = self
        for (k, v) in overrides {
            if v == .null { result[k] = nil } else { result[k] = v }
        }
        return result
    }
}
