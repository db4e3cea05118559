#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Rules for the URLs pingcli talks to: https everywhere, plain http only on loopback hosts
/// (RFC 8252 §8.3 allows nothing weaker; loopback is for development and the emulator).
public enum EndpointPolicy {
    static let loopbackHosts: Set<String> = ["127.0.0.1", "[::1]", "::1", "localhost"]

    /// Whether `url` is an absolute https URL, or http on a loopback host, with no fragment.
    public static func isAllowed(_ url: String) -> Bool {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, components.fragment == nil
        else { return false }
        switch scheme {
        case "https": return true
        case "http": return loopbackHosts.contains(host.lowercased())
        default: return false
        }
    }

    /// Whether `url` may be used for a provider whose issuer is `issuer`: allowed by `isAllowed(_:)`,
    /// and plain http only when the issuer itself is an http URL on a loopback host (an https issuer's
    /// endpoints must all be https).
    public static func isAllowed(_ url: String, issuer: String) -> Bool {
        guard isAllowed(url), isAllowed(issuer) else { return false }
        if URLComponents(string: url)?.scheme?.lowercased() == "https" { return true }
        return URLComponents(string: issuer)?.scheme?.lowercased() == "http"
    }
}

/// The issuer the user typed, checked before any request, with the mistakes people make named:
/// pasting the discovery URL, or a PingOne environment URL without `/as`.
public struct IssuerURL: Sendable, Equatable {
    public let value: String
    static let discoverySuffix = "/.well-known/openid-configuration"

    public init(_ text: String) throws(PingCLIError) {
        let trimmed = text.trimmingWhitespace
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme,
            let host = components.host, !host.isEmpty
        else {
            throw .usage(
                "--issuer \"\(displaySafe(text, limit: 120))\" is not a URL: give the issuer, like https://auth.pingone.com/<environment-id>/as"
            )
        }
        if trimmed.hasSuffix(Self.discoverySuffix) {
            let issuer = String(trimmed.dropLast(Self.discoverySuffix.count))
            throw .usage("--issuer is the discovery document's URL: use --issuer \(issuer)")
        }
        guard components.query == nil, components.fragment == nil else {
            throw .usage("--issuer must not have a query or fragment (OpenID Discovery §2): remove everything from ? or #")
        }
        guard ["http", "https"].contains(scheme.lowercased()) else {
            throw .usage("--issuer must be an https URL, not \(displaySafe(scheme, limit: 20)): use https://…")
        }
        guard EndpointPolicy.isAllowed(trimmed) else {
            throw .usage(
                "--issuer must use https (plain http is allowed only for 127.0.0.1, [::1] and localhost): use https://\(host)\(components.path)"
            )
        }
        if let suggestion = Self.pingOneSuggestion(host: host, path: components.path, scheme: scheme) {
            throw .usage("\(trimmed) is a PingOne environment, not its issuer: use --issuer \(suggestion)")
        }
        value = trimmed
    }

    /// PingOne issuers are `https://auth.pingone.<region>/<environment-id>/as`. A URL with the
    /// environment id but without `/as` (or with a deeper path such as `/as/authorize`) gets the right one.
    static func pingOneSuggestion(host: String, path: String, scheme: String) -> String? {
        guard host.lowercased().hasPrefix("auth.pingone.") else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard let environment = segments.first else { return nil }
        if segments.count == 2 && segments[1] == "as" { return nil }
        return "\(scheme)://\(host)/\(environment)/as"
    }

    /// `{issuer}/.well-known/openid-configuration` ([OpenID Connect Discovery §4](https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfig)).
    public var discoveryURL: String {
        (value.hasSuffix("/") ? String(value.dropLast()) : value) + Self.discoverySuffix
    }
}

extension StringProtocol {
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
