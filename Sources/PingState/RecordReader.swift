/// Reads what `OTPRecords.append` and length-prefixed fields wrote: big-endian integers, and fields of a
/// 2-byte length and at most `maximumField` bytes; nil past the end. The OTP store, the device key records,
/// the status summary and the status index (which read their own 4-byte-length strings with `take`) share it.
package struct RecordReader {
    package let bytes: [UInt8]
    package let maximumField: Int
    private(set) var cursor = 0

    package init(_ bytes: [UInt8], maximumField: Int) {
        self.bytes = bytes
        self.maximumField = maximumField
    }

    /// Reads from `cursor` on (the status index reads one entry of its body where its table says).
    package init(_ bytes: [UInt8], maximumField: Int, at cursor: Int) {
        self.init(bytes, maximumField: maximumField)
        self.cursor = cursor
    }

    package var position: Int { cursor }

    package var atEnd: Bool { cursor == bytes.count }

    /// The next `count` bytes, without a copy.
    package mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, bytes.count - cursor >= count else { return nil }
        defer { cursor += count }
        return bytes[cursor..<(cursor + count)]
    }

    package mutating func integer(_ width: Int) -> UInt64? {
        guard width >= 0, bytes.count - cursor >= width else { return nil }
        // Eight bytes (the status index's fingerprints: 28 a profile) in one load.
        if width == 8 {
            defer { cursor += 8 }
            return bytes.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: cursor, as: UInt64.self)) }
        }
        var value: UInt64 = 0
        for index in cursor..<(cursor + width) { value = value << 8 | UInt64(bytes[index]) }
        cursor += width
        return value
    }

    package mutating func field() -> [UInt8]? {
        guard let length = integer(2).map(Int.init), length <= maximumField, let field = take(length) else { return nil }
        return Array(field)
    }

    package mutating func text() -> String? { field().flatMap { String(validating: $0, as: UTF8.self) } }
}
