/// The few DER (ITU-T X.690) structures JOSE keys and signatures need: a SubjectPublicKeyInfo built from
/// a JWK (RFC 5280 §4.1.2.7, RFC 3279, RFC 5480) and the ECDSA signature conversion of RFC 7518 §3.4.
package enum DER {
    package static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xff), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    package static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag] + length(content.count) + content }
    package static func sequence(_ parts: [UInt8]...) -> [UInt8] { element(0x30, parts.flatMap { $0 }) }

    /// A non-negative INTEGER from big-endian bytes: leading zeros dropped, one added before a high bit.
    package static func unsignedInteger(_ bytes: [UInt8]) -> [UInt8] {
        var trimmed = Array(bytes.drop(while: { $0 == 0 }))
        if trimmed.isEmpty { trimmed = [0] }
        if trimmed[0] & 0x80 != 0 { trimmed.insert(0, at: 0) }
        return element(0x02, trimmed)
    }

    package static let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]
    package static let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]
    package static let null: [UInt8] = [0x05, 0x00]

    /// The OID of a named curve (RFC 5480 §2.1.1.1).
    package static func curveOID(_ curve: ECCurve) -> [UInt8] {
        switch curve {
        case .p256: [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]
        case .p384: [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22]
        case .p521: [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23]
        }
    }

    /// SubjectPublicKeyInfo of an RSA public key (RFC 3279 §2.3.1).
    package static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        let key = sequence(unsignedInteger(modulus), unsignedInteger(exponent))
        return sequence(sequence(rsaEncryption, null), element(0x03, [0] + key))
    }

    /// SubjectPublicKeyInfo of an uncompressed EC point (RFC 5480 §2.2).
    package static func ecPublicKey(curve: ECCurve, x: [UInt8], y: [UInt8]) -> [UInt8] {
        sequence(sequence(ecPublicKey, curveOID(curve)), element(0x03, [0, 0x04] + x + y))
    }

    /// JWS's R || S (RFC 7518 §3.4) as the DER Ecdsa-Sig-Value libcrypto verifies; nil unless the
    /// signature is exactly twice the curve's coordinate size.
    package static func ecdsaSignature(raw: [UInt8], coordinateSize: Int) -> [UInt8]? {
        guard raw.count == 2 * coordinateSize else { return nil }
        return sequence(unsignedInteger(Array(raw[..<coordinateSize])), unsignedInteger(Array(raw[coordinateSize...])))
    }

    /// The DER Ecdsa-Sig-Value libcrypto makes as JWS's fixed-size R || S; nil when it is malformed.
    package static func rawECDSASignature(der: [UInt8], coordinateSize: Int) -> [UInt8]? {
        var reader = Reader(der)
        guard let body = reader.read(tag: 0x30), reader.atEnd else { return nil }
        var inner = Reader(body)
        guard let r = inner.read(tag: 0x02), let s = inner.read(tag: 0x02), inner.atEnd else { return nil }
        func fixed(_ integer: [UInt8]) -> [UInt8]? {
            let trimmed = Array(integer.drop(while: { $0 == 0 }))
            guard trimmed.count <= coordinateSize else { return nil }
            return [UInt8](repeating: 0, count: coordinateSize - trimmed.count) + trimmed
        }
        guard let rBytes = fixed(r), let sBytes = fixed(s) else { return nil }
        return rBytes + sBytes
    }

    /// Reads definite-length DER elements one after another.
    package struct Reader {
        private let bytes: [UInt8]
        private var offset = 0
        package init(_ bytes: [UInt8]) { self.bytes = bytes }
        package var atEnd: Bool { offset == bytes.count }

        package mutating func read(tag: UInt8) -> [UInt8]? {
            guard offset + 2 <= bytes.count, bytes[offset] == tag else { return nil }
            var cursor = offset + 1
            var count = Int(bytes[cursor])
            cursor += 1
            if count & 0x80 != 0 {
                let octets = count & 0x7f
                guard (1...3).contains(octets), cursor + octets <= bytes.count else { return nil }
                count = bytes[cursor..<cursor + octets].reduce(0) { $0 << 8 | Int($1) }
                cursor += octets
            }
            guard cursor + count <= bytes.count else { return nil }
            offset = cursor + count
            return Array(bytes[cursor..<offset])
        }
    }
}
