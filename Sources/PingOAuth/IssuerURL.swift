import PingBase

#if canImport(Glibc)
    import Glibc
#endif

/// The issuer the user typed, checked before any request, with the mistakes people make named:
/// pasting the discovery URL, or a PingOne environment URL without `/as`.
public struct IssuerURL: Sendable, Equatable {
    public let value: String
    package static let discoverySuffix = "/.well-known/openid-configuration"

    /// The issuer as checked by the URL gate (scheme, host, loopback or not).
    public let url: EndpointURL

    public init(_ text: String) throws(Failure) {
        let trimmed = text.trimmingWhitespace
        let parsed: EndpointURL
        do {
            parsed = try EndpointURL(trimmed)
        } catch .scheme(let scheme) {
            throw .scheme(scheme)
        } catch .fragment {
            throw .queryOrFragment
        } catch {
            throw .notAURL(text, error)
        }
        if trimmed.hasSuffix(Self.discoverySuffix) { throw .discoveryURL(issuer: String(trimmed.dropLast(Self.discoverySuffix.count))) }
        guard parsed.query == nil else { throw .queryOrFragment }
        guard (try? EndpointPolicy.checkIssuer(trimmed)) != nil else {
            throw .plainHTTP(suggestion: "https://\(parsed.host)\(parsed.port.map { ":\($0)" } ?? "")\(parsed.path)")
        }
        if let suggestion = Self.pingOneSuggestion(host: parsed.host, path: parsed.path, scheme: parsed.scheme) {
            throw .pingOneEnvironment(trimmed, issuer: suggestion)
        }
        value = trimmed
        url = parsed
    }

    /// Why the text is not an issuer, with the facts; worded where the flows word failures
    /// (`PingFlowCore/OAuthAdvice.swift`).
    public enum Failure: Error, Sendable, Equatable {
        /// Not http(s): the scheme given.
        case scheme(String)
        /// A query or fragment (OpenID Discovery §2).
        case queryOrFragment
        /// Not a URL the gate takes: the text as given, and why.
        case notAURL(String, URLPolicyError)
        /// The discovery document's URL was given; `issuer` is the issuer it belongs to.
        case discoveryURL(issuer: String)
        /// Plain http to a host that is not loopback; `suggestion`: the same URL with https.
        case plainHTTP(suggestion: String)
        /// A PingOne environment's URL (the text), not its issuer (`issuer`).
        case pingOneEnvironment(String, issuer: String)

        public var rule: Rule {
            switch self {
            case .scheme, .queryOrFragment: .issuerGate
            case .notAURL: .issuerNotAUrl
            case .discoveryURL: .issuerIsDiscoveryUrl
            case .plainHTTP: .issuerHttpNonLoopback
            case .pingOneEnvironment: .issuerPingoneWithoutAs
            }
        }
    }

    /// PingOne issuers are `https://auth.pingone.<region>/<environment-id>/as`. A URL with the
    /// environment id but without `/as` (or with a deeper path such as `/as/authorize`) gets the right one.
    package static func pingOneSuggestion(host: String, path: String, scheme: String) -> String? {
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
