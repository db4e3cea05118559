import PingBase

/// A git server a profile's token may be handed to by `pingcli git-credential`: a host, an optional
/// port and an optional path prefix (`git.example.com`, `git.example.com:8443/team`), given with
/// `login --git-host` or `git-credential configure`, saved in `profile.json` (a bound field, so an
/// edited list is refused like an edited endpoint). Nothing else gets the token: git asks every
/// configured helper about every host it meets, including a malicious server's.
public struct GitHost: Sendable, Equatable, Encodable, CustomStringConvertible {
    /// Lower-case DNS name or IPv4 address, or an IPv6 address in brackets.
    public let host: String
    /// nil: the scheme's default port only (443, or 80 for http on loopback).
    public let port: UInt16?
    /// Path segments the request's `path` must start with; empty: any path.
    public let pathPrefix: [String]

    /// The canonical text, as saved and shown: `host[:port][/segment…]`.
    public var description: String {
        host + (port.map { ":\($0)" } ?? "") + pathPrefix.map { "/" + $0 }.joined()
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// The gate: `[https://]host[:port][/path…]`, at most 300 characters, no wildcard, no user, query,
    /// fragment, `.` or `..` segment, nothing outside printable ASCII.
    public init(checking text: String) throws(PingCLIError) {
        let refuse: (String) -> PingCLIError = {
            .usage(
                "git host \"\(displaySafe(text, limit: 80))\" \($0): give HOST[:PORT][/PATH], e.g. git.example.com or git.example.com/team",
                rule: .gitHostGate)
        }
        var rest = Substring(text)
        if rest.lowercased().hasPrefix("https://") { rest = rest.dropFirst(8) }
        guard !rest.isEmpty, rest.count <= 300, rest.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw refuse("is empty, too long, or has spaces or characters outside printable ASCII")
        }
        guard !rest.contains(where: { "@?#\\*,=".contains($0) }), !rest.containsText("://") else {
            throw refuse("may not hold a scheme other than https://, a user, a query, a fragment, a wildcard or a list")
        }
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count).split(separator: "/").map(String.init)
        guard !path.contains(where: { $0 == "." || $0 == ".." }) else { throw refuse("has a . or .. path segment") }
        guard let (host, port) = Self.splitAuthority(authority) else { throw refuse("does not start with a host name or IP address") }
        self.host = host
        self.port = port
        self.pathPrefix = path
    }

    /// `host[:port]` as git sends it in `host=` and as given here: the host lower-cased (IPv6 in
    /// brackets), the port when one is named; nil when it is neither a DNS name nor an IP address.
    package static func splitAuthority(_ authority: Substring) -> (String, UInt16?)? {
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return nil }
            portText = after.isEmpty ? nil : after.dropFirst()
            let inside = host.dropFirst().dropLast()
            guard !inside.isEmpty, inside.allSatisfy({ $0.isASCII && $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return nil }
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            guard host.count <= 253,
                labels.allSatisfy({ label in
                    !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                        && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
                })
            else { return nil }
        }
        var port: UInt16?
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = UInt16(portText), value > 0
            else { return nil }
            port = value
        }
        return (host.lowercased(), port)
    }

    /// Whether a host as git names it (`host=` without its port) is this machine: the only hosts
    /// that may have the token over plain http.
    package static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "[::1]" || host.hasSuffix(".localhost") { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Whether git's request (`protocol`, `host` with its port, `path` when `credential.useHttpPath`
    /// sends it) is for this server, over a transport the token may take: https, or http to this
    /// machine. A path prefix needs git to send the path; a request path with `.` or `..` never matches.
    public func matches(protocol scheme: String?, host requestHost: String?, path: String?) -> Bool {
        guard let scheme, let requestHost, let (name, requestPort) = Self.splitAuthority(Substring(requestHost)) else { return false }
        let defaultPort: UInt16
        switch scheme {
        case "https": defaultPort = 443
        case "http" where Self.isLoopback(name): defaultPort = 80
        default: return false
        }
        guard name == host, (requestPort ?? defaultPort) == (port ?? defaultPort) else { return false }
        guard !pathPrefix.isEmpty else { return true }
        guard let path else { return false }
        let segments = path.split(separator: "/").map(String.init)
        guard !segments.contains(where: { $0 == "." || $0 == ".." }) else { return false }
        return segments.starts(with: pathPrefix)
    }
}
