import PingBase

/// The options AM writes inline into its WebAuthn script ("Return challenge as JavaScript"), read by
/// bounded scans of the bytes, never run: a property (`key:`, `"key":`, or `key =`) and its value as a
/// quoted text, an integer, a literal, `new Int8Array([…])`, an object or an array (matched brackets).
/// Every read is limited to the script (at most `JourneyResponse.maximumTextBytes`) and each value's
/// own bound; anything else reads as nil.
struct WebAuthnScriptText {
    let bytes: [UInt8]

    init(_ text: String) { bytes = Array(text.utf8) }

    var all: Range<Int> { 0..<bytes.count }

    func contains(_ text: String) -> Bool { offset(of: Array(text.utf8), in: all) != nil }

    private func offset(of needle: [UInt8], in range: Range<Int>) -> Int? {
        guard !needle.isEmpty, range.count >= needle.count else { return nil }
        var index = range.lowerBound
        while index + needle.count <= range.upperBound {
            if bytes[index] == needle[0] && bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private static func isIdentifier(_ byte: UInt8) -> Bool {
        byte.isASCIILetter || byte.isASCIIDigit || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
    }

    private func skipSpace(_ index: Int, _ end: Int) -> Int {
        var index = index
        while index < end, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index
    }

    /// Where the value of the property `key` starts within `range` (after `:` or `=`); the first one.
    func property(_ key: String, in range: Range<Int>) -> Int? {
        let needle = Array(key.utf8)
        var from = range.lowerBound
        while let found = offset(of: needle, in: from..<range.upperBound) {
            from = found + 1
            if found > range.lowerBound && Self.isIdentifier(bytes[found - 1]) { continue }
            var index = found + needle.count
            if index < range.upperBound && Self.isIdentifier(bytes[index]) { continue }
            if index < range.upperBound && bytes[index] == UInt8(ascii: "\"") { index += 1 }
            index = skipSpace(index, range.upperBound)
            guard index < range.upperBound, bytes[index] == UInt8(ascii: ":") || bytes[index] == UInt8(ascii: "=") else { continue }
            return skipSpace(index + 1, range.upperBound)
        }
        return nil
    }

    /// A double-quoted text at `index` (`\"` and `\\` unescaped), at most `limit` bytes.
    func quoted(at index: Int?, limit: Int = 1024) -> String? {
        guard let index, index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        var out: [UInt8] = []
        var position = index + 1
        while position < bytes.count, out.count <= limit {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { return String(validating: out, as: UTF8.self) }
            if byte == UInt8(ascii: "\\"), position + 1 < bytes.count {
                position += 1
                out.append(bytes[position])
            } else {
                out.append(byte)
            }
            position += 1
        }
        return nil
    }

    /// A decimal integer at `index` (an optional minus, at most 12 digits).
    func integer(at index: Int?) -> Int? {
        guard var position = index else { return nil }
        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let digits = bytes[position...].prefix { $0.isASCIIDigit }
        guard (1...12).contains(digits.count), let value = Int(String(decoding: digits, as: UTF8.self)) else { return nil }
        return negative ? -value : value
    }

    /// `true` or `false` at `index`.
    func literal(at index: Int?) -> Bool? {
        guard let index else { return nil }
        if bytes[index...].starts(with: Array("true".utf8)) { return true }
        if bytes[index...].starts(with: Array("false".utf8)) { return false }
        return nil
    }

    /// The range inside the brackets that open at `index` (`{` or `[`), matched (texts skipped).
    func enclosed(at index: Int?) -> Range<Int>? {
        guard let index, index < bytes.count, bytes[index] == UInt8(ascii: "{") || bytes[index] == UInt8(ascii: "[") else { return nil }
        var depth = 0
        var inText = false
        var position = index
        while position < bytes.count {
            let byte = bytes[position]
            if inText {
                if byte == UInt8(ascii: "\\") { position += 1 } else if byte == UInt8(ascii: "\"") { inText = false }
            } else if byte == UInt8(ascii: "\"") {
                inText = true
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { return (index + 1)..<position }
            }
            position += 1
        }
        return nil
    }

    /// `new Int8Array([…])` or `new Uint8Array([…])` at `index`: the bytes (each -128 to 255), at most `limit`.
    func byteArray(at index: Int?, limit: Int = 1024) -> [UInt8]? {
        guard let index, bytes[index...].starts(with: Array("new".utf8)) else { return nil }
        var position = skipSpace(index + 3, bytes.count)
        for name in ["Int8Array", "Uint8Array"] where bytes[position...].starts(with: Array(name.utf8)) { position += name.utf8.count }
        position = skipSpace(position, bytes.count)
        guard position < bytes.count, bytes[position] == UInt8(ascii: "(") else { return nil }
        guard let inside = enclosed(at: skipSpace(position + 1, bytes.count)) else { return nil }
        return Self.numbers(bytes[inside], limit: limit)
    }

    /// Comma-separated integers, each -128…255, as bytes; nil for anything else.
    static func numbers(_ text: ArraySlice<UInt8>, limit: Int) -> [UInt8]? {
        var out: [UInt8] = []
        for part in text.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let trimmed = part.drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }.reversed().drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
            let digits = Array(trimmed.reversed())
            if digits.isEmpty && text.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) { return [] }
            let negative = digits.first == UInt8(ascii: "-")
            let body = negative ? Array(digits.dropFirst()) : digits
            guard (1...3).contains(body.count), body.allSatisfy(\.isASCIIDigit), let value = Int(String(decoding: body, as: UTF8.self))
            else { return nil }
            let signed = negative ? -value : value
            guard (-128...255).contains(signed), out.count < limit else { return nil }
            out.append(UInt8(truncatingIfNeeded: signed))
        }
        return out
    }

    /// Every `id: new Int8Array([…])` inside `range` (a list of credentials), at most `limit` of them.
    func credentialIDs(in range: Range<Int>, limit: Int = 64) -> [[UInt8]]? {
        var ids: [[UInt8]] = []
        var from = range.lowerBound
        while let start = property("id", in: from..<range.upperBound) {
            guard ids.count < limit, let id = byteArray(at: start), !id.isEmpty else { return nil }
            ids.append(id)
            from = start + 1
        }
        return ids
    }
}
