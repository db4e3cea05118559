import Testing

@testable import PingOTP

/// HOTP and TOTP against the RFCs' own vectors, and the base32 the secrets are written in.
@Suite("OATH: RFC 4226 and RFC 6238 vectors, base32")
struct OATHTests {
    @Test("RFC 4226 Appendix D: HOTP-SHA-1, counters 0 to 9, 6 digits")
    func rfc4226() throws {
        let secret = Array("12345678901234567890".utf8)
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        for (counter, code) in expected.enumerated() {
            #expect(try OATH.hotp(secret: secret, counter: UInt64(counter), algorithm: .sha1, digits: 6) == code, "counter \(counter)")
        }
    }

    @Test("RFC 6238 Appendix B: TOTP with SHA-1, SHA-256 and SHA-512, 8 digits, 30 s")
    func rfc6238() throws {
        let seeds: [OATH.Algorithm: String] = [
            .sha1: "12345678901234567890",
            .sha256: "12345678901234567890123456789012",
            .sha512: "1234567890123456789012345678901234567890123456789012345678901234",
        ]
        let vectors: [(Double, [OATH.Algorithm: String])] = [
            (59, [.sha1: "94287082", .sha256: "46119246", .sha512: "90693936"]),
            (1_111_111_109, [.sha1: "07081804", .sha256: "68084774", .sha512: "25091201"]),
            (1_111_111_111, [.sha1: "14050471", .sha256: "67062674", .sha512: "99943326"]),
            (1_234_567_890, [.sha1: "89005924", .sha256: "91819424", .sha512: "93441116"]),
            (2_000_000_000, [.sha1: "69279037", .sha256: "90698825", .sha512: "38618901"]),
            (20_000_000_000, [.sha1: "65353130", .sha256: "77737706", .sha512: "47863826"]),
        ]
        for (time, codes) in vectors {
            for (algorithm, code) in codes {
                let result = try OATH.totp(secret: Array(seeds[algorithm]!.utf8), time: time, period: 30, algorithm: algorithm, digits: 8)
                #expect(result.code == code, "\(algorithm) at \(time)")
                #expect(result.validFrom <= UInt64(time) && UInt64(time) < result.validUntil && result.validUntil - result.validFrom == 30)
            }
        }
    }

    @Test("6 and 7 digits are the low digits of the same value; any period divides time")
    func digitsAndPeriod() throws {
        let secret = Array("12345678901234567890".utf8)
        #expect(try OATH.totp(secret: secret, time: 59, period: 30, algorithm: .sha1, digits: 6).code == "287082")
        #expect(try OATH.totp(secret: secret, time: 59, period: 30, algorithm: .sha1, digits: 7).code == "4287082")
        // Period 60: step 0 until 60 s, then step 1; RFC 4226's counter 1 is 287082.
        #expect(try OATH.totp(secret: secret, time: 59, period: 60, algorithm: .sha1, digits: 6).code == "755224")
        #expect(try OATH.totp(secret: secret, time: 60, period: 60, algorithm: .sha1, digits: 6).code == "287082")
        let leading = try OATH.hotp(secret: Array("12345678901234567890".utf8), counter: 1, algorithm: .sha1, digits: 8)
        #expect(leading.count == 8)
    }

    @Test("base32: RFC 4648 §10 vectors both ways, lower case, and refusals")
    func base32() {
        let vectors = ["": "", "f": "MY", "fo": "MZXQ", "foo": "MZXW6", "foob": "MZXW6YQ", "fooba": "MZXW6YTB", "foobar": "MZXW6YTBOI"]
        for (plain, encoded) in vectors {
            #expect(Base32.encode(Array(plain.utf8)) == encoded)
            #expect(Base32.decode(Array(encoded.utf8)) == Array(plain.utf8))
            #expect(Base32.decode(Array(encoded.lowercased().utf8)) == Array(plain.utf8))
        }
        for bad in ["M", "MZX", "MZXW6Y", "MZ1W", "MZ8W", "MZ W", "MZ=W", "MZXÉ"] {
            #expect(Base32.decode(Array(bad.utf8)) == nil, "\(bad)")
        }
    }
}
