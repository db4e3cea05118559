#if canImport(Glibc)
    import Glibc
#endif

extension JSONValue {
    /// Appends the text `.object(Dictionary(uniqueKeysWithValues: members))` has `level` levels deep in a
    /// pretty document (`rendered(prettyAtLevel:)`), from members already in the order `.object` writes
    /// them (String's order of the keys, each key once: checked in debug builds), without making the
    /// dictionary, hashing its keys and sorting them: `status --all --json` writes a thousand objects of
    /// 34 members, and those three were two thirds of its instructions. The object is written through a
    /// pointer into a buffer made large enough once per member (`ObjectBytes`), not checked a byte at a
    /// time, then appended in one copy; a value that is neither a string nor a scalar, and a string that
    /// needs an escape, are written as `write` writes them and copied in.
    package static func writeObject(_ members: [(key: String, value: JSONValue)], to output: inout [UInt8], prettyAtLevel level: Int) {
        assert(zip(members, members.dropFirst()).allSatisfy { $0.key < $1.key }, "the members are not in String's order of their keys")
        guard !members.isEmpty else { return output.append(contentsOf: "{}".utf8) }
        // Before each member but the first: a comma, a newline, the member's indent and the key's quote.
        let separator = Array(",\n".utf8) + Array(repeating: UInt8(ascii: " "), count: 2 * (level + 1)) + [UInt8(ascii: "\"")]
        var bytes = ObjectBytes(capacity: 2048)
        defer { bytes.free() }
        bytes.put(UInt8(ascii: "{"))
        separator.withUnsafeBufferPointer { separator in
            for index in members.indices {
                bytes.put(index == 0 ? UnsafeBufferPointer(rebasing: separator.dropFirst()) : separator)
                // The opening quote is the separator's; a key that needs an escape is written whole.
                if !bytes.putPlain(members[index].key, quoted: false) {
                    bytes.count -= 1
                    bytes.putWritten(.string(members[index].key), indent: level + 1)
                } else {
                    bytes.put(UInt8(ascii: "\""))
                }
                bytes.put(UnsafeBufferPointer(start: (": " as StaticString).utf8Start, count: 2))
                bytes.putValue(members[index].value, indent: level + 1)
            }
            bytes.put(UnsafeBufferPointer(rebasing: separator[1..<(separator.count - 3)]))
        }
        bytes.put(UInt8(ascii: "}"))
        output.append(contentsOf: UnsafeBufferPointer(start: bytes.base, count: bytes.count))
    }
}

/// The bytes of one object, written through a pointer: each `put` makes room first (a `realloc` when
/// the buffer is full), with no uniqueness or bounds check of an array per byte.
private struct ObjectBytes {
    private(set) var base: UnsafeMutablePointer<UInt8>
    var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = malloc(capacity)!.assumingMemoryBound(to: UInt8.self)
    }

    func free() { Glibc.free(base) }

    private mutating func room(_ extra: Int) {
        guard count + extra > capacity else { return }
        capacity = max(capacity * 2, count + extra)
        base = realloc(base, capacity)!.assumingMemoryBound(to: UInt8.self)
    }

    mutating func put(_ byte: UInt8) {
        room(1)
        base[count] = byte
        count += 1
    }

    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        room(bytes.count)
        (base + count).update(from: start, count: bytes.count)
        count += bytes.count
    }

    /// The text's bytes as they are (in quotes when `quoted`) when a JSON string holds them so
    /// (`JSONValue.withPlainBytes`); false, nothing written, otherwise.
    mutating func putPlain(_ text: String, quoted: Bool) -> Bool {
        JSONValue.withPlainBytes(text) { bytes in
            if quoted { put(UInt8(ascii: "\"")) }
            put(bytes)
            if quoted { put(UInt8(ascii: "\"")) }
        }
    }

    /// A member's value: a plain string or a literal directly, anything else as `write` writes it.
    mutating func putValue(_ value: JSONValue, indent: Int) {
        switch value {
        case .null: put(UnsafeBufferPointer(start: ("null" as StaticString).utf8Start, count: 4))
        case .bool(true): put(UnsafeBufferPointer(start: ("true" as StaticString).utf8Start, count: 4))
        case .bool(false): put(UnsafeBufferPointer(start: ("false" as StaticString).utf8Start, count: 5))
        case .number(let number) where putPlain(JSONValue.numberText(number), quoted: false): break
        case .string(let text) where putPlain(text, quoted: true): break
        default: putWritten(value, indent: indent)
        }
    }

    /// `value` as `JSONValue.write` writes it `indent` levels deep in a pretty document.
    mutating func putWritten(_ value: JSONValue, indent: Int) {
        var text: [UInt8] = []
        value.write(to: &text, pretty: true, colon: ": ", indent: indent)
        text.withUnsafeBufferPointer { put($0) }
    }
}
