import Foundation

/// The emulator's own small CBOR reader (RFC 8949): enough for an attestation object and a COSE key
/// (unsigned and negative integers, byte and text strings, arrays, maps, simple values), definite lengths
/// only, bounded depth. It shares nothing with pingcli's codec on purpose: an independent reading.
indirect enum EmuCBOR: Equatable {
    case int(Int64)
    case bytes([UInt8])
    case text(String)
    case array([EmuCBOR])
    case map([(EmuCBOR, EmuCBOR)])
    case simple(UInt8)

    static func == (lhs: EmuCBOR, rhs: EmuCBOR) -> Bool {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return a == b
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.text(let a), .text(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.simple(let a), .simple(let b)): return a == b
        case (.map(let a), .map(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    subscript(key: EmuCBOR) -> EmuCBOR? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    var bytes: [UInt8]? { if case .bytes(let b) = self { b } else { nil } }
    var integer: Int64? { if case .int(let i) = self { i } else { nil } }
    var text: String? { if case .text(let t) = self { t } else { nil } }

    /// One item from the start of `data`, and how many bytes it took; nil for anything malformed.
    static func decode(_ data: [UInt8], at start: Int = 0) -> (EmuCBOR, Int)? {
        var reader = Reader(data: data, position: start)
        guard let item = reader.item(depth: 0) else { return nil }
        return (item, reader.position - start)
    }

    private struct Reader {
        let data: [UInt8]
        var position: Int

        mutating func byte() -> UInt8? {
            guard position < data.count else { return nil }
            defer { position += 1 }
            return data[position]
        }

        mutating func argument(_ info: UInt8) -> UInt64? {
            switch info {
            case 0..<24: return UInt64(info)
            case 24...27:
                var value: UInt64 = 0
                for _ in 0..<(1 << (info - 24)) {
                    guard let b = byte() else { return nil }
                    value = value << 8 | UInt64(b)
                }
                return value
            default: return nil
            }
        }

        mutating func item(depth: Int) -> EmuCBOR? {
            guard depth < 16, let initial = byte(), let argument = argument(initial & 0x1f) else { return nil }
            switch initial >> 5 {
            case 0: return argument <= UInt64(Int64.max) ? .int(Int64(argument)) : nil
            case 1: return argument <= UInt64(Int64.max) ? .int(-1 - Int64(argument)) : nil
            case 2, 3:
                guard argument <= UInt64(data.count - position) else { return nil }
                let slice = Array(data[position..<(position + Int(argument))])
                position += Int(argument)
                if initial >> 5 == 2 { return .bytes(slice) }
                return String(bytes: slice, encoding: .utf8).map { .text($0) }
            case 4:
                guard argument <= 1024 else { return nil }
                var items: [EmuCBOR] = []
                for _ in 0..<argument {
                    guard let next = item(depth: depth + 1) else { return nil }
                    items.append(next)
                }
                return .array(items)
            case 5:
                guard argument <= 1024 else { return nil }
                var pairs: [(EmuCBOR, EmuCBOR)] = []
                for _ in 0..<argument {
                    guard let key = item(depth: depth + 1), let value = item(depth: depth + 1) else { return nil }
                    pairs.append((key, value))
                }
                return .map(pairs)
            case 7: return initial & 0x1f < 24 ? .simple(initial & 0x1f) : nil
            default: return nil
            }
        }
    }
}
