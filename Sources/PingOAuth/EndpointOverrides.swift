import PingBase

/// One endpoint of the provider's metadata that `login` can be told outright
/// ([Discovery §3](https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderMetadata) names,
/// as the Ping SDKs' "dynamic configuration" does), for a provider or gateway that serves no discovery
/// document, or to replace one discovered endpoint.
public enum EndpointField: String, CaseIterable, Sendable {
    case authorization = "authorization_endpoint"
    case token = "token_endpoint"
    case userinfo = "userinfo_endpoint"
    case revocation = "revocation_endpoint"
    case endSession = "end_session_endpoint"
    case jwks = "jwks_uri"
    case deviceAuthorization = "device_authorization_endpoint"

    /// The `login` option that sets it: `--token-endpoint`, `--jwks-uri`.
    public var option: String { String(rawValue.map { $0 == "_" ? "-" : $0 }) }

    package func value(in metadata: ProviderMetadata) -> EndpointURL? {
        switch self {
        case .authorization: metadata.authorizationEndpoint
        case .token: metadata.tokenEndpoint
        case .userinfo: metadata.userinfoEndpoint
        case .revocation: metadata.revocationEndpoint
        case .endSession: metadata.endSessionEndpoint
        case .jwks: metadata.jwksURI
        case .deviceAuthorization: metadata.deviceAuthorizationEndpoint
        }
    }

    package func set(_ url: EndpointURL, in metadata: inout ProviderMetadata) {
        switch self {
        case .authorization: metadata.authorizationEndpoint = url
        case .token: metadata.tokenEndpoint = url
        case .userinfo: metadata.userinfoEndpoint = url
        case .revocation: metadata.revocationEndpoint = url
        case .endSession: metadata.endSessionEndpoint = url
        case .jwks: metadata.jwksURI = url
        case .deviceAuthorization: metadata.deviceAuthorizationEndpoint = url
        }
    }
}

/// The endpoints given to `login` (`--authorization-endpoint URL --token-endpoint URL …`), each through
/// the same gate and endpoint policy as a discovered one (`EndpointPolicy.check` for the issuer: https,
/// plain http only when issuer and endpoint are both on loopback, no loopback endpoint for a remote
/// issuer, no user information, no fragment). They win over discovery, one endpoint at a time; with
/// no discovery document, the authorization and token endpoints are enough.
public struct EndpointOverrides: Sendable, Equatable {
    public private(set) var urls: [EndpointField: EndpointURL] = [:]

    public init() {}

    /// Checks each given URL for `issuer`; a refused one is the failure naming its field (worded where the
    /// flows word failures, `PingFlowCore/OAuthAdvice.swift`).
    public init(checking given: [EndpointField: String], issuer: IssuerURL) throws(Failure) {
        for field in EndpointField.allCases {
            guard let text = given[field] else { continue }
            do {
                urls[field] = try EndpointPolicy.check(text, issuer: EndpointPolicy.checkIssuer(issuer.value))
            } catch {
                throw .refused(field, text, error)
            }
        }
    }

    /// An endpoint given for `field` (the URL as given) that its gate or the endpoint policy refused.
    public enum Failure: Error, Sendable, Equatable {
        case refused(EndpointField, String, URLPolicyError)

        public var rule: Rule { .overrideEndpointPolicy }
    }

    /// The overrides a saved profile recorded: the fields it names, with the values of its (bound,
    /// gated) metadata.
    package init(saved names: [String]?, metadata: ProviderMetadata) {
        for name in names ?? [] {
            guard let field = EndpointField(rawValue: name), let url = field.value(in: metadata) else { continue }
            urls[field] = url
        }
    }

    public var isEmpty: Bool { urls.isEmpty }

    /// The metadata member names, in a fixed order (for profile.json and `status`).
    public var names: [String] { EndpointField.allCases.filter { urls[$0] != nil }.map(\.rawValue) }

    /// `self` with `other`'s fields on top, without those in `forget` (`--userinfo-endpoint ''`).
    package func merged(over other: EndpointOverrides, forgetting forget: Set<EndpointField>) -> EndpointOverrides {
        var result = other
        for (field, url) in urls { result.urls[field] = url }
        for field in forget { result.urls[field] = nil }
        return result
    }

    /// Replaces the discovered endpoints named here.
    public func apply(to metadata: inout ProviderMetadata) {
        for (field, url) in urls { field.set(url, in: &metadata) }
    }

    /// The provider's metadata from these endpoints alone, for a provider with no discovery document;
    /// nil without an authorization and a token endpoint. Nothing is advertised, so pingcli's defaults
    /// hold: PKCE S256, RS256 ID tokens checked against `jwks_uri`, a public client or
    /// `client_secret_basic`.
    package func standalone(issuer: IssuerURL) -> ProviderMetadata? {
        guard let authorization = urls[.authorization], let token = urls[.token] else { return nil }
        var metadata = ProviderMetadata(issuer: issuer.value, authorizationEndpoint: authorization, tokenEndpoint: token)
        apply(to: &metadata)
        metadata.discovered = false
        return metadata
    }
}
