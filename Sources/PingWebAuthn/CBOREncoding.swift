extension CBOR {
    /// The item in CTAP2's canonical encoding: the shortest head for every length and integer, definite
    /// lengths, map keys ordered by their encoded bytes (shorter first, then bytewise), floats as doubles.
    public func encoded() -> [UInt8] {
        var output: [UInt8] = []
        encode(into: &output)
        return output
    }

    func encode(into output: inout [UInt8]) {
        switch self {
        case .unsigned(let value): Self.head(0, value, into: &output)
        case .negative(let value): Self.head(1, value, into: &output)
        case .bytes(let value):
            Self.head(2, UInt64(value.count), into: &output)
            output += value
        case .text(let value):
            Self.head(3, UInt64(value.utf8.count), into: &output)
            output += value.utf8
        case .array(let items):
            Self.head(4, UInt64(items.count), into: &output)
            for item in items { item.encode(into: &output) }
        case .map(let pairs): Self.encodeMap(pairs, into: &output)
        case .tagged(let tag, let item):
            Self.head(6, tag, into: &output)
            item.encode(into: &output)
        case .bool(let value): output.append(value ? 0xF5 : 0xF4)
        case .null: output.append(0xF6)
        case .undefined: output.append(0xF7)
        case .simple(let value):
            if value < 24 { output.append(0xE0 | value) } else { output += [0xF8, value] }
        case .float(let value):
            output.append(0xFB)
            Self.appendBigEndian(value.bitPattern, count: 8, into: &output)
        }
    }

    private static func encodeMap(_ pairs: [CBORPair], into output: inout [UInt8]) {
        let entries = pairs.map { (key: $0.key.encoded(), value: $0.value) }
            .sorted { left, right in
                left.key.count != right.key.count
                    ? left.key.count < right.key.count : left.key.lexicographicallyPrecedes(right.key)
            }
        head(5, UInt64(entries.count), into: &output)
        for entry in entries {
            output += entry.key
            entry.value.encode(into: &output)
        }
    }

    /// A data item's head (RFC 8949 §3): the major type and the argument in its shortest form.
    static func head(_ major: UInt8, _ argument: UInt64, into output: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: output.append(type | UInt8(argument))
        case 24...0xFF: output += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF:
            output.append(type | 25)
            appendBigEndian(argument, count: 2, into: &output)
        case 0x1_0000...0xFFFF_FFFF:
            output.append(type | 26)
            appendBigEndian(argument, count: 4, into: &output)
        default:
            output.append(type | 27)
            appendBigEndian(argument, count: 8, into: &output)
        }
    }

    private static func appendBigEndian(_ value: UInt64, count: Int, into output: inout [UInt8]) {
        for index in stride(from: count - 1, through: 0, by: -1) {
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(index * 8)))
        }
    }
}
