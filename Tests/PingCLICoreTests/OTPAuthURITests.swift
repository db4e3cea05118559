import Testing

@testable import PingAuthenticators
@testable import PingOTP

/// The gate for `otpauth://` and `mfauth://` registration URIs: what it accepts, and each refusal by rule.
@Suite("otpauth:// gate")
struct OTPAuthURITests {
    /// "12345678901234567890" in base32.
    static let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

    func rule(_ uri: String, name: String? = nil) -> String? {
        do {
            _ = try OTPAuthURI.parse(uri, name: name)
            return nil
        } catch { return error.rule.rawValue }
    }

    @Test("a full TOTP URI: label issuer and account, every parameter read")
    func totp() throws {
        let account = try OTPAuthURI.parse(
            "otpauth://totp/ACME%20Co:alice@example.com?secret=\(Self.secret)&issuer=ACME%20Co&algorithm=SHA256&digits=8&period=60\n")
        #expect(account.name == "ACME Co:alice@example.com")
        #expect(account.issuer == "ACME Co" && account.account == "alice@example.com")
        #expect(account.kind == .totp && account.algorithm == .sha256 && account.digits == 8 && account.period == 60)
        #expect(account.secret == Array("12345678901234567890".utf8))
        #expect(!"\(account)".contains(Self.secret) && !"\(account)".contains("1234567890"), "description shows no secret")
    }

    @Test("defaults: SHA1, 6 digits, 30 s; HOTP counter; lower-case padded secret; unknown parameters skipped")
    func defaults() throws {
        let totp = try OTPAuthURI.parse("otpauth://totp/alice?secret=\(Self.secret.lowercased())====&image=https%3A%2F%2Fx%2Fi.png")
        #expect(totp.name == "alice" && totp.issuer == nil && totp.algorithm == .sha1 && totp.digits == 6 && totp.period == 30)
        let hotp = try OTPAuthURI.parse("OTPAUTH://HOTP/Example:bob?secret=\(Self.secret)&counter=42&issuer=Example")
        #expect(hotp.kind == .hotp && hotp.counter == 42 && hotp.name == "Example:bob")
        let named = try OTPAuthURI.parse("otpauth://totp/Example:bob?secret=\(Self.secret)", name: "work")
        #expect(named.name == "work" && named.issuer == "Example")
        let space = try OTPAuthURI.parse("otpauth://totp/Example:%20bob+jones?secret=\(Self.secret)")
        #expect(space.account == "bob+jones", "a space after the colon is dropped; + in a path is itself")
    }

    @Test("mfauth: Ping's combined URI gives its OATH half; push parameters are skipped")
    func mfauth() throws {
        let uri =
            "mfauth://totp/ForgeRock:demo?a=aHR0cHM6Ly9hbS5leGFtcGxlL3B1c2g&image=aHR0cA&b=ff00ff&r=aHR0cHM6Ly9y&s=ryJkqNRjXYd&c=Y2hhbGxlbmdl&l=YW1sYmNvb2tpZQ&m=REGISTER&policies=e30&digits=6&secret=\(Self.secret)&period=30&issuer=ForgeRock"
        let account = try OTPAuthURI.parse(uri)
        #expect(account.name == "ForgeRock:demo" && account.kind == .totp && account.digits == 6)
        #expect(rule("mfauth://totp/ForgeRock:demo?a=aHR0cA&s=c2VjcmV0&issuer=ForgeRock") == "otp-secret-missing")
    }

    @Test("otp-uri-scheme: only otpauth and mfauth; pushauth said to be push only")
    func scheme() {
        #expect(rule("https://example.com/totp/a?secret=\(Self.secret)") == "otp-uri-scheme")
        #expect(rule("pushauth://push/ForgeRock:demo?a=x") == "otp-uri-scheme")
        #expect(rule("otpauth:totp/a?secret=\(Self.secret)") == "otp-uri-scheme")
        #expect(rule(Self.secret) == "otp-uri-scheme")
    }

