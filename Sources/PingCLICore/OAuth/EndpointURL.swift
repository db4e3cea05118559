#if canImport(Glibc)
    import Glibc
#endif

/// Why a URL was refused at the gate. Messages describe the rule, never echo hostile bytes raw.
public enum URLPolicyError: Error, Sendable, Equatable {
    /// A byte outside RFC 3986's characters: a control, a space, raw non-ASCII (C1, bidi…), or a bad `%`.
    case invalidCharacters
    /// Not `scheme://authority…`, or an authority pingcli cannot use.
    case malformed(String)
    /// A scheme other than http and https.
    case scheme(String)
    /// `user:password@` in the authority: credentials never travel in a URL.
    case userInformation
    /// A `#fragment` (RFC 6749 §3.1, §3.2: endpoints must not have one).
    case fragment
    /// Plain http on a host that is not loopback, or on behalf of an https issuer (a scheme never goes down).
    case insecure
    /// A loopback host named by an issuer that is not itself on loopback (server-side request forgery).
    case loopbackFromRemoteIssuer

    public var message: String {
        switch self {
        case .invalidCharacters:
            "it has characters a URL cannot contain (RFC 3986: controls, spaces, raw non-ASCII or a stray %)"
        case .malformed(let reason): "it is not an absolute http(s) URL (\(reason))"
        case .scheme(let scheme): "its scheme \(displaySafe(scheme, limit: 20)) is not https"
        case .userInformation: "it carries user information (user@ or user:password@) in its authority"
        case .fragment: "it has a #fragment (RFC 6749 §3.1)"
        case .insecure:
            "it is not https (an https issuer's endpoints must all be https; plain http only for an http issuer and endpoint both on loopback)"
        case .loopbackFromRemoteIssuer:
            "it points at this machine (a loopback address) although the issuer is not on loopback"
        }
    }
}

/// A URL that passed the gate: RFC 3986 characters only, `http` or `https`, a usable host, no user
/// information and no fragment ([RFC 3986 §3](https://www.rfc-editor.org/rfc/rfc3986#section-3)).
/// Whether it may be used for a given issuer is `EndpointPolicy`'s question.
public struct EndpointURL: Sendable, Equatable, CustomStringConvertible {
    /// The URL exactly as given (already only printable ASCII).
    public let value: String
    /// `http` or `https`, lower case.
    public let scheme: String
    /// The host, lower case; IPv6 literals keep their brackets.
    public let host: String
    public let port: Int?
    /// The path, possibly empty, still percent-encoded.
    public let path: String
    /// The query after `?`, still encoded; nil when there is none.
    public let query: String?
    /// Whether the host is this machine: 127.0.0.0/8, 0.0.0.0, ::1, ::, IPv4-mapped loopback, `localhost`
    /// and names under `.localhost` (RFC 6761 §6.3).
    public let isLoopback: Bool

    public var description: String { value }

    /// `scheme://host[:port]`, for telling the user where something was sent.
    public var origin: String { "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")" }

