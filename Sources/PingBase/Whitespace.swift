/// Text without the Unicode whitespace around it (pasted issuers, header values, form fields).
extension String {
    /// Text that ends in ASCII on both sides (the generation record, an environment variable) is trimmed
    /// as bytes, without the scalar view, whose generic metadata the runtime builds by demangling on
    /// first use (0.14 M instructions of `token --raw`, docs/performance.md).
    package var trimmingWhitespace: String {
        if let trimmed = asciiTrimmed(utf8) { return trimmed }
        return self[...].unicodeScalarTrimmed
    }
}

extension Substring {
    /// A header line's value, a split field: as `String.trimmingWhitespace`.
    package var trimmingWhitespace: String {
        if let trimmed = asciiTrimmed(utf8) { return trimmed }
        return unicodeScalarTrimmed
    }

    /// The scalar walk: for text that has a byte beyond ASCII at either end of what is kept.
    fileprivate var unicodeScalarTrimmed: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}

/// The text between the first and the last byte that is ASCII and not whitespace, when the bytes
/// outside them are ASCII whitespace (tab, line feed, vertical tab, form feed, carriage return, space:
/// the ASCII scalars whose `isWhitespace` property is true). nil when a byte beyond ASCII is met
/// before either end is found, or when there is nothing but whitespace: the scalar walk decides then.
@inline(__always)
private func asciiTrimmed<View: BidirectionalCollection>(_ bytes: View) -> String? where View.Element == UInt8 {
    func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
    guard let first = bytes.firstIndex(where: { !isWhitespace($0) }), bytes[first] < 0x80,
        let last = bytes.lastIndex(where: { !isWhitespace($0) }), bytes[last] < 0x80
    else { return nil }
    return String(decoding: bytes[first...last], as: UTF8.self)
}