    @Test("otp-uri-type: totp or hotp")
    func type() {
        #expect(rule("otpauth://motp/a?secret=\(Self.secret)") == "otp-uri-type")
        #expect(rule("otpauth://totp?secret=\(Self.secret)") == "otp-uri-type")
    }

    @Test("otp-secret-base32: characters outside the alphabet or an impossible length; no secret in the message")
    func badBase32() throws {
        for bad in ["GEZDGNBVGY3TQOJQ1", "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ0", "GEZDGNBVG!3TQOJQ", "GEZDGNBVGY3TQOJQG"] {
            #expect(rule("otpauth://totp/a?secret=\(bad)") == "otp-secret-base32", "\(bad)")
        }
        do {
            _ = try OTPAuthURI.parse("otpauth://totp/a?secret=GEZDGNBVGY3TQOJ8")
            Issue.record("accepted")
        } catch { #expect(!error.message.contains("GEZDGNBV")) }
    }

    @Test("otp-secret-length and otp-secret-missing")
    func secretLength() {
        #expect(rule("otpauth://totp/a?secret=MZXW6YTBOI") == "otp-secret-length", "6 bytes")
        #expect(rule("otpauth://totp/a?secret=" + String(repeating: "A", count: 216)) == "otp-secret-length", "135 bytes")
        #expect(rule("otpauth://totp/a?issuer=x") == "otp-secret-missing")
        #expect(rule("otpauth://totp/a?secret=") == "otp-secret-missing")
    }

    @Test("otp-algorithm: SHA1, SHA256 or SHA512 only")
    func unknownAlgorithm() {
        for bad in ["MD5", "SHA384", "SHA-256", "sha3", ""] {
            #expect(rule("otpauth://totp/a?secret=\(Self.secret)&algorithm=\(bad)") == "otp-algorithm", "\(bad)")
        }
        #expect(rule("otpauth://totp/a?secret=\(Self.secret)&algorithm=sha512") == nil)
    }

    @Test("otp-digits: 6 to 8")
    func digitsOutOfRange() {
        for bad in ["5", "9", "10", "0", "-6", "+6", "6.0", "06", "", "six"] {
            #expect(rule("otpauth://totp/a?secret=\(Self.secret)&digits=\(bad)") == "otp-digits", "\(bad)")
        }
    }

    @Test("otp-period: 1 to 86400 seconds; huge values refused, not wrapped")
    func hugePeriod() {
        for bad in ["0", "86401", "4294967326", "99999999999999999999999", "-30", "30s", ""] {
            #expect(rule("otpauth://totp/a?secret=\(Self.secret)&period=\(bad)") == "otp-period", "\(bad)")
        }
        #expect(rule("otpauth://totp/a?secret=\(Self.secret)&period=86400") == nil)
    }

    @Test("otp-counter: a whole number below 2^63; huge values refused, not wrapped")
    func hugeCounter() {
        for bad in ["9223372036854775807", "18446744073709551615", "18446744073709551616", "99999999999999999999999", "-1", "1e3", ""] {
            #expect(rule("otpauth://hotp/a?secret=\(Self.secret)&counter=\(bad)") == "otp-counter", "\(bad)")
        }
        #expect(rule("otpauth://hotp/a?secret=\(Self.secret)&counter=9223372036854775806") == nil)
    }

    @Test("otp-label: control characters, bidi overrides, empty parts, a slash, bad escapes")
    func labelWithControls() {
        for bad in ["a%1B%5B2Jb", "a%0Ab", "a%E2%80%AEb", "a%7Fb", ":bob", "Issuer:", "", "a/b", "a%zz", "a%C3"] {
            #expect(rule("otpauth://totp/\(bad)?secret=\(Self.secret)") == "otp-label", "\(bad)")
        }
        #expect(rule("otpauth://totp/" + String(repeating: "a", count: 201) + "?secret=\(Self.secret)") == "otp-label")
        #expect(rule("otpauth://totp/a?secret=\(Self.secret)&issuer=Evil%1B%5D0%3Bx%07") == "otp-label", "the issuer parameter too")
    }

    @Test("otp-duplicate-parameter: each parameter once, names compared without case")
    func duplicateParameters() {
        #expect(rule("otpauth://totp/a?secret=\(Self.secret)&secret=\(Self.secret)") == "otp-duplicate-parameter")
        #expect(rule("otpauth://totp/a?secret=\(Self.secret)&digits=6&DIGITS=8") == "otp-duplicate-parameter")
        #expect(rule("otpauth://totp/a?secret=\(Self.secret)&image=x&image=y") == "otp-duplicate-parameter")
    }

    @Test("otp-issuer-mismatch: the label's issuer and the issuer parameter must agree")
    func issuerMismatch() {
        #expect(rule("otpauth://totp/Bank:alice?secret=\(Self.secret)&issuer=Evil") == "otp-issuer-mismatch")
    }

    @Test("otp-uri-characters and otp-uri-size: raw spaces, controls, non-ASCII, fragments, size")
    func characters() {
        for bad in [
            "otpauth://totp/a b?secret=\(Self.secret)", "otpauth://totp/a?secret=\(Self.secret)\u{1b}",
            "otpauth://totp/é?secret=\(Self.secret)",
            "otpauth://totp/a?secret=\(Self.secret)#x", "otpauth://totp/a?secret=\(Self.secret)&x=%zz",
        ] {
            #expect(rule(bad) == "otp-uri-characters", "\(bad.debugDescription)")
        }
        #expect(rule("otpauth://totp/a?secret=\(Self.secret)&image=" + String(repeating: "x", count: 8200)) == "otp-uri-size")
    }

    @Test("otp-name: --name is display-safe and not an option")
    func names() {
        for bad in ["", "-x", "a\u{1b}b", "a\nb", String(repeating: "n", count: 201)] {
            #expect(rule("otpauth://totp/a?secret=\(Self.secret)", name: bad) == "otp-name", "\(bad.debugDescription)")
        }
    }
}

@Suite("OTP store records")
struct OTPRecordsTests {
    @Test("otp-store-origins: format 4 keeps each account's AM origin; a format 3 store's records still read, without origin")
    func origins() throws {
        var scoped = try OTPAuthURI.parse("otpauth://totp/A:b?secret=\(OTPAuthURITests.secret)")
        scoped.origin = "https://am.example.com"
        let plain = try OTPAuthURI.parse("otpauth://totp/A:b?secret=\(OTPAuthURITests.secret)")
        #expect(OTPRecords.decode(OTPRecords.encode([scoped, plain])) == [scoped, plain])
        // A format 3 record is the format 4 one without its last field (the origin, empty here: two zero bytes).
        let formatThree = Array(OTPRecords.encode([plain]).dropLast(2))
        #expect(OTPRecords.decode(formatThree, origins: false) == [plain])
        #expect(OTPRecords.decode(formatThree) == nil && OTPRecords.decode(OTPRecords.encode([plain]), origins: false) == nil)
    }

    @Test("otp-store-damaged: records round-trip; truncated, trailing or out-of-range records are refused")
    func records() throws {
        let totp = try OTPAuthURI.parse("otpauth://totp/A:b?secret=\(OTPAuthURITests.secret)&algorithm=SHA512&digits=7&period=45")
        let hotp = try OTPAuthURI.parse("otpauth://hotp/c?secret=\(OTPAuthURITests.secret)&counter=9223372036854775806")
        let bytes = OTPRecords.encode([totp, hotp])
        #expect(OTPRecords.decode(bytes) == [totp, hotp])
        #expect(OTPRecords.decode(OTPRecords.encode([])) == [])
        #expect(OTPRecords.decode(Array(bytes.dropLast())) == nil)
        #expect(OTPRecords.decode(bytes + [0]) == nil)
        var badDigits = bytes
        badDigits[4] = 9  // count (2), kind (1), algorithm (1), then digits
        #expect(OTPRecords.decode(badDigits) == nil)
        var badAlgorithm = bytes
        badAlgorithm[3] = 3
        #expect(OTPRecords.decode(badAlgorithm) == nil)
    }
}
