import PingBase
import PingCrypto

/// Why a client certificate file was refused at its gate.
public enum ClientCertificateError: GateFailure, Sendable, Equatable {
    case noCertificate
    case notDER
    case notYetValid(notBefore: Double)
    case expired(notAfter: Double)

    public var message: String {
        switch self {
        case .noCertificate: "holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
        case .notDER: "holds a PEM block that is not an X.509 certificate"
        case .notYetValid(let notBefore): "is not valid before \(formatUTC(notBefore))"
        case .expired(let notAfter): "expired on \(formatUTC(notAfter))"
        }
    }
}

/// The client's certificate for mutual TLS ([RFC 8705](https://www.rfc-editor.org/rfc/rfc8705)): the
/// first PEM certificate of the file, its DER bytes, the validity period, and the SHA-256 thumbprint
/// that certificate-bound tokens carry as `cnf.x5t#S256` (RFC 8705 §3.1). Read with libsodium's base64
/// and SHA-256 and a walk over the few DER fields needed: no X.509 library. libcurl hands the file
/// itself to the TLS library.
public struct ClientCertificate: Sendable, Equatable {
    public let der: [UInt8]
    public let notBefore: Double
    public let notAfter: Double
    /// The issuer name equals the subject name: a self-signed certificate, as
    /// `self_signed_tls_client_auth` (RFC 8705 §2.2) uses.
    public let isSelfIssued: Bool

    /// `x5t#S256`: base64url of the SHA-256 of the DER certificate (RFC 8705 §3.1).
    public var thumbprint: String { Base64URL.encode(Sodium.sha256(der)) }

    /// Parses the first certificate of a PEM file.
    public init(pem bytes: [UInt8]) throws(ClientCertificateError) {
        let text = String(decoding: bytes, as: UTF8.self)
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        guard let start = text.firstRange(ofText: begin), let stop = text[start.upperBound...].firstRange(ofText: end) else {
            throw .noCertificate
        }
        guard let der = Sodium.decodeBase64(text[start.upperBound..<stop.lowerBound], ignoring: " \t\r\n") else {
            throw .notDER
        }
        try self.init(der: der)
    }

    /// The fields of a DER certificate: `Certificate ::= SEQUENCE { tbsCertificate, … }`,
    /// `TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer, validity,
    /// subject, … }` ([RFC 5280 §4.1](https://www.rfc-editor.org/rfc/rfc5280#section-4.1)).
    public init(der: [UInt8]) throws(ClientCertificateError) {
        var outer = DERReader(der[...])
        guard let certificate = outer.next(tag: 0x30), outer.isAtEnd else { throw .notDER }
        var inside = DERReader(certificate)
        guard let tbs = inside.next(tag: 0x30) else { throw .notDER }
        var fields = DERReader(tbs)
        if fields.peekTag == 0xA0 { _ = fields.next(tag: 0xA0) }
        guard fields.next(tag: 0x02) != nil, fields.next(tag: 0x30) != nil, let issuer = fields.next(tag: 0x30),
            let validity = fields.next(tag: 0x30), let subject = fields.next(tag: 0x30)
        else { throw .notDER }
        var times = DERReader(validity)
        guard let notBefore = times.nextTime(), let notAfter = times.nextTime(), times.isAtEnd else { throw .notDER }
        self.der = der
        self.notBefore = notBefore
        self.notAfter = notAfter
        isSelfIssued = Array(issuer) == Array(subject)
    }

    /// Refuses a certificate outside its validity period at `now`: a server would refuse it in the
    /// handshake or at the token endpoint, with a less helpful error.
    public func checkValid(at now: Double) throws(ClientCertificateError) {
        guard now >= notBefore else { throw .notYetValid(notBefore: notBefore) }
        guard now <= notAfter else { throw .expired(notAfter: notAfter) }
    }
}

/// The private key file of the client certificate: only checked to be a PEM private key (unencrypted:
/// pingcli has no passphrase prompt); its bytes are wiped after the check and never copied anywhere.
package enum ClientKeyFile {
    package enum Problem: Equatable {
        case notPrivateKey
        case encrypted
    }

    package static func check(_ bytes: [UInt8]) -> Problem? {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.containsText("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.containsText("Proc-Type: 4,ENCRYPTED") { return .encrypted }
        for kind in ["PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY"] where text.containsText("-----BEGIN \(kind)-----") {
            return nil
        }
        return .notPrivateKey
    }
}

/// Just enough DER ([X.690](https://www.itu.int/rec/T-REC-X.690) §8.1) to walk a certificate: one-byte
/// tags, definite lengths of up to four bytes.
package struct DERReader {
    private var bytes: ArraySlice<UInt8>

    package init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    package var isAtEnd: Bool { bytes.isEmpty }
    package var peekTag: UInt8? { bytes.first }

    /// The contents of the next element when its tag is `tag`; nil (and nothing consumed) otherwise.
    package mutating func next(tag: UInt8) -> ArraySlice<UInt8>? {
        var cursor = bytes.startIndex
        guard cursor < bytes.endIndex, bytes[cursor] == tag else { return nil }
        cursor += 1
        guard cursor < bytes.endIndex else { return nil }
        var length = Int(bytes[cursor])
        cursor += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...4).contains(count), bytes.endIndex - cursor >= count else { return nil }
            length = 0
            for byte in bytes[cursor..<(cursor + count)] { length = length << 8 | Int(byte) }
            cursor += count
        }
        guard bytes.endIndex - cursor >= length else { return nil }
        let contents = bytes[cursor..<(cursor + length)]
        bytes = bytes[(cursor + length)...]
        return contents
    }

    /// A `Time` (RFC 5280 §4.1.2.5): UTCTime `YYMMDDHHMMSSZ` (years 1950–2049) or GeneralizedTime
    /// `YYYYMMDDHHMMSSZ`, as seconds since 1970.
    package mutating func nextTime() -> Double? {
        let digits: ArraySlice<UInt8>
        var year: Int
        if let utc = next(tag: 0x17), utc.count == 13 {
            digits = utc.dropFirst(2)
            guard let short = Self.number(utc.prefix(2)) else { return nil }
            year = short < 50 ? 2000 + short : 1900 + short
        } else if let generalized = next(tag: 0x18), generalized.count == 15 {
            digits = generalized.dropFirst(4)
            guard let long = Self.number(generalized.prefix(4)) else { return nil }
            year = long
        } else {
            return nil
        }
        guard digits.last == UInt8(ascii: "Z"), let month = Self.number(digits.prefix(2)),
            let day = Self.number(digits.dropFirst(2).prefix(2)), let hour = Self.number(digits.dropFirst(4).prefix(2)),
            let minute = Self.number(digits.dropFirst(6).prefix(2)), let second = Self.number(digits.dropFirst(8).prefix(2)),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Days since 1970-01-01 from a civil date (Howard Hinnant's algorithm, as formatUTC inverts).
        if month <= 2 { year -= 1 }
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second)
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
}
