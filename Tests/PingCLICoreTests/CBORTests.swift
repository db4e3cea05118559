import Testing

@testable import PingWebAuthn

/// CBOR against RFC 8949 Appendix A's examples (both directions where the encoding is the preferred one),
/// CTAP2's canonical map order, and the bounds on input nobody vouched for.
@Suite("CBOR: RFC 8949 Appendix A, CTAP2 canonical order, limits")
struct CBORTests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// Appendix A items whose encoding is the preferred serialisation: encoded and decoded both ways.
    static let roundTrip: [(CBOR, String)] = [
        (.unsigned(0), "00"), (.unsigned(1), "01"), (.unsigned(10), "0a"), (.unsigned(23), "17"),
        (.unsigned(24), "1818"), (.unsigned(25), "1819"), (.unsigned(100), "1864"), (.unsigned(1000), "1903e8"),
        (.unsigned(1_000_000), "1a000f4240"), (.unsigned(1_000_000_000_000), "1b000000e8d4a51000"),
        (.unsigned(18_446_744_073_709_551_615), "1bffffffffffffffff"),
        (.negative(18_446_744_073_709_551_615), "3bffffffffffffffff"),
        (.int(-1), "20"), (.int(-10), "29"), (.int(-100), "3863"), (.int(-1000), "3903e7"),
        (.float(1.1), "fb3ff199999999999a"), (.float(-4.1), "fbc010666666666666"),
        (.bool(false), "f4"), (.bool(true), "f5"), (.null, "f6"), (.undefined, "f7"), (.simple(16), "f0"),
        (.simple(255), "f8ff"), (.tagged(1, .unsigned(1_363_896_240)), "c11a514b67b0"),
        (.tagged(23, .bytes([1, 2, 3, 4])), "d74401020304"), (.bytes([]), "40"), (.bytes([1, 2, 3, 4]), "4401020304"),
        (.text(""), "60"), (.text("a"), "6161"), (.text("IETF"), "6449455446"), (.text("\"\\"), "62225c"),
        (.text("\u{00fc}"), "62c3bc"), (.text("\u{6c34}"), "63e6b0b4"), (.text("\u{10151}"), "64f0908591"),
        (.array([]), "80"), (.array([.unsigned(1), .unsigned(2), .unsigned(3)]), "83010203"),
        (.array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])]), "8301820203820405"),
        (.array((1...25).map { .unsigned($0) }), "98190102030405060708090a0b0c0d0e0f101112131415161718181819"),
        (.map([]), "a0"), (.map([CBORPair(.unsigned(1), .unsigned(2)), CBORPair(.unsigned(3), .unsigned(4))]), "a201020304"),
        (.map(["a": .unsigned(1), "b": .array([.unsigned(2), .unsigned(3)])]), "a26161016162820203"),
        (.array([.text("a"), .map(["b": .text("c")])]), "826161a161626163"),
    ]

    @Test("Appendix A: each item encodes to its bytes and decodes back")
    func appendixA() throws {
        for (item, text) in Self.roundTrip {
            #expect(item.encoded() == Self.hex(text), "\(text)")
            #expect(try CBOR.decode(Self.hex(text)) == item, "\(text)")
        }
    }

    @Test("Appendix A: half and single floats, indefinite strings, arrays and maps decode")
    func appendixADecodeOnly() throws {
        let floats: [(String, Double)] = [
            ("f90000", 0), ("f98000", -0.0), ("f93c00", 1), ("f93e00", 1.5), ("f97bff", 65504), ("fa47c35000", 100000),
            ("fa7f7fffff", 3.4028234663852886e+38), ("f90001", 5.960464477539063e-8), ("f90400", 0.00006103515625),
            ("f9c400", -4), ("f97c00", .infinity), ("f9fc00", -.infinity), ("fb7e37e43c8800759c", 1.0e+300),
        ]
        for (text, value) in floats { #expect(try CBOR.decode(Self.hex(text)) == .float(value), "\(text)") }
        #expect(try CBOR.decode(Self.hex("f97e00")).isNaN)
        #expect(try CBOR.decode(Self.hex("5f42010243030405ff")) == .bytes([1, 2, 3, 4, 5]))
        #expect(try CBOR.decode(Self.hex("7f657374726561646d696e67ff")) == .text("streaming"))
        let nested: CBOR = .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])
        for text in ["9f018202039f0405ffff", "9f01820203820405ff", "83018202039f0405ff", "83019f0203ff820405"] {
            #expect(try CBOR.decode(Self.hex(text)) == nested, "\(text)")
        }
        #expect(
            try CBOR.decode(Self.hex("bf61610161629f0203ffff")) == .map(["a": .unsigned(1), "b": .array([.unsigned(2), .unsigned(3)])]))
        #expect(try CBOR.decode(Self.hex("bf6346756ef563416d7421ff")) == .map(["Fun": .bool(true), "Amt": .int(-2)]))
    }

    @Test("CTAP2 canonical order: keys by encoded length, then bytes (integers before text, -1 after 3)")
    func canonicalOrder() {
        let coseKey = CBOR.map([-2: .bytes([0xAA]), 3: .int(-7), -1: .unsigned(1), 1: .unsigned(2), -3: .bytes([0xBB])])
        #expect(coseKey.encoded() == Self.hex("a5010203262001" + "2141aa" + "2241bb"))
        let attestation = CBOR.map(["authData": .bytes([1]), "fmt": .text("none"), "attStmt": .map([])])
        #expect(attestation.encoded() == Self.hex("a3" + "63666d74646e6f6e65" + "6761747453746d74a0" + "6861757468446174614101"))
    }

    @Test("decodePrefix reads one item and says where it ended; decode refuses trailing bytes")
    func prefix() throws {
        let bytes = Self.hex("a201020304ff00")
        let (item, consumed) = try CBOR.decodePrefix(bytes[...])
        #expect(item == .map([CBORPair(.unsigned(1), .unsigned(2)), CBORPair(.unsigned(3), .unsigned(4))]))
        #expect(consumed == 5)
        #expect(throws: CBOR.DecodingError.trailingBytes) { try CBOR.decode(bytes) }
        #expect(throws: CBOR.DecodingError.malformed) { try CBOR.decodePrefix(bytes[5...]) }
        let last = try CBOR.decodePrefix(bytes[6...])
        #expect(last.0 == .unsigned(0) && last.consumed == 1)
    }

    @Test("malformed, truncated, non-UTF-8, too deep and too large input is refused")
    func refusals() throws {
        let cases: [(String, CBOR.DecodingError)] = [
            ("", .truncated), ("18", .truncated), ("1c", .malformed), ("ff", .malformed), ("62c3", .truncated),
            ("62c328", .invalidUTF8), ("5f6161ff", .malformed), ("1f", .malformed), ("f818", .malformed),
            ("9bffffffffffffffff", .tooLarge), ("bbffffffffffffffff", .tooLarge), ("5bffffffffffffffff00", .truncated),
            ("9f01", .truncated),
        ]
        for (text, error) in cases { #expect(throws: error, "\(text)") { try CBOR.decode(Self.hex(text)) } }
        let deep = [UInt8](repeating: 0x81, count: 17) + [0x00]
        #expect(throws: CBOR.DecodingError.tooDeep) { try CBOR.decode(deep) }
        #expect(try CBOR.decode(Array(deep.dropFirst())) != .null)
        let many = [0x99, 0x13, 0x88] + [UInt8](repeating: 0x00, count: 5000)
        #expect(throws: CBOR.DecodingError.tooLarge) { try CBOR.decode(many) }
    }

    @Test("accessors read integers, bytes, text and map entries")
    func accessors() throws {
        let key = try CBOR.decode(CBOR.map([1: .unsigned(2), 3: .int(-7), -2: .bytes([9])]).encoded())
        #expect(key[intKey: 1]?.intValue == 2)
        #expect(key[intKey: 3]?.intValue == -7)
        #expect(key[intKey: -2]?.bytesValue == [9])
        #expect(key[intKey: 4] == nil)
        #expect(CBOR.negative(UInt64.max).intValue == nil)
        #expect(CBOR.text("x")["a"] == nil)
    }
}

extension CBOR {
    fileprivate var isNaN: Bool {
        if case .float(let value) = self { value.isNaN } else { false }
    }
}
