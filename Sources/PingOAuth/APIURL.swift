import PingBase

/// The gate for URLs `pingcli api` sends a token to: the URL gate (RFC 3986 characters, http(s), no
/// user information, no fragment), and plain http only to loopback hosts, as for providers.
public enum APIURL {
    public static func check(_ text: String) throws(URLPolicyError) -> EndpointURL {
        let url = try EndpointURL(text)
        guard url.scheme == "https" || url.isLoopback else { throw .insecure }
        return url
    }

    /// The URL the user named: absolute as given, else appended to the profile's `api_base`
    /// (`/users` on `https://api.example.com/v1` is `https://api.example.com/v1/users`).
    package static func resolve(_ text: String, base: String?) throws(Failure) -> EndpointURL {
        let lower = text.lowercased()
        let absolute = lower.hasPrefix("https://") || lower.hasPrefix("http://")
        guard absolute || base != nil else { throw .relativeWithoutBase(text) }
        var joined = text
        if !absolute, let base {
            let trimmedBase = base.hasSuffix("/") ? String(base.dropLast()) : base
            joined = trimmedBase + (text.hasPrefix("/") ? text : "/" + text)
        }
        do {
            return try check(joined)
        } catch {
            throw .refused(joined, error)
        }
    }

    /// Why no token is sent to the URL, with the facts; worded where the flows word failures
    /// (`PingFlowCore/OAuthAdvice.swift`).
    package enum Failure: Error, Sendable, Equatable {
        /// A relative URL (as given), and the profile has no `api_base`.
        case relativeWithoutBase(String)
        /// The URL (joined to the base) was refused by its gate.
        case refused(String, URLPolicyError)

        package var rule: Rule { .apiURLGate }
    }

    /// A redirect's `Location` (RFC 9110 §10.2.2) as an absolute URL, resolved against the request's
    /// URL (RFC 3986 §5.2, for the forms servers send: absolute, `//authority…`, `/path…`, `path…`, `?query`).
    package static func redirectTarget(_ location: String, from url: EndpointURL) -> String {
        let lower = location.lowercased()
        if lower.hasPrefix("https://") || lower.hasPrefix("http://") { return location }
        if location.hasPrefix("//") { return url.scheme + ":" + location }
        if location.hasPrefix("/") { return url.origin + location }
        if location.hasPrefix("?") { return url.origin + url.path + location }
        let directory = url.path.lastIndex(of: "/").map { String(url.path[...$0]) } ?? "/"
        return url.origin + directory + location
    }
}
