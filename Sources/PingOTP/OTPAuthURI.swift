import PingBase
import PingCrypto

/// One OATH account: what an `otpauth://` (or Ping's `mfauth://`) URI registers, and what the OTP store
/// keeps (`OTPStore`). `secret` is the HMAC key; it never goes into a message, a log or `description`.
package struct OTPAccount: Sendable, Equatable, CustomStringConvertible {
    package enum Kind: String, Sendable, Equatable {
        case totp, hotp
    }

    /// What `otp code NAME` finds it by: the label (`issuer:account`) or `otp add --name`.
    package var name: String
    package var issuer: String?
    package var account: String
    package var kind: Kind
    package var algorithm: OATH.Algorithm
    package var digits: Int
    /// TOTP: seconds per code.
    package var period: UInt32
    /// HOTP: the counter of the next code.
    package var counter: UInt64
    package var secret: [UInt8]
    /// The origin of the PingAM whose OATH registration step gave the account (`https://am.example.com`);
    /// nil for `otp add` and for accounts stored before origins were kept. A name is unique per origin.
    package var origin: String? = nil

    package init(
        name: String, issuer: String?, account: String, kind: Kind, algorithm: OATH.Algorithm, digits: Int, period: UInt32,
        counter: UInt64, secret: [UInt8], origin: String? = nil
    ) {
        self.origin = origin
        self.name = name
        self.issuer = issuer
        self.account = account
        self.kind = kind
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        self.counter = counter
        self.secret = secret
    }

    package var description: String { "OTPAccount(\(name), \(kind.rawValue), \(algorithm.rawValue), \(digits) digits)" }
}

