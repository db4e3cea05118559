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
///
/// The gate is one pass over the bytes that keeps only offsets: every `token` reads about ten URLs back
/// from profile.json, and a `String` for each part of each cost more than the checks (docs/performance.md).
/// The parts are made when asked for.
public struct EndpointURL: Sendable, Equatable, CustomStringConvertible {
    /// The URL exactly as given (already only printable ASCII).
    public let value: String
    private let isHTTPS: Bool
    /// Byte offsets into `value`: the host (IPv6 literals with their brackets), the path's start, and
    /// the query's start after `?` (nil when there is none).
    private let hostBytes: Range<Int>
    private let pathStart: Int
    private let queryStart: Int?
    public let port: Int?
    /// Whether the host is this machine: 127.0.0.0/8, 0.0.0.0, ::1, ::, IPv4-mapped loopback, `localhost`
    /// and names under `.localhost` (RFC 6761 §6.3).
    public let isLoopback: Bool

    /// `http` or `https`, lower case.
    public var scheme: String { isHTTPS ? "https" : "http" }
    /// The host, lower case; IPv6 literals keep their brackets.
    public var host: String { String(decoding: Array(value.utf8)[hostBytes].map { $0.asciiLowercased }, as: UTF8.self) }
    /// The path, possibly empty, still percent-encoded.
    public var path: String {
        String(decoding: Array(value.utf8)[pathStart..<(queryStart.map { $0 - 1 } ?? value.utf8.count)], as: UTF8.self)
    }
    /// The query after `?`, still encoded; nil when there is none.
    public var query: String? { queryStart.map { String(decoding: Array(value.utf8)[$0...], as: UTF8.self) } }

    public var description: String { value }

    /// `scheme://host[:port]`, for telling the user where something was sent.
    public var origin: String { "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")" }

    public init(_ text: String) throws(URLPolicyError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, Self.hasOnlyURLCharacters(bytes) else { throw .invalidCharacters }
        // The scheme: a letter, then letters, digits, `+`, `-`, `.`, up to the first `:`.
        var schemeEnd = 0
        while schemeEnd < bytes.count, bytes[schemeEnd] != UInt8(ascii: ":") {
            let byte = bytes[schemeEnd]
            guard
                schemeEnd == 0
                    ? byte.isASCIILetter : byte.isASCIILetter || byte.isASCIIDigit || byte == 0x2B || byte == 0x2D || byte == 0x2E
            else { throw .malformed("no scheme") }
            schemeEnd += 1
        }
        guard schemeEnd > 0, schemeEnd < bytes.count else { throw .malformed("no scheme") }
        if Self.matches(bytes, 0, "https") {
            isHTTPS = true
        } else if Self.matches(bytes, 0, "http") {
            isHTTPS = false
        } else {
            throw .scheme(String(decoding: bytes[..<schemeEnd].map { $0.asciiLowercased }, as: UTF8.self))
        }
        guard bytes.count - schemeEnd >= 3, bytes[schemeEnd + 1] == UInt8(ascii: "/"), bytes[schemeEnd + 2] == UInt8(ascii: "/")
        else { throw .malformed("no //host") }
        // The authority ends at the first `/`, `?` or `#`; no `@` in it, and no `#` anywhere after it.
        let authorityStart = schemeEnd + 3
        var authorityEnd = authorityStart
        var hasUserInformation = false
        while authorityEnd < bytes.count {
            let byte = bytes[authorityEnd]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") { hasUserInformation = true }
            authorityEnd += 1
        }
        guard !hasUserInformation else { throw .userInformation }
        var queryStart: Int? = nil
        for index in authorityEnd..<bytes.count {
            if bytes[index] == UInt8(ascii: "#") { throw .fragment }
            if queryStart == nil && bytes[index] == UInt8(ascii: "?") { queryStart = index + 1 }
        }
        let (host, port) = try Self.parseAuthority(bytes, authorityStart..<authorityEnd)
        self.value = text
        self.hostBytes = host
        self.port = port
        self.pathStart = authorityEnd
        self.queryStart = queryStart
        self.isLoopback = Self.isLoopbackHost(bytes[host])
    }

    /// Whether `bytes` from `start` hold `word` (lower case) in any case, followed by `:`.
    private static func matches(_ bytes: [UInt8], _ start: Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - start > count, bytes[start + count] == UInt8(ascii: ":") else { return false }
        for offset in 0..<count where bytes[start + offset].asciiLowercased != word.utf8Start[offset] { return false }
        return true
    }