    public init(_ text: String) throws(URLPolicyError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, Self.hasOnlyURLCharacters(bytes) else { throw .invalidCharacters }
        guard let schemeEnd = bytes.firstIndex(of: UInt8(ascii: ":")), schemeEnd > 0,
            bytes[bytes.startIndex].isASCIILetter,
            bytes[..<schemeEnd].allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
        else { throw .malformed("no scheme") }
        let scheme = String(decoding: bytes[..<schemeEnd].map { $0.isASCIILetter ? $0 | 0x20 : $0 }, as: UTF8.self)
        guard scheme == "http" || scheme == "https" else { throw .scheme(scheme) }
        let rest = bytes[(schemeEnd + 1)...]
        guard rest.starts(with: Array("//".utf8)) else { throw .malformed("no //host") }
        let authorityStart = rest.startIndex + 2
        let authorityEnd =
            rest[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? rest.endIndex
        let authority = rest[authorityStart..<authorityEnd]
        guard !authority.contains(UInt8(ascii: "@")) else { throw .userInformation }
        // Bytes, not Characters: splitting a String finds grapheme boundaries, which cost more than the rest.
        let tail = rest[authorityEnd...]
        guard !tail.contains(UInt8(ascii: "#")) else { throw .fragment }
        let (host, port) = try Self.parseAuthority(authority)
        let questionMark = tail.firstIndex(of: UInt8(ascii: "?"))
        self.value = text
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = String(decoding: tail[..<(questionMark ?? tail.endIndex)], as: UTF8.self)
        self.query = questionMark.map { String(decoding: tail[($0 + 1)...], as: UTF8.self) }
        self.isLoopback = Self.isLoopbackHost(host)
    }

    /// RFC 3986 §2: unreserved, reserved, and `%` followed by two hex digits; nothing else.
    static func hasOnlyURLCharacters(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, bytes[index + 1].isHexDigit, bytes[index + 2].isHexDigit else { return false }
                index += 3
                continue
            }
            guard byte.isASCIILetter || byte.isASCIIDigit || Self.isOtherURLByte(byte) else { return false }
            index += 1
        }
        return true
    }

    /// `-._~:/?#[]@!$&'()*+,;=`: a switch rather than a `Set`, whose hashing every start paid for.
    private static func isOtherURLByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "/"),
            UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "@"), UInt8(ascii: "!"),
            UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"),
            UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        default: false
        }
    }

    /// `host[:port]` where host is a DNS name, a dotted-quad IPv4 address, or a bracketed IPv6 literal.
    private static func parseAuthority(_ authority: ArraySlice<UInt8>) throws(URLPolicyError) -> (String, Int?) {
        var hostPart = authority
        var portText: ArraySlice<UInt8>? = nil
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { throw .malformed("unclosed [") }
            hostPart = authority[...close]
            let after = authority[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else { throw .malformed("bytes after ]") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: UInt8(ascii: ":")) {
            hostPart = authority[..<colon]
            portText = authority[(colon + 1)...]
        }
        var port: Int? = nil
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCIIDigit),
                let value = Int(String(decoding: portText, as: UTF8.self)), (1...65535).contains(value)
            else { throw .malformed("bad port") }
            port = value
        }
        // The bytes are ASCII (checked above), so lower-casing them is all `lowercased()` would do.
        let host = String(decoding: hostPart.map { $0.isASCIILetter ? $0 | 0x20 : $0 }, as: UTF8.self)
        guard !host.isEmpty else { throw .malformed("no host") }
        if host.hasPrefix("[") {
            var address = in6_addr()
            guard host.count > 2, inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &address) == 1 else {
                throw .malformed("bad IPv6 literal")
            }
            return (host, port)
        }
        // Labels of letters, digits, `-` and `_`, none empty but a last one (a trailing dot).
        let name = Array(host.utf8)
        var previous = UInt8(ascii: ".")
        for byte in name {
            guard byte.isASCIILetter || byte.isASCIIDigit || byte == 0x2D || byte == 0x5F || (byte == 0x2E && previous != 0x2E)
            else { throw .malformed("bad host name") }
            previous = byte
        }
        // A last label that starts with a digit is an IPv4 address to URL parsers (WHATWG, libcurl), which
        // also read forms like 127.1, 2130706433 or 0x7f.1: only the canonical dotted quad is accepted.
        let withoutDot = name.last == 0x2E ? name.dropLast() : name[...]
        let lastLabel = withoutDot.lastIndex(of: 0x2E).map { withoutDot[($0 + 1)...] } ?? withoutDot
        if lastLabel.first?.isASCIIDigit == true, Self.dottedQuad(host) == nil {
            throw .malformed("an IPv4 address must be four decimal numbers")
        }
        return (host, port)
    }

    /// The four bytes of a canonical dotted-quad address (no leading zeros), or nil.
    static func dottedQuad(_ host: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var value = 0
        var digits = 0
        var leadingZero = false
        for byte in host.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, bytes.count < 3 else { return nil }
                bytes.append(UInt8(value))
                (value, digits, leadingZero) = (0, 0, false)
                continue
            }
            // At most three digits, no leading zero, at most 255.
            guard byte.isASCIIDigit, digits < 3, !leadingZero else { return nil }
            leadingZero = digits == 0 && byte == UInt8(ascii: "0")
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            guard value <= 255 else { return nil }
        }
        guard digits > 0, bytes.count == 3 else { return nil }
        return bytes + [UInt8(value)]
    }

    static func isLoopbackHost(_ host: String) -> Bool {
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        if let quad = dottedQuad(name) { return quad[0] == 127 || quad == [0, 0, 0, 0] }
        guard host.hasPrefix("["), host.hasSuffix("]") else { return false }
        var address = in6_addr()
        guard inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &address) == 1 else { return false }
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        let zeroPrefix = bytes[0..<10].allSatisfy { $0 == 0 }
        if zeroPrefix && bytes[10..<15].allSatisfy({ $0 == 0 }) && (bytes[15] == 1 || bytes[15] == 0) { return true }  // ::1, ::
        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) forms of loopback.
        if zeroPrefix && ((bytes[10] == 0xFF && bytes[11] == 0xFF) || (bytes[10] == 0 && bytes[11] == 0)) {
            return bytes[12] == 127 || bytes[12...15].allSatisfy { $0 == 0 }
        }
        return false
    }
}

/// Which URLs pingcli may talk to on behalf of an issuer. A scheme never goes down: an https issuer's
/// endpoints are all https, whatever their host (loopback too: an https issuer on a local gateway or a
/// port-forward does not make plain http safe). Plain http only for an http issuer, which is itself on
/// loopback (development and the emulator), and then only to loopback endpoints. An issuer that is not
/// on loopback never names this machine, so a provider cannot turn pingcli against a local service
/// ([RFC 8252 §8.3](https://www.rfc-editor.org/rfc/rfc8252#section-8.3),
/// [RFC 6749 §3.1](https://www.rfc-editor.org/rfc/rfc6749#section-3.1), RFC 9700 §4.1).
public enum EndpointPolicy {
    /// Checks `url` for use on behalf of `issuer` (itself already checked).
    public static func check(_ url: String, issuer: EndpointURL) throws(URLPolicyError) -> EndpointURL {
        let endpoint = try EndpointURL(url)
        if endpoint.scheme != "https" {
            // No downgrade: http only when the issuer is http (so on loopback) and the endpoint on loopback.
            guard issuer.scheme == "http", issuer.isLoopback, endpoint.isLoopback else { throw .insecure }
        }
        guard issuer.isLoopback || !endpoint.isLoopback else { throw .loopbackFromRemoteIssuer }
        return endpoint
    }

    /// The rule for an issuer itself: https, or http on a loopback host.
    public static func checkIssuer(_ url: String) throws(URLPolicyError) -> EndpointURL {
        let issuer = try EndpointURL(url)
        guard issuer.scheme == "https" || issuer.isLoopback else { throw .insecure }
        return issuer
    }

    /// Whether `url` passes `check` for the issuer `issuer`.
    public static func isAllowed(_ url: String, issuer: String) -> Bool {
        guard let issuerURL = try? checkIssuer(issuer) else { return false }
        return (try? check(url, issuer: issuerURL)) != nil
    }
}

extension UInt8 {
    var isASCIILetter: Bool { (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) }
    var isASCIIDigit: Bool { (0x30...0x39).contains(self) }
    var isHexDigit: Bool { isASCIIDigit || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
}
