extension CBOR {
    /// Why bytes are not one acceptable CBOR item.
    public enum DecodingError: Error, Sendable, Equatable {
        /// The input ends inside an item.
        case truncated
        /// Bytes follow the item (`decode` reads exactly one).
        case trailingBytes
        /// Additional information 28–30, a break outside an indefinite item, or an indefinite string whose
        /// chunks are not of its own type.
        case malformed
        /// A text string that is not UTF-8.
        case invalidUTF8
        /// Nested deeper than `Limits.depth`.
        case tooDeep
        /// More items in all than `Limits.items`, or a length beyond the input.
        case tooLarge
    }

    /// Bounds for reading input nobody vouched for.
    public struct Limits: Sendable {
        public var depth: Int
        public var items: Int

        public init(depth: Int = 16, items: Int = 4096) {
            self.depth = depth
            self.items = items
        }
    }

    /// Exactly one item from `bytes`.
    public static func decode(_ bytes: [UInt8], limits: Limits = Limits()) throws(DecodingError) -> CBOR {
        let (item, consumed) = try decodePrefix(bytes[...], limits: limits)
        guard consumed == bytes.count else { throw .trailingBytes }
        return item
    }

    /// The first item of `bytes` and how many bytes it took: authenticator data's COSE key is followed by
    /// extensions, and a CTAP2 response by nothing the item says how long it is.
    public static func decodePrefix(
        _ bytes: ArraySlice<UInt8>, limits: Limits = Limits()
    ) throws(DecodingError) -> (CBOR, consumed: Int) {
        var reader = CBORReader(bytes: bytes, limits: limits)
        let item = try reader.item(depth: 0)
        return (item, reader.position - bytes.startIndex)
    }
}

/// One pass over the input, bounded by `CBOR.Limits`.
struct CBORReader {
    let bytes: ArraySlice<UInt8>
    let limits: CBOR.Limits
    var position: Int
    var itemCount = 0

    init(bytes: ArraySlice<UInt8>, limits: CBOR.Limits) {
        self.bytes = bytes
        self.limits = limits
        position = bytes.startIndex
    }

    mutating func byte() throws(CBOR.DecodingError) -> UInt8 {
        guard position < bytes.endIndex else { throw .truncated }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func take(_ count: UInt64) throws(CBOR.DecodingError) -> ArraySlice<UInt8> {
        guard count <= UInt64(bytes.endIndex - position) else { throw .truncated }
        let end = position + Int(count)
        defer { position = end }
        return bytes[position..<end]
    }

    mutating func bigEndian(_ count: Int) throws(CBOR.DecodingError) -> UInt64 {
        var value: UInt64 = 0
        for byte in try take(UInt64(count)) { value = value << 8 | UInt64(byte) }
        return value
    }

    /// The argument of a head whose additional information is `info`; nil for an indefinite length (31).
    mutating func argument(_ info: UInt8) throws(CBOR.DecodingError) -> UInt64? {
        switch info {
        case 0..<24: UInt64(info)
        case 24: try bigEndian(1)
        case 25: try bigEndian(2)
        case 26: try bigEndian(4)
        case 27: try bigEndian(8)
        case 31: nil
        default: throw .malformed
        }
    }

    mutating func item(depth: Int) throws(CBOR.DecodingError) -> CBOR {
        guard depth <= limits.depth else { throw .tooDeep }
        itemCount += 1
        guard itemCount <= limits.items else { throw .tooLarge }
        let initial = try byte()
        let major = initial >> 5
        let info = initial & 0x1F
        if major == 7 { return try simpleOrFloat(info) }
        let argument = try argument(info)
        switch major {
        case 0: return .unsigned(try definite(argument))
        case 1: return .negative(try definite(argument))
        case 2: return .bytes(try string(major: 2, length: argument))
        case 3:
            guard let text = String(validating: try string(major: 3, length: argument), as: UTF8.self) else {
                throw .invalidUTF8
            }
            return .text(text)
        case 4: return .array(try array(length: argument, depth: depth))
        case 5: return .map(try map(length: argument, depth: depth))
        default: return .tagged(try definite(argument), try item(depth: depth + 1))
        }
    }

    func definite(_ argument: UInt64?) throws(CBOR.DecodingError) -> UInt64 {
        guard let argument else { throw .malformed }
        return argument
    }

    /// A byte or text string's bytes; an indefinite one is its definite chunks of the same major type.
    mutating func string(major: UInt8, length: UInt64?) throws(CBOR.DecodingError) -> [UInt8] {
        if let length { return Array(try take(length)) }
        var value: [UInt8] = []
        while true {
            let initial = try byte()
            if initial == 0xFF { return value }
            guard initial >> 5 == major, let chunk = try argument(initial & 0x1F) else { throw .malformed }
            value += try take(chunk)
        }
    }

    /// True, consuming it, when the next byte is the break that ends an indefinite item.
    mutating func atBreak() throws(CBOR.DecodingError) -> Bool {
        guard position < bytes.endIndex else { throw .truncated }
        guard bytes[position] == 0xFF else { return false }
        position += 1
        return true
    }

    mutating func array(length: UInt64?, depth: Int) throws(CBOR.DecodingError) -> [CBOR] {
        var items: [CBOR] = []
        if let length {
            // Each item takes at least one byte: a length beyond the input is refused before reserving.
            guard length <= UInt64(bytes.endIndex - position) else { throw .tooLarge }
            for _ in 0..<length { items.append(try item(depth: depth + 1)) }
        } else {
            while try !atBreak() { items.append(try item(depth: depth + 1)) }
        }
        return items
    }

    mutating func map(length: UInt64?, depth: Int) throws(CBOR.DecodingError) -> [CBORPair] {
        var pairs: [CBORPair] = []
        if let length {
            guard length <= UInt64(bytes.endIndex - position) / 2 else { throw .tooLarge }
            for _ in 0..<length { pairs.append(CBORPair(try item(depth: depth + 1), try item(depth: depth + 1))) }
        } else {
            while try !atBreak() { pairs.append(CBORPair(try item(depth: depth + 1), try item(depth: depth + 1))) }
        }
        return pairs
    }

    mutating func simpleOrFloat(_ info: UInt8) throws(CBOR.DecodingError) -> CBOR {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20: return .simple(info)
        case 24:
            let value = try byte()
            guard value >= 32 else { throw .malformed }
            return .simple(value)
        case 25: return .float(Self.half(UInt16(try bigEndian(2))))
        case 26: return .float(Double(Float(bitPattern: UInt32(try bigEndian(4)))))
        case 27: return .float(Double(bitPattern: try bigEndian(8)))
        default: throw .malformed
        }
    }

    /// IEEE 754 half precision (RFC 8949 Appendix D).
    static func half(_ bits: UInt16) -> Double {
        let exponent = Int(bits >> 10 & 0x1F)
        let mantissa = Double(bits & 0x3FF)
        let magnitude: Double =
            switch exponent {
            case 0: mantissa * 0x1p-24
            case 31: mantissa == 0 ? .infinity : .nan
            default: (mantissa + 1024) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
            }
        return bits & 0x8000 != 0 ? -magnitude : magnitude
    }
}