/// The gate for `otpauth://TYPE/LABEL?secret=…&issuer=…&algorithm=…&digits=…&period=…&counter=…` (the
/// Key URI format authenticators share) and Ping's combined `mfauth://` URI, which carries the same OATH
/// parameters beside push ones (ignored here: a command-line tool cannot receive pushes). Everything is
/// checked before an account exists: a failure names the parameter, never its value when it is secret.
package enum OTPAuthURI {
    /// Longer than any registration URI (a combined one with its image URL is about 1 KiB).
    package static let maximumLength = 8192
    package static let maximumLabelLength = 200
    package static let secretBytes = 10...128
    package static let periodRange: ClosedRange<UInt32> = 1...86_400
    /// Parameters read; any other name (`image`, the push parameters of `mfauth`) is skipped unread.
    package static let known: Set<String> = ["secret", "issuer", "algorithm", "digits", "period", "counter"]

    package static func refuse(_ message: String, _ rule: Rule) -> PingCLIError { .failure(message, rule: rule) }

    /// The account the URI registers, named `name` when given, else by its label.
    package static func parse(_ input: String, name: String? = nil) throws(PingCLIError) -> OTPAccount {
        let text = input.trimmingWhitespace
        guard text.utf8.count <= maximumLength else {
            throw refuse("the OTP URI is longer than \(maximumLength) bytes: it is not a registration URI", .otpUriSize)
        }
        guard !text.utf8.contains(where: { $0 < 0x21 || $0 > 0x7E }) else {
            throw refuse(
                "the OTP URI holds spaces, control or non-ASCII characters: give the URI exactly as the QR code holds it",
                .otpUriCharacters)
        }
        let (scheme, kind, label, query) = try split(text)
        let parameters = try queryParameters(query)
        let (labelIssuer, account) = try splitLabel(label)
        let issuer = try parameters["issuer"].map { value throws(PingCLIError) in try checkedText(value, what: "issuer") }
        if let labelIssuer, let issuer, labelIssuer != issuer {
            throw refuse(
                "the OTP URI's label names the issuer \"\(displaySafe(labelIssuer, limit: 60))\" but its issuer parameter says \"\(displaySafe(issuer, limit: 60))\": check where the URI came from",
                .otpIssuerMismatch)
        }
        guard let encoded = parameters["secret"], !encoded.isEmpty else {
            throw refuse(
                scheme == "mfauth"
                    ? "the mfauth URI has no OATH secret (it registers push only, which pingcli cannot receive)"
                    : "the OTP URI has no secret parameter", .otpSecretMissing)
        }
        var secret = try decodeSecret(encoded)
        defer { Sodium.wipe(&secret) }
        let algorithm = try parameters["algorithm"].map(algorithm) ?? .sha1
        let digits = try parameters["digits"].map(digits) ?? 6
        let period = try parameters["period"].map(period) ?? 30
        let counter = try parameters["counter"].map(counter) ?? 0
        let chosenIssuer = labelIssuer ?? issuer
        let accountName = try name.map(checkedName) ?? (chosenIssuer.map { "\($0):\(account)" } ?? account)
        return OTPAccount(
            name: accountName, issuer: chosenIssuer, account: account, kind: kind, algorithm: algorithm, digits: digits,
            period: period, counter: counter, secret: secret)
    }

    /// Scheme, type, the label (percent-decoded) and the query.
    package static func split(_ text: String) throws(PingCLIError) -> (String, OTPAccount.Kind, String, Substring) {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else {
            throw refuse("that is not an OTP URI: it must start with otpauth:// (or mfauth://)", .otpUriScheme)
        }
        let scheme = text[..<colon].lowercased()
        guard scheme == "otpauth" || scheme == "mfauth" else {
            let why = scheme == "pushauth" ? " (a pushauth URI registers push only, which pingcli cannot receive)" : ""
            throw refuse("an OTP URI starts with otpauth:// or mfauth://, not \(displaySafe(scheme, limit: 20))://\(why)", .otpUriScheme)
        }
        let rest = text[text.index(colon, offsetBy: 3)...]
        guard !rest.contains("#") else { throw refuse("the OTP URI has a fragment (#…): give the URI without it", .otpUriCharacters) }
        let pathEnd = rest.firstIndex(of: "?") ?? rest.endIndex
        let path = rest[..<pathEnd]
        let query = pathEnd == rest.endIndex ? "" : rest[rest.index(after: pathEnd)...]
        guard let slash = path.firstIndex(of: "/"), let kind = OTPAccount.Kind(rawValue: path[..<slash].lowercased()) else {
            throw refuse("the OTP URI's type must be totp or hotp (\(scheme)://totp/LABEL?secret=…)", .otpUriType)
        }
        // In a path `+` is itself, not a space.
        let rawLabel = path[path.index(after: slash)...].split(separator: "+", omittingEmptySubsequences: false).joined(separator: "%2B")
        guard !rawLabel.contains("/"), let label = FormEncoding.unescape(rawLabel) else {
            throw refuse("the OTP URI's label is not a valid percent-encoded name", .otpLabel)
        }
        return (scheme, kind, label, query)
    }

    /// The query's parameters by name; a repeated name is refused (which one would count?).
    package static func queryParameters(_ query: Substring) throws(PingCLIError) -> [String: String] {
        guard let pairs = FormEncoding.decode(query) else {
            throw refuse("the OTP URI's query is not valid percent-encoding", .otpUriCharacters)
        }
        var parameters: [String: String] = [:]
        var seen: Set<String> = []
        for (rawName, value) in pairs {
            let name = rawName.lowercased()
            guard seen.insert(name).inserted else {
                throw refuse(
                    "the OTP URI has the parameter \(displaySafe(name, limit: 40)) twice: a registration URI has each once",
                    .otpDuplicateParameter)
            }
            if known.contains(name) { parameters[name] = value }
        }
        return parameters
    }

    /// `Issuer:account` or `account`; a space after the colon is allowed, as the Key URI format says.
    package static func splitLabel(_ label: String) throws(PingCLIError) -> (issuer: String?, account: String) {
        let checked = try checkedText(label, what: "label")
        guard let colon = checked.firstIndex(of: ":") else { return (nil, checked) }
        let issuer = String(checked[..<colon])
        let account = String(checked[checked.index(after: colon)...].drop { $0 == " " })
        guard !issuer.isEmpty, !account.isEmpty else { throw refuse("the OTP URI's label has an empty issuer or account", .otpLabel) }
        return (issuer, account)
    }

    /// Text shown on the terminal and used as a name: non-empty, bounded, nothing a terminal acts on.
    package static func checkedText(_ text: String, what: String) throws(PingCLIError) -> String {
        guard !text.isEmpty, text.unicodeScalars.count <= maximumLabelLength else {
            throw refuse("the OTP URI's \(what) must have 1 to \(maximumLabelLength) characters", .otpLabel)
        }
        guard !text.unicodeScalars.contains(where: isTerminalActive) else {
            throw refuse("the OTP URI's \(what) holds control characters: it is not safe to show", .otpLabel)
        }
        return text
    }

    /// `otp add --name`: the same rule as a label, and not an option's look.
    package static func checkedName(_ name: String) throws(PingCLIError) -> String {
        guard !name.hasPrefix("-"), !name.isEmpty, name.unicodeScalars.count <= maximumLabelLength,
            !name.unicodeScalars.contains(where: isTerminalActive)
        else {
            throw .usage(
                "an OTP account name has 1 to \(maximumLabelLength) characters, no control characters, and does not start with '-'",
                rule: .otpName)
        }
        return name
    }

    /// The base32 secret (RFC 4648 §6; lower case and missing padding accepted, as authenticators do).
    package static func decodeSecret(_ text: String) throws(PingCLIError) -> [UInt8] {
        var symbols = Array(text.utf8)
        defer { Sodium.wipe(&symbols) }
        while symbols.last == UInt8(ascii: "=") { symbols.removeLast() }
        guard var bytes = Base32.decode(symbols) else {
            throw refuse("the OTP URI's secret is not base32 (the letters A-Z and digits 2-7)", .otpSecretBase32)
        }
        guard secretBytes.contains(bytes.count) else {
            Sodium.wipe(&bytes)
            throw refuse(
                "the OTP URI's secret has \(bytes.count) bytes: an OATH secret has \(secretBytes.lowerBound) to \(secretBytes.upperBound)",
                .otpSecretLength)
        }
        return bytes
    }

    package static func algorithm(_ text: String) throws(PingCLIError) -> OATH.Algorithm {
        guard let algorithm = OATH.Algorithm(rawValue: text.uppercased()) else {
            throw refuse(
                "the OTP URI's algorithm \(displaySafe(text, limit: 20)) is not one pingcli knows: SHA1, SHA256 or SHA512",
                .otpAlgorithm)
        }
        return algorithm
    }

    package static func digits(_ text: String) throws(PingCLIError) -> Int {
        guard let digits = decimal(text, maximumLength: 1), OATH.digitRange.contains(Int(digits)) else {
            throw refuse("the OTP URI's digits must be 6, 7 or 8, not \(displaySafe(text, limit: 20))", .otpDigits)
        }
        return Int(digits)
    }

    package static func period(_ text: String) throws(PingCLIError) -> UInt32 {
        guard let period = decimal(text, maximumLength: 6), period <= UInt64(periodRange.upperBound), periodRange.contains(UInt32(period))
        else {
            throw refuse(
                "the OTP URI's period must be \(periodRange.lowerBound) to \(periodRange.upperBound) seconds, not \(displaySafe(text, limit: 20))",
                .otpPeriod)
        }
        return UInt32(period)
    }

    package static func counter(_ text: String) throws(PingCLIError) -> UInt64 {
        // Below 2^63: it can always advance, and it fits every signed 64-bit reader of `otp list --json`.
        guard let counter = decimal(text, maximumLength: 19), counter < UInt64(Int64.max) else {
            throw refuse("the OTP URI's counter must be a whole number below 2^63", .otpCounter)
        }
        return counter
    }

    /// Decimal digits only (no sign, no space), at most `maximumLength` of them.
    package static func decimal(_ text: String, maximumLength: Int) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= maximumLength, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return UInt64(text)
    }
}

/// Base32 (RFC 4648 §6), the alphabet OATH secrets are written in.
package enum Base32 {
    package static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Decodes unpadded base32, either case; nil for any other character or an impossible length.
    package static func decode(_ symbols: [UInt8]) -> [UInt8]? {
        guard ![1, 3, 6].contains(symbols.count % 8) else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(symbols.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            let value: UInt8
            switch symbol {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = symbol - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = symbol - UInt8(ascii: "a")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = symbol - UInt8(ascii: "2") + 26
            default: return nil
            }
            buffer = buffer << 5 | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        buffer = 0
        return output
    }

    /// Encodes without padding (for tests and for handing a secret to another authenticator).
    package static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int(buffer >> UInt32(bits) & 0x1F)])
            }
        }
        if bits > 0 { output.append(alphabet[Int(buffer << UInt32(5 - bits) & 0x1F)]) }
        return String(decoding: output, as: UTF8.self)
    }
}
