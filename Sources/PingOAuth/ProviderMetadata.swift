import PingBase
import PingHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// The parts of an OpenID Provider's configuration pingcli uses
/// ([OpenID Connect Discovery §3](https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderMetadata),
/// [RFC 8414 §2](https://www.rfc-editor.org/rfc/rfc8414#section-2)). Saved with the profile, so that
/// `token` can refresh without discovering again.
public struct ProviderMetadata: Sendable, Equatable {
    public var issuer: String
    public var authorizationEndpoint: EndpointURL
    public var tokenEndpoint: EndpointURL
    public var userinfoEndpoint: EndpointURL?
    public var revocationEndpoint: EndpointURL?
    public var endSessionEndpoint: EndpointURL?
    public var introspectionEndpoint: EndpointURL?
    public var jwksURI: EndpointURL?
    /// RFC 8628 §4: where `login --device` asks for a device code.
    public var deviceAuthorizationEndpoint: EndpointURL?
    /// RFC 9126 §5: where `login` pushes its authorization request.
    public var pushedAuthorizationRequestEndpoint: EndpointURL?
    /// RFC 9126 §5: the provider accepts no other kind of authorization request.
    public var requirePushedAuthorizationRequests: Bool?
    public var codeChallengeMethodsSupported: [String]?
    public var authorizationResponseIssParameterSupported: Bool?
    /// Client authentication methods the token endpoint accepts (RFC 8414 §2).
    public var tokenEndpointAuthMethodsSupported: [String]?
    /// The same for the revocation endpoint (RFC 8414 §2).
    public var revocationEndpointAuthMethodsSupported: [String]?
    /// RFC 8705 §5 `mtls_endpoint_aliases`, each through the same URL gate; used (and saved as the
    /// profile's endpoints) only by a client with a certificate. Not written to profile.json itself.
    public var mtlsEndpointAliases: [String: EndpointURL]? = nil
    /// The JWS algorithms the provider signs ID tokens with (Discovery §3); absent means RS256.
    public var idTokenSigningAlgValuesSupported: [String]? = nil
    /// The JWS algorithms the token endpoint accepts for client assertions (RFC 8414 §2).
    public var tokenEndpointAuthSigningAlgValuesSupported: [String]? = nil
    /// RFC 9449 §5.1: the JWS algorithms the provider accepts in DPoP proofs; nil when it does not say
    /// (it then does not announce DPoP). Used at login only, so not saved.
    public var dpopSigningAlgValuesSupported: [String]? = nil
    /// RFC 8414 §2 `grant_types_supported`: `token --audience` uses token exchange (RFC 8693) only where listed.
    public var grantTypesSupported: [String]? = nil
    /// false: no discovery document; the endpoints came from `login`'s options (`EndpointOverrides`).
    /// Saved as the profile's `discovery` member, not in the metadata.
    public var discovered = true

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case endSessionEndpoint = "end_session_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case jwksURI = "jwks_uri"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthSigningAlgValuesSupported = "token_endpoint_auth_signing_alg_values_supported"
        case grantTypesSupported = "grant_types_supported"
    }

    public init(
        issuer: String, authorizationEndpoint: EndpointURL, tokenEndpoint: EndpointURL, userinfoEndpoint: EndpointURL? = nil,
        revocationEndpoint: EndpointURL? = nil, endSessionEndpoint: EndpointURL? = nil, introspectionEndpoint: EndpointURL? = nil,
        jwksURI: EndpointURL? = nil, deviceAuthorizationEndpoint: EndpointURL? = nil,
        pushedAuthorizationRequestEndpoint: EndpointURL? = nil, requirePushedAuthorizationRequests: Bool? = nil,
        codeChallengeMethodsSupported: [String]? = nil,
        authorizationResponseIssParameterSupported: Bool? = nil, tokenEndpointAuthMethodsSupported: [String]? = nil,
        revocationEndpointAuthMethodsSupported: [String]? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.introspectionEndpoint = introspectionEndpoint
        self.jwksURI = jwksURI
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.pushedAuthorizationRequestEndpoint = pushedAuthorizationRequestEndpoint
        self.requirePushedAuthorizationRequests = requirePushedAuthorizationRequests
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.revocationEndpointAuthMethodsSupported = revocationEndpointAuthMethodsSupported
    }
}