    /// RFC 3986 §2: unreserved, reserved, and `%` followed by two hex digits; nothing else.
    package static func hasOnlyURLCharacters(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                let byte = buffer[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < buffer.count, buffer[index + 1].isHexDigit, buffer[index + 2].isHexDigit else { return false }
                    index += 3
                    continue
                }
                guard ASCIISet.urlCharacter.contains(byte) else { return false }
                index += 1
            }
            return true
        }
    }

    /// What `ASCIISet.urlCharacter` holds, byte by byte (a test checks the two agree on all 256 bytes).
    package static func isURLCharacter(_ byte: UInt8) -> Bool { byte.isASCIILetter || byte.isASCIIDigit || isOtherURLByte(byte) }

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

    /// `host[:port]` where host is a DNS name, a dotted-quad IPv4 address, or a bracketed IPv6 literal:
    /// the host's offsets and the port.
    private static func parseAuthority(_ bytes: [UInt8], _ authority: Range<Int>) throws(URLPolicyError) -> (Range<Int>, Int?) {
        var host = authority
        var portBytes: Range<Int>? = nil
        if !authority.isEmpty && bytes[authority.lowerBound] == UInt8(ascii: "[") {
            guard let close = bytes[authority].firstIndex(of: UInt8(ascii: "]")) else { throw .malformed("unclosed [") }
            host = authority.lowerBound..<(close + 1)
            if close + 1 < authority.upperBound {
                guard bytes[close + 1] == UInt8(ascii: ":") else { throw .malformed("bytes after ]") }
                portBytes = (close + 2)..<authority.upperBound
            }
        } else if let colon = bytes[authority].firstIndex(of: UInt8(ascii: ":")) {
            host = authority.lowerBound..<colon
            portBytes = (colon + 1)..<authority.upperBound
        }
        var port: Int? = nil
        if let portBytes {
            guard !portBytes.isEmpty, portBytes.count <= 5 else { throw .malformed("bad port") }
            var value = 0
            for index in portBytes {
                guard bytes[index].isASCIIDigit else { throw .malformed("bad port") }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            }
            guard (1...65535).contains(value) else { throw .malformed("bad port") }
            port = value
        }
        guard !host.isEmpty else { throw .malformed("no host") }
        if bytes[host.lowerBound] == UInt8(ascii: "[") {
            guard host.count > 2, ipv6Address(bytes[(host.lowerBound + 1)..<(host.upperBound - 1)]) != nil else {
                throw .malformed("bad IPv6 literal")
            }
            return (host, port)
        }
        // Labels of letters, digits, `-` and `_`, none empty but a last one (a trailing dot).
        var previous = UInt8(ascii: ".")
        var lastLabelStart = host.lowerBound
        for index in host {
            let byte = bytes[index]
            guard byte.isASCIILetter || byte.isASCIIDigit || byte == 0x2D || byte == 0x5F || (byte == 0x2E && previous != 0x2E)
            else { throw .malformed("bad host name") }
            if byte == 0x2E && index + 1 < host.upperBound { lastLabelStart = index + 1 }
            previous = byte
        }
        // A last label that starts with a digit is an IPv4 address to URL parsers (WHATWG, libcurl), which
        // also read forms like 127.1, 2130706433 or 0x7f.1: only the canonical dotted quad is accepted.
        if bytes[lastLabelStart].isASCIIDigit, dottedQuad(bytes[host]) == nil {
            throw .malformed("an IPv4 address must be four decimal numbers")
        }
        return (host, port)
    }

    /// The four bytes of a canonical dotted-quad address (no leading zeros), or nil.
    package static func dottedQuad(_ host: String) -> [UInt8]? {
        dottedQuad(Array(host.utf8)[...]).map { [$0.0, $0.1, $0.2, $0.3] }
    }

    private static func dottedQuad(_ host: ArraySlice<UInt8>) -> (UInt8, UInt8, UInt8, UInt8)? {
        var parts: (Int, Int, Int, Int) = (0, 0, 0, 0)
        var count = 0
        var value = 0
        var digits = 0
        var leadingZero = false
        for byte in host {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, count < 3 else { return nil }
                switch count {
                case 0: parts.0 = value
                case 1: parts.1 = value
                default: parts.2 = value
                }
                count += 1
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
        guard digits > 0, count == 3 else { return nil }
        return (UInt8(parts.0), UInt8(parts.1), UInt8(parts.2), UInt8(value))
    }

    /// The 16 bytes of an IPv6 address written without brackets, or nil.
    private static func ipv6Address(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, String(decoding: text, as: UTF8.self), &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    package static func isLoopbackHost(_ host: String) -> Bool { isLoopbackHost(Array(host.utf8)[...]) }

    private static func isLoopbackHost(_ host: ArraySlice<UInt8>) -> Bool {
        let name = host.last == UInt8(ascii: ".") ? host.dropLast() : host
        if hasLowercasedSuffix(name, "localhost"), name.count == 9 || name[name.endIndex - 10] == UInt8(ascii: ".") { return true }
        if let quad = dottedQuad(name) { return quad.0 == 127 || quad == (0, 0, 0, 0) }
        guard host.first == UInt8(ascii: "["), host.last == UInt8(ascii: "]"), host.count > 2,
            let bytes = ipv6Address(host.dropFirst().dropLast())
        else { return false }
        let zeroPrefix = bytes[0..<10].allSatisfy { $0 == 0 }
        if zeroPrefix && bytes[10..<15].allSatisfy({ $0 == 0 }) && (bytes[15] == 1 || bytes[15] == 0) { return true }  // ::1, ::
        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) forms of loopback.
        if zeroPrefix && ((bytes[10] == 0xFF && bytes[11] == 0xFF) || (bytes[10] == 0 && bytes[11] == 0)) {
            return bytes[12] == 127 || bytes[12...15].allSatisfy { $0 == 0 }
        }
        return false
    }

    /// Whether `bytes` end with `suffix` (lower case), in any case.
    private static func hasLowercasedSuffix(_ bytes: ArraySlice<UInt8>, _ suffix: StaticString) -> Bool {
        let count = suffix.utf8CodeUnitCount
        guard bytes.count >= count else { return false }
        let start = bytes.endIndex - count
        for offset in 0..<count where bytes[start + offset].asciiLowercased != suffix.utf8Start[offset] { return false }
        return true
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
    package var isASCIILetter: Bool { (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) }
    package var isASCIIDigit: Bool { (0x30...0x39).contains(self) }
    package var isHexDigit: Bool { isASCIIDigit || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
    /// An ASCII upper-case letter made lower case; any other byte as it is.
    package var asciiLowercased: UInt8 { (0x41...0x5A).contains(self) ? self | 0x20 : self }
}
