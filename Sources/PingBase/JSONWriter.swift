/// JSON text for programs and people ([RFC 8259](https://www.rfc-editor.org/rfc/rfc8259)), with sorted
/// keys, and every character that could act on a terminal escaped as `\uXXXX`: C0 controls, DEL, C1
/// controls, the bidi controls and other invisible format characters (U+200B–U+200F, U+202A–U+202E,
/// U+2066–U+2069, U+FEFF, …), and the line and paragraph separators. The text stays valid JSON that
/// decodes to the same strings; only its bytes on a terminal are inert.
extension JSONValue {
    public func rendered(pretty: Bool) -> String { rendered(pretty: pretty, spaceBeforeColon: false) }

    /// `spaceBeforeColon` writes `"key" : value`, the layout profile.json always had (JSONEncoder's).
    package func rendered(pretty: Bool, spaceBeforeColon: Bool) -> String {
        var output = ""
        write(to: &output, pretty: pretty, colon: pretty ? (spaceBeforeColon ? " : " : ": ") : ":", indent: 0)
        return output
    }

    private func write(to output: inout String, pretty: Bool, colon: String, indent: Int) {
        func newline(_ level: Int) {
            if pretty { output += "\n" + String(repeating: "  ", count: level) }
        }
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let value): output += Self.numberText(value)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let values):
            guard !values.isEmpty else { return output += "[]" }
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                newline(indent + 1)
                value.write(to: &output, pretty: pretty, colon: colon, indent: indent + 1)
            }
            newline(indent)
            output += "]"
        case .object(let members):
            guard !members.isEmpty else { return output += "{}" }
            output += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                newline(indent + 1)
                Self.writeString(key, to: &output)
                output += colon
                members[key]!.write(to: &output, pretty: pretty, colon: colon, indent: indent + 1)
            }
            newline(indent)
            output += "}"
        }
    }

    /// Integers without a fraction; anything else in Swift's shortest round-tripping form.
    package static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return "\(value)"
    }

    package static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            default:
                if isTerminalActive(scalar) {
                    let hex = String(scalar.value, radix: 16, uppercase: false)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }
}