/// Written into profile.json; read back by `init(saved:)` (SavedProfile.swift), through the URL gate.
extension ProviderMetadata: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(issuer, forKey: .issuer)
        try container.encode(authorizationEndpoint.value, forKey: .authorizationEndpoint)
        try container.encode(tokenEndpoint.value, forKey: .tokenEndpoint)
        try container.encodeIfPresent(userinfoEndpoint?.value, forKey: .userinfoEndpoint)
        try container.encodeIfPresent(revocationEndpoint?.value, forKey: .revocationEndpoint)
        try container.encodeIfPresent(endSessionEndpoint?.value, forKey: .endSessionEndpoint)
        try container.encodeIfPresent(introspectionEndpoint?.value, forKey: .introspectionEndpoint)
        try container.encodeIfPresent(jwksURI?.value, forKey: .jwksURI)
        try container.encodeIfPresent(deviceAuthorizationEndpoint?.value, forKey: .deviceAuthorizationEndpoint)
        try container.encodeIfPresent(pushedAuthorizationRequestEndpoint?.value, forKey: .pushedAuthorizationRequestEndpoint)
        try container.encodeIfPresent(requirePushedAuthorizationRequests, forKey: .requirePushedAuthorizationRequests)
        try container.encodeIfPresent(codeChallengeMethodsSupported, forKey: .codeChallengeMethodsSupported)
        try container.encodeIfPresent(authorizationResponseIssParameterSupported, forKey: .authorizationResponseIssParameterSupported)
        try container.encodeIfPresent(tokenEndpointAuthMethodsSupported, forKey: .tokenEndpointAuthMethodsSupported)
        try container.encodeIfPresent(revocationEndpointAuthMethodsSupported, forKey: .revocationEndpointAuthMethodsSupported)
        try container.encodeIfPresent(idTokenSigningAlgValuesSupported, forKey: .idTokenSigningAlgValuesSupported)
        try container.encodeIfPresent(tokenEndpointAuthSigningAlgValuesSupported, forKey: .tokenEndpointAuthSigningAlgValuesSupported)
        try container.encodeIfPresent(grantTypesSupported, forKey: .grantTypesSupported)
    }
}

/// Discovery failures, one per rule; each becomes a one-line message.
public enum DiscoveryError: Error, Sendable, Equatable {
    case httpStatus(Int, contentType: String?)
    case redirected(status: Int, location: String?)
    case notJSON(contentType: String?)
    case missingField(String)
    case wrongType(String)
    case issuerMismatch(expected: String, actual: String)
    /// An endpoint the URL gate refused for this issuer.
    case refusedEndpoint(field: String, url: String, URLPolicyError)
    case s256Unsupported(advertised: [String])
}

extension ProviderMetadata {
    /// The discovery request: `GET {issuer}/.well-known/openid-configuration`, for JSON.
    public static func discoveryRequest(issuer: IssuerURL) -> HTTPRequest {
        HTTPRequest(method: .get, url: issuer.discoveryURL, headers: [("Accept", "application/json")])
    }

