/// A strict [RFC 8259](https://www.rfc-editor.org/rfc/rfc8259) reader into `JSONValue`, without
/// Foundation's `JSONDecoder`: Codable's metadata and conformance look-ups cost more at start-up than
/// everything else `pingcli token --raw` does with profile.json (docs/performance.md).
///
/// Stricter than `JSONDecoder` where that closes a door: a member name given twice is refused (two
/// readers could otherwise disagree on which one counts), and so are numbers that are not finite
/// doubles, lone surrogates, control characters in strings, invalid UTF-8 and nesting deeper than 512.
package struct JSONReader {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    package static let maximumDepth = 512

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The one JSON value `bytes` holds (whitespace around it allowed), or nil.
    package static func parse(_ bytes: [UInt8]) -> JSONValue? {
        var reader = JSONReader(bytes)
        guard let value = reader.value() else { return nil }
        reader.skipWhitespace()
        return reader.index == bytes.count ? value : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func value() -> JSONValue? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return nil }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
        index += count
        return value
    }

    /// Enters an object or array: one level deeper, at most `maximumDepth`.
    private mutating func enter() -> Bool {
        depth += 1
        index += 1
        return depth <= Self.maximumDepth
    }

    /// After a member or element: true at the closing `close`, false after a comma; nil otherwise.
    private mutating func closes(_ close: UInt8) -> Bool? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        index += 1
        switch bytes[index - 1] {
        case close: return true
        case UInt8(ascii: ","): return false
        default: return nil
        }
    }

    private mutating func object() -> JSONValue? {
        var object: [String: JSONValue] = [:]
        let read = members { name, reader in
            guard let member = reader.value() else { return false }
            return object.updateValue(member, forKey: name) == nil
        }
        return read ? .object(object) : nil
    }

    private mutating func array() -> JSONValue? {
        guard enter() else { return nil }
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        elements.reserveCapacity(8)  // profile.json's arrays: one growth instead of three
        while true {
            guard let element = value() else { return nil }
            elements.append(element)
            guard let done = closes(UInt8(ascii: "]")) else { return nil }
            if done { return .array(elements) }
        }
    }

    /// A string starting at the opening quote; escapes decoded, UTF-8 checked.
    private mutating func string() -> String? {
        index += 1
        let start = index
        // The common case, no escapes: one validation of the bytes between the quotes. Scanned over the
        // buffer, without a bounds check per byte (a fifth of profile.json's reading, `status --all`).
        // Eight bytes at a time where none of them is a quote, a backslash or a control character.
        // A byte beyond ASCII stops the scan too, so that an ASCII string (nearly all) needs no second pass
        // to be known valid UTF-8.
        var ascii = true
        index = bytes.withUnsafeBufferPointer { buffer in
            var found = start
            while true {
                found = ByteScan.firstIndex(
                    in: buffer, from: found,
                    mayStop: {
                        ByteScan.contains($0, UInt8(ascii: "\"")) || ByteScan.contains($0, UInt8(ascii: "\\"))
                            || ByteScan.containsBelow($0, 0x20) || ByteScan.containsNonASCII($0)
                    },
                    stops: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 || $0 >= 0x80 })
                guard found < buffer.count, buffer[found] >= 0x80 else { return found }
                ascii = false
                found += 1
            }
        }
        guard index < bytes.count, bytes[index] >= 0x20 else { return nil }
        if bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return ascii ? String(decoding: bytes[start..<(index - 1)], as: UTF8.self) : validUTF8String(bytes[start..<(index - 1)])
        }
        var text = Array(bytes[start..<index])
        while bytes[index] == UInt8(ascii: "\\") {
            guard escape(into: &text) else { return nil }
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
                guard bytes[index] >= 0x20 else { return nil }
                text.append(bytes[index])
                index += 1
            }
            guard index < bytes.count else { return nil }
        }
        index += 1
        return validUTF8String(text[...])
    }

    /// One escape sequence at `index` (the backslash), appended to `text` as UTF-8.
    private mutating func escape(into text: inout [UInt8]) -> Bool {
        guard index + 1 < bytes.count else { return false }
        let letter = bytes[index + 1]
        index += 2
        let simple: UInt8? =
            switch letter {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): letter
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            default: nil
            }
        if let simple {
            text.append(simple)
            return true
        }
        guard letter == UInt8(ascii: "u"), var scalar = hex4() else { return false }
        if (0xD800..<0xDC00).contains(scalar) {
            // A high surrogate must be followed by an escaped low one (RFC 8259 §7).
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                return false
            }
            index += 2
            guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return false }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { return false }
        text.append(contentsOf: Array(String(Character(unicode)).utf8))
        return true
    }

    private mutating func hex4() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var result: UInt32 = 0
        for byte in bytes[index..<(index + 4)] {
            guard let digit = byte.hexDigitValue else { return nil }
            result = result << 4 | UInt32(digit)
        }
        index += 4
        return result
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as a finite double.
    private mutating func number() -> JSONValue? {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, bytes[index].isASCIIDigit else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, bytes[index].isASCIIDigit else { return nil }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, bytes[index].isASCIIDigit else { return nil }
            skipDigits()
        }
        guard let number = Double(String(decoding: bytes[start..<index], as: UTF8.self)), number.isFinite else { return nil }
        return .number(number)
    }

    private mutating func skipDigits() {
        while index < bytes.count, bytes[index].isASCIIDigit { index += 1 }
    }
}

extension UInt8 {
    /// The value of an ASCII hexadecimal digit, either case.
    fileprivate var hexDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The text of UTF-8 bytes, or nil when they are not valid UTF-8. ASCII, the common case, is checked
/// here: `String(validating:)` is generic and looks its metadata up at run time on every call.
package func validUTF8String(_ bytes: ArraySlice<UInt8>) -> String? {
    // Over the slice's buffer: concrete, so nothing generic is left for a caller in another module.
    bytes.withUnsafeBufferPointer { buffer in
        if ByteScan.allASCII(buffer) { return String(decoding: buffer, as: UTF8.self) }
        return String(validating: buffer, as: UTF8.self)
    }
}

extension JSONReader {
    /// A reader at the start of `bytes`, for `members`.
    package init(reading bytes: [UInt8]) { self.init(bytes) }

    /// Whether nothing but whitespace is left: after the last value of a document.
    package mutating func atEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    /// The object at the reader, member by member, for readers that know what they want and build no
    /// dictionary: `member` gets each name with the reader at its value, must read that value (`nextValue`
    /// or `members`) and returns false to refuse the document. false: not an object, or refused.
    package mutating func members(_ member: (String, inout JSONReader) -> Bool) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{"), enter() else { return false }
        defer { depth -= 1 }
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return true
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let name = string() else { return false }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
            index += 1
            guard member(name, &self) else { return false }
            guard let done = closes(UInt8(ascii: "}")) else { return false }
            if done { return true }
        }
    }

    /// The next value, whatever it is; nil when it is not JSON.
    package mutating func nextValue() -> JSONValue? { value() }
}
