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

    public init(_ text: String) throws(PingCLIError) {
        let trimmed = text.trimmingWhitespace
        let parsed: EndpointURL
        do {
            parsed = try EndpointURL(trimmed)
        } catch .scheme(let scheme) {
            throw .usage("--issuer must be an https URL, not \(displaySafe(scheme, limit: 20)): use https://…", rule: .issuerGate)
        } catch .fragment {
            throw .usage(
                "--issuer must not have a query or fragment (OpenID Discovery §2): remove everything from ? or #", rule: .issuerGate)
        } catch {
            throw .usage(
                "--issuer \"\(displaySafe(text, limit: 120))\" is not a URL pingcli can use (\(error.message)): give the issuer, like https://auth.pingone.com/<environment-id>/as",
                rule: .issuerNotAUrl
            )
        }
        if trimmed.hasSuffix(Self.discoverySuffix) {
            let issuer = String(trimmed.dropLast(Self.discoverySuffix.count))
            throw .usage("--issuer is the discovery document's URL: use --issuer \(issuer)", rule: .issuerIsDiscoveryUrl)
        }
        guard parsed.query == nil else {
            throw .usage(
                "--issuer must not have a query or fragment (OpenID Discovery §2): remove everything from ? or #", rule: .issuerGate)
        }
        guard (try? EndpointPolicy.checkIssuer(trimmed)) != nil else {
            throw .usage(
                "--issuer must use https (plain http is allowed only for 127.0.0.1, [::1] and localhost): use https://\(parsed.host)\(parsed.port.map { ":\($0)" } ?? "")\(parsed.path)",
                rule: .issuerHttpNonLoopback
            )
        }
        if let suggestion = Self.pingOneSuggestion(host: parsed.host, path: parsed.path, scheme: parsed.scheme) {
            throw .usage("\(trimmed) is a PingOne environment, not its issuer: use --issuer \(suggestion)", rule: .issuerPingoneWithoutAs)
        }
        value = trimmed
        url = parsed
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