    /// Checks a discovery response against the issuer the user asked for
    /// ([Discovery §4.3](https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfigurationValidation),
    /// [RFC 8414 §3.3](https://www.rfc-editor.org/rfc/rfc8414#section-3.3)): a 200 JSON object, the same
    /// issuer exactly, the required endpoints present, https endpoints (loopback excepted), and S256 PKCE
    /// when the server lists its methods. A server that lists none still gets S256, as AppAuth does.
    public static func process(_ response: HTTPResponse, expectedIssuer: String) throws(DiscoveryError) -> ProviderMetadata {
        if (300..<400).contains(response.status) {
            throw .redirected(status: response.status, location: response.headers["location"])
        }
        guard response.status == 200 else { throw .httpStatus(response.status, contentType: response.contentType) }
        guard let object = response.jsonObject else { throw .notJSON(contentType: response.contentType) }
        let document = DiscoveryDocument(object: object)
        let issuer = try document.string("issuer", required: true)!
        guard issuer == expectedIssuer else { throw .issuerMismatch(expected: expectedIssuer, actual: issuer) }
        guard let issuerURL = try? EndpointPolicy.checkIssuer(issuer) else { throw .wrongType("issuer") }
        func endpoint(_ key: String, required: Bool = false) throws(DiscoveryError) -> EndpointURL? {
            try document.endpoint(key, required: required, issuer: issuerURL)
        }
        let methods = try document.codeChallengeMethods()
        let issParameterSupported = try document.flag("authorization_response_iss_parameter_supported")
        let requirePAR = try document.flag("require_pushed_authorization_requests")
        var metadata = ProviderMetadata(
            issuer: issuer,
            authorizationEndpoint: try endpoint("authorization_endpoint", required: true)!,
            tokenEndpoint: try endpoint("token_endpoint", required: true)!,
            userinfoEndpoint: try endpoint("userinfo_endpoint"),
            revocationEndpoint: try endpoint("revocation_endpoint"),
            endSessionEndpoint: try endpoint("end_session_endpoint"),
            introspectionEndpoint: try endpoint("introspection_endpoint"),
            jwksURI: try endpoint("jwks_uri"),
            deviceAuthorizationEndpoint: try endpoint("device_authorization_endpoint"),
            pushedAuthorizationRequestEndpoint: try endpoint("pushed_authorization_request_endpoint"),
            requirePushedAuthorizationRequests: requirePAR,
            codeChallengeMethodsSupported: methods,
            authorizationResponseIssParameterSupported: issParameterSupported,
            tokenEndpointAuthMethodsSupported: try document.names("token_endpoint_auth_methods_supported"),
            revocationEndpointAuthMethodsSupported: try document.names("revocation_endpoint_auth_methods_supported"))
        metadata.mtlsEndpointAliases = try mutualTLSAliases(object, issuer: issuerURL)
        metadata.idTokenSigningAlgValuesSupported = try document.names("id_token_signing_alg_values_supported")
        metadata.tokenEndpointAuthSigningAlgValuesSupported = try document.names("token_endpoint_auth_signing_alg_values_supported")
        metadata.dpopSigningAlgValuesSupported = try document.names("dpop_signing_alg_values_supported")
        metadata.grantTypesSupported = try document.names("grant_types_supported")
        return metadata
    }
}

/// A discovery document's members, each read by its kind: a string, an endpoint through the URL gate,
/// a flag, a list of names. A member that is absent or null is nil; one of another kind is refused.
private struct DiscoveryDocument {
    let object: [String: JSONValue]

    func string(_ key: String, required: Bool) throws(DiscoveryError) -> String? {
        guard let value = object[key], value != .null else {
            if required { throw .missingField(key) }
            return nil
        }
        guard let text = value.stringValue else { throw .wrongType(key) }
        return text
    }

    /// An endpoint, through the URL gate and the endpoint policy for `issuer`.
    func endpoint(_ key: String, required: Bool, issuer: EndpointURL) throws(DiscoveryError) -> EndpointURL? {
        guard let url = try string(key, required: required) else { return nil }
        do {
            return try EndpointPolicy.check(url, issuer: issuer)
        } catch {
            throw .refusedEndpoint(field: key, url: url, error)
        }
    }

    func flag(_ key: String) throws(DiscoveryError) -> Bool? {
        guard let value = object[key], value != .null else { return nil }
        guard let flag = value.boolValue else { throw .wrongType(key) }
        return flag
    }

    /// At most 64 names of at most 64 visible characters each; others are dropped.
    func names(_ key: String) throws(DiscoveryError) -> [String]? {
        guard let value = object[key], value != .null else { return nil }
        guard let array = value.arrayValue, array.count <= 64 else { throw .wrongType(key) }
        return array.compactMap(\.stringValue).filter { $0.utf8.count <= 64 && $0.utf8.allSatisfy(\.isVisibleOrSpace) }
    }

    /// `code_challenge_methods_supported`: when listed, S256 must be among them (RFC 7636 §4.2).
    func codeChallengeMethods() throws(DiscoveryError) -> [String]? {
        let key = "code_challenge_methods_supported"
        guard let value = object[key], value != .null else { return nil }
        guard let array = value.arrayValue else { throw .wrongType(key) }
        let names = array.compactMap(\.stringValue)
        guard names.contains("S256") else { throw .s256Unsupported(advertised: names) }
        return names
    }
}

extension String {
    package func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : self[...]
    }
}
