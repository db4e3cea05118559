import PingBase
import PingHTTP

/// The cookies AM set during one journey (a load balancer's affinity, the tracking cookie of a
/// social redirect), sent back on the journey's later requests as the SDKs' cookie store does
/// (`reference/am-social.md` §1, `trackingCookie`). In memory only: never saved, gone with the walk.
///
/// A small part of [RFC 6265 §5](https://www.rfc-editor.org/rfc/rfc6265#section-5): host-only (a
/// `Domain` that does not cover the host drops the cookie), `Path` matched, `Secure` kept to https (and loopback),
/// `Max-Age` ≤ 0 or an `Expires` in 1970 (how AM deletes one) removes it.
public struct JourneyCookies: Sendable {
    struct Cookie: Sendable, Equatable {
        var name: String
        var value: String
        var path: String
        var secure: Bool
    }

    private(set) var cookies: [Cookie] = []
    /// The host the journey talks to: only its cookies are kept, and only it is sent them.
    private let host: String

    package static let maximumCookies = 32
    package static let maximumBytes = 4096

    public init(host: String) { self.host = host }

    /// Keeps what `response` (to a request for `url`) set.
    public mutating func receive(_ response: HTTPResponse, for url: String) {
        guard let requested = try? EndpointURL(url), requested.host == host else { return }
        for line in response.setCookies { receive(line, requested) }
    }

    private mutating func receive(_ line: String, _ url: EndpointURL) {
        guard line.utf8.count <= Self.maximumBytes else { return }
        var parts = line.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingWhitespace }
        guard let first = parts.first, let equals = first.firstIndex(of: "=") else { return }
        parts.removeFirst()
        let name = String(first[..<equals]).trimmingWhitespace
        var value = String(first[first.index(after: equals)...]).trimmingWhitespace
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
        guard MediaType.isToken(name[...]), value.utf8.allSatisfy({ (0x21..<0x7F).contains($0) && $0 != 0x3B && $0 != 0x2C && $0 != 0x5C })
        else { return }
        var cookie = Cookie(name: name, value: value, path: Self.defaultPath(url.path), secure: false)
        var expired = false
        for attribute in parts {
            let pair = attribute.split(separator: "=", maxSplits: 1).map { String($0).trimmingWhitespace }
            switch pair[0].lowercased() {
            case "path" where pair.count == 2 && pair[1].hasPrefix("/"): cookie.path = pair[1]
            case "secure": cookie.secure = true
            case "max-age" where pair.count == 2: if let seconds = Int(pair[1]), seconds <= 0 { expired = true }
            case "expires" where pair.count == 2: if pair[1].containsText("1970") { expired = true }
            case "domain" where pair.count == 2:
                let domain = pair[1].lowercased().drop { $0 == "." }
                guard host == domain || host.hasSuffix("." + domain) else { return }
            default: continue
            }
        }
        cookies.removeAll { $0.name == cookie.name && $0.path == cookie.path }
        if !expired && cookies.count < Self.maximumCookies { cookies.append(cookie) }
    }

    /// The `Cookie` header for a request to `url`, or nil when no cookie applies.
    public func header(for url: String) -> (name: String, value: String)? {
        guard let target = try? EndpointURL(url), target.host == host else { return nil }
        let path = target.path.isEmpty ? "/" : target.path
        let sent = cookies.filter { cookie in
            // A Secure cookie goes over https, or to loopback (a trustworthy origin, as browsers treat it).
            (!cookie.secure || target.scheme == "https" || target.isLoopback) && Self.pathMatches(path, cookie.path)
        }
        guard !sent.isEmpty else { return nil }
        // Longer paths first (RFC 6265 §5.4, 2).
        return ("Cookie", sent.sorted { $0.path.count > $1.path.count }.map { "\($0.name)=\($0.value)" }.joined(separator: "; "))
    }

    /// RFC 6265 §5.1.4: the request path up to its last `/` (`/` when that is the first).
    static func defaultPath(_ path: String) -> String {
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }

    /// RFC 6265 §5.1.4 path-match.
    static func pathMatches(_ path: String, _ cookiePath: String) -> Bool {
        guard path.hasPrefix(cookiePath) else { return false }
        return path.count == cookiePath.count || cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).hasPrefix("/")
    }
}
