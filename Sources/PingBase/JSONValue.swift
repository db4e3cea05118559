/// A parsed JSON value, for protocol documents whose members we check one by one.
public enum JSONValue: Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Parses a JSON object; nil for anything else (arrays, scalars, invalid JSON). See `JSONReader`.
    public static func parseObject(_ bytes: [UInt8]) -> [String: JSONValue]? {
        JSONReader.parse(bytes)?.objectValue
    }
}
