/// JSON text for programs and people ([RFC 8259](https://www.rfc-editor.org/rfc/rfc8259)), with sorted
/// keys, and every character that could act on a terminal escaped as `\uXXXX`: C0 controls, DEL, C1
/// controls, the bidi controls and other invisible format characters (U+200B–U+200F, U+202A–U+202E,
/// U+2066–U+2069, U+FEFF, …), and the line and paragraph separators. The text stays valid JSON that
/// decodes to the same strings; only its bytes on a terminal are inert.
extension JSONValue {
    public func rendered(pretty: Bool) -> String { rendered(pretty: pretty, spaceBeforeColon: false) }

    /// The text this value has `level` levels deep in a pretty document (an element of an array at the
    /// top: 1), so that elements rendered apart, on several threads, join into the text of their array.
    package func rendered(prettyAtLevel level: Int) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(1024)
        write(to: &output, pretty: true, colon: ": ", indent: level)
        return String(decoding: output, as: UTF8.self)
    }

    /// `spaceBeforeColon` writes `"key" : value`, the layout profile.json always had (JSONEncoder's).
    package func rendered(pretty: Bool, spaceBeforeColon: Bool) -> String {
        // Written as UTF-8 bytes and made a string once: appending to a String piece by piece cost four
        // fifths of `status --all --json`'s instructions.
        var output: [UInt8] = []
        output.reserveCapacity(1024)
        write(to: &output, pretty: pretty, colon: pretty ? (spaceBeforeColon ? " : " : ": ") : ":", indent: 0)
        return String(decoding: output, as: UTF8.self)
    }

    func write(to output: inout [UInt8], pretty: Bool, colon: StaticString, indent: Int) {
        func newline(_ level: Int) {
            guard pretty else { return }
            output.append(UInt8(ascii: "\n"))
            for _ in 0..<(2 * level) { output.append(UInt8(ascii: " ")) }
        }
        func literal(_ text: StaticString) {
            output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        switch self {
        case .null: literal("null")
        case .bool(let value): literal(value ? "true" : "false")
        case .number(let value): output.append(contentsOf: Self.numberText(value).utf8)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let values):
            guard !values.isEmpty else { return literal("[]") }
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                value.write(to: &output, pretty: pretty, colon: colon, indent: indent + 1)
            }
            newline(indent)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { return literal("{}") }
            output.append(UInt8(ascii: "{"))
            // The keys alone are sorted (a short ASCII key compares as one word); each value is looked up.
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                Self.writeString(key, to: &output)
                literal(colon)
                members[key]!.write(to: &output, pretty: pretty, colon: colon, indent: indent + 1)
            }
            newline(indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Integers without a fraction; anything else in Swift's shortest round-tripping form.
    package static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return "\(value)"
    }

    package static func writeString(_ text: String, to output: inout String) {
        var bytes: [UInt8] = []
        writeString(text, to: &bytes)
        output += String(decoding: bytes, as: UTF8.self)
    }

    package static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        if !withPlainBytes(text, { output.append(contentsOf: $0) }) {
            for scalar in text.unicodeScalars { writeScalar(scalar, to: &output) }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Hands `body` the text's UTF-8 when a JSON string holds it as it is: printable ASCII without a
    /// quote or a backslash (names, URLs, most values), found eight bytes at a time. false, `body` not
    /// called, when a byte needs an escape or a look as a scalar.
    static func withPlainBytes(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard ByteScan.firstNeedingJSONEscape(in: bytes, from: 0) == bytes.count else { return false }
            body(bytes)
            return true
        } ?? false
    }

    private static func writeScalar(_ scalar: Unicode.Scalar, to output: inout [UInt8]) {
        switch scalar {
        case "\"": output.append(contentsOf: #"\""#.utf8)
        case "\\": output.append(contentsOf: #"\\"#.utf8)
        case "\n": output.append(contentsOf: #"\n"#.utf8)
        case "\r": output.append(contentsOf: #"\r"#.utf8)
        case "\t": output.append(contentsOf: #"\t"#.utf8)
        default:
            if isTerminalActive(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: false)
                output.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            } else {
                output.append(contentsOf: UTF8.encode(scalar)!)
            }
        }
    }
}
