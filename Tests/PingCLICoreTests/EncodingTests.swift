import Testing

@testable import PingBase
@testable import PingCrypto
@testable import PingOAuth

@Suite("PKCE (RFC 7636)")
struct PKCETests {
    @Test("RFC 7636 Appendix B: the example verifier gives the example challenge")
    func appendixBVector() throws {
        let pkce = try #require(PKCE(codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
        #expect(pkce.codeChallenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(pkce.codeChallengeMethod == "S256")
    }

    @Test("a generated verifier is 32 random bytes: 43 base64url characters, new each time")
    func generatedVerifier() {
        let first = PKCE.generate()
        let second = PKCE.generate()
        #expect(first.codeVerifier.count == 43)
        #expect(first.codeVerifier != second.codeVerifier)
        #expect(PKCE(codeVerifier: first.codeVerifier)?.codeChallenge == first.codeChallenge)
    }

    @Test("pkce-verifier-length: fewer than 43 or more than 128 characters are refused (§4.1)")
    func verifierLength() {
        #expect(PKCE(codeVerifier: String(repeating: "a", count: 42)) == nil)
        #expect(PKCE(codeVerifier: String(repeating: "a", count: 43)) != nil)
        #expect(PKCE(codeVerifier: String(repeating: "a", count: 128)) != nil)
        #expect(PKCE(codeVerifier: String(repeating: "a", count: 129)) == nil)
    }

    @Test("pkce-verifier-charset: characters outside the unreserved set are refused (§4.1)")
    func verifierCharacters() {
        #expect(PKCE(codeVerifier: String(repeating: "a", count: 42) + "+") == nil)
        #expect(PKCE(codeVerifier: String(repeating: "a", count: 42) + "é") == nil)
    }

    @Test("state and nonce are 32 random bytes each")
    func randomValues() {
        let value = RandomValue.generate()
        #expect(Base64URL.decode(value)?.count == 32)
        #expect(value != RandomValue.generate())
    }
}

@Suite("base64url (RFC 4648 §5, §10 vectors)")
struct Base64URLTests {
    @Test(
        "RFC 4648 §10 vectors, unpadded",
        arguments: [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ])
    func vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test("the URL-safe alphabet is used for bytes 62 and 63")
    func urlSafeAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
    }

    @Test("base64url-invalid: padding, standard-alphabet characters, impossible lengths and stray bits are refused")
    func invalid() {
        #expect(Base64URL.decode("Zg==") == nil)
        #expect(Base64URL.decode("+/8") == nil)
        #expect(Base64URL.decode("Z") == nil)
        #expect(Base64URL.decode("Zh") == nil)  // "Zg" with a non-zero leftover bit
    }

    @Test(
        "base64-non-ascii: a byte outside ASCII is refused, in both alphabets (libsodium 1.0.18 reads any byte from 0x80 up as '_' or '/')")
    func nonASCIIRefused() {
        // Four or eight bytes of UTF-8 each: lengths libsodium would otherwise decode.
        for text in ["Zm\u{E9}", "Zm9vY\u{FFFD}", "\u{E9}\u{E9}"] {
            #expect(text.utf8.count % 4 == 0)
            #expect(Base64URL.decode(text) == nil, "\(text.debugDescription)")
            #expect(Sodium.decodeBase64(text) == nil, "\(text.debugDescription)")
            #expect(decodePublic(text) == nil, "\(text.debugDescription)")
        }
        #expect(Sodium.decodeBase64("Zm9v") == Array("foo".utf8))
    }

    func decodePublic(_ text: String) -> [UInt8]? { Array(text.utf8).withUnsafeBufferPointer(Base64URL.decodePublic) }

    @Test(
        "base64url-public-same-rules: the table decoder for JWS parts agrees with libsodium's constant-time one on the vectors, every invalid case and 20,000 random texts"
    )
    func publicDecoderAgrees() {
        for text in ["", "Zg", "Zm8", "Zm9v", "Zm9vYmFy", "-_8", "Zg==", "+/8", "Z", "Zh", "Zm9vY", "Zm9=", "Zm 9v", "Zm9v\n", "\u{0}A"] {
            #expect(decodePublic(text) == Base64URL.decode(text), "\(text.debugDescription)")
        }
        #expect(decodePublic("Zm9vYmFy") == Array("foobar".utf8))
        // Mostly the alphabet, sometimes a byte outside it, at every length up to 40.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var generator = SystemRandomNumberGenerator()
        var refused = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &generator)
            let bytes = (0..<length).map { _ in
                Int.random(in: 0..<50, using: &generator) == 0
                    ? UInt8.random(in: 0...255, using: &generator) : alphabet.randomElement(using: &generator)!
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let expected = Base64URL.decode(text)
            if expected == nil { refused += 1 }
            #expect(decodePublic(text) == expected, "\(text.debugDescription)")
        }
        #expect(refused > 1_000, "the random texts must include refused ones")
    }
}

@Suite("form encoding (RFC 6749 Appendix B)")
struct FormEncodingTests {
    @Test("reserved characters in values are escaped so they cannot change the meaning")
    func escapesReserved() {
        #expect(FormEncoding.encode([("a", "b c+d&e=f/é")]) == "a=b%20c%2Bd%26e%3Df%2F%C3%A9")
    }

    @Test("decoding reads + as a space and reverses escapes, keeping order and repeats")
    func decode() throws {
        let pairs = try #require(FormEncoding.decode("a=b+c&d=%2B&a=2&flag"))
        #expect(pairs.map(\.name) == ["a", "d", "a", "flag"])
        #expect(pairs.map(\.value) == ["b c", "+", "2", ""])
    }

    @Test("form-malformed-escape: a broken percent escape or invalid UTF-8 is refused, not guessed")
    func malformed() {
        #expect(FormEncoding.decode("a=%4") == nil)
        #expect(FormEncoding.decode("a=%zz") == nil)
        #expect(FormEncoding.decode("a=%FF") == nil)
    }
}

@Suite("display safety")
struct DisplaySafeTests {
    @Test("server text loses control characters and escape sequences and is cut to length")
    func controlCharacters() {
        #expect(displaySafe("bad\n\u{1B}[31mred") == "bad  [31mred")
        #expect(displaySafe(String(repeating: "x", count: 500), limit: 10) == String(repeating: "x", count: 10) + "…")
    }

    @Test("UTC formatting matches known instants")
    func utc() {
        #expect(formatUTC(0) == "1970-01-01T00:00:00Z")
        #expect(formatUTC(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(formatUTC(1_795_287_890) == "2026-11-21T19:04:50Z")
    }

    @Test("time formatting is total: out-of-range, infinite and NaN values neither trap nor lie")
    func utcExtremes() {
        #expect(formatUTC(9.4e25) == "9999-12-31T23:59:59Z")
        #expect(formatUTC(.infinity) == "9999-12-31T23:59:59Z")
        #expect(formatUTC(-.infinity) == "1970-01-01T00:00:00Z")
        #expect(formatUTC(.nan) == "unknown")
        #expect(describeInterval(90) == "in 1m 30s")
        #expect(describeInterval(-7200) == "expired 2h 0m ago")
        #expect(describeInterval(9.4e25).hasPrefix("in "))
        #expect(describeInterval(-.infinity).hasPrefix("expired "))
        #expect(describeInterval(.nan) == "at an unknown time")
    }
}
