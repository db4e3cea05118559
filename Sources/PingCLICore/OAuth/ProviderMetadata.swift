#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The parts of an OpenID Provider's configuration pingcli uses
/// ([OpenID Connect Discovery §3](https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderMetadata),
/// [RFC 8414 §2](https://www.rfc-editor.org/rfc/rfc8414#section-2)). Saved with the profile, so that
/// `token` can refresh without discovering again.
public struct ProviderMetadata: Codable, Sendable, Equatable {
    public var issuer: String
    public var authorizationEndpoint: String
    public var tokenEndpoint: String
    public var userinfoEndpoint: String?
    public var revocationEndpoint: String?
    public var endSessionEndpoint: String?
    public var introspectionEndpoint: String?
    public var jwksURI: String?
    public var codeChallengeMethodsSupported: [String]?
    public var authorizationResponseIssParameterSupported: Bool?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case endSessionEndpoint = "end_session_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case jwksURI = "jwks_uri"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
    }

    public init(
        issuer: String, authorizationEndpoint: String, tokenEndpoint: String, userinfoEndpoint: String? = nil,
        revocationEndpoint: String? = nil, endSessionEndpoint: String? = nil, introspectionEndpoint: String? = nil,
        jwksURI: String? = nil, codeChallengeMethodsSupported: [String]? = nil,
        authorizationResponseIssParameterSupported: Bool? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.introspectionEndpoint = introspectionEndpoint
        self.jwksURI = jwksURI
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
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
    case insecureEndpoint(field: String, url: String)
    case s256Unsupported(advertised: [String])
}

extension ProviderMetadata {
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
        guard let object = JSONValue.parseObject(response.body) else { throw .notJSON(contentType: response.contentType) }

        func string(_ key: String, required: Bool) throws(DiscoveryError) -> String? {
            guard let value = object[key], value != .null else {
                if required { throw .missingField(key) }
                return nil
            }
            guard let text = value.stringValue else { throw .wrongType(key) }
            return text
        }
        func endpoint(_ key: String, required: Bool) throws(DiscoveryError) -> String? {
            guard let url = try string(key, required: required) else { return nil }
            guard EndpointPolicy.isAllowed(url) else { throw .insecureEndpoint(field: key, url: url) }
            return url
        }

        let issuer = try string("issuer", required: true)!
        guard issuer == expectedIssuer else { throw .issuerMismatch(expected: expectedIssuer, actual: issuer) }
        var methods: [String]? = nil
        if let value = object["code_challenge_methods_supported"], value != .null {
            guard let array = value.arrayValue else { throw .wrongType("code_challenge_methods_supported") }
            let names = array.compactMap(\.stringValue)
            guard names.contains("S256") else { throw .s256Unsupported(advertised: names) }
            methods = names
        }
        var issParameterSupported: Bool? = nil
        if let value = object["authorization_response_iss_parameter_supported"], value != .null {
            guard let flag = value.boolValue else { throw .wrongType("authorization_response_iss_parameter_supported") }
            issParameterSupported = flag
        }
        return ProviderMetadata(
            issuer: issuer,
            authorizationEndpoint: try endpoint("authorization_endpoint", required: true)!,
            tokenEndpoint: try endpoint("token_endpoint", required: true)!,
            userinfoEndpoint: try endpoint("userinfo_endpoint", required: false),
            revocationEndpoint: try endpoint("revocation_endpoint", required: false),
            endSessionEndpoint: try endpoint("end_session_endpoint", required: false),
            introspectionEndpoint: try endpoint("introspection_endpoint", required: false),
            jwksURI: try endpoint("jwks_uri", required: false),
            codeChallengeMethodsSupported: methods,
            authorizationResponseIssParameterSupported: issParameterSupported)
    }

    /// Fetches and validates `{issuer}/.well-known/openid-configuration`.
    public static func discover(issuer: IssuerURL, transport: any HTTPTransport) throws(PingCLIError) -> ProviderMetadata {
        let url = issuer.discoveryURL
        let response: HTTPResponse
        do {
            response = try transport.send(HTTPRequest(method: .get, url: url, headers: [("Accept", "application/json")]))
        } catch {
            throw error.asCLIError(doing: "discovery at \(url)")
        }
        do {
            return try process(response, expectedIssuer: issuer.value)
        } catch {
            throw PingCLIError(.failure, error.message(url: url))
        }
    }
}

extension DiscoveryError {
    func message(url: String) -> String {
        switch self {
        case .httpStatus(let status, let contentType):
            "discovery failed: \(url) answered HTTP \(status)\(contentType.map { " (\(displaySafe($0, limit: 60)))" } ?? ""): check --issuer"
        case .redirected(let status, let location):
            "discovery failed: \(url) redirects (HTTP \(status)) to \(displaySafe(location ?? "nowhere", limit: 200)); pingcli does not follow redirects for discovery: check --issuer"
        case .notJSON(let contentType):
            "discovery failed: \(url) did not return a JSON object\(contentType.map { " (got \(displaySafe($0, limit: 60)))" } ?? ""): check --issuer points at an OpenID provider"
        case .missingField(let field):
            "discovery failed: the provider's configuration has no \(field): the server is not a usable OpenID provider"
        case .wrongType(let field):
            "discovery failed: the provider's configuration has a malformed \(field): the server is not a usable OpenID provider"
        case .issuerMismatch(let expected, let actual):
            if actual.hasSuffix("/") != expected.hasSuffix("/") && actual.trimmingSuffix("/") == expected.trimmingSuffix("/") {
                "discovery failed: the provider calls itself \(displaySafe(actual, limit: 200)), not \(expected): use --issuer \(displaySafe(actual, limit: 200))"
            } else {
                "discovery failed: the document at \(url) is for issuer \(displaySafe(actual, limit: 200)), not \(expected) (OpenID Discovery §4.3): check --issuer; if it is right, the server is misconfigured or an impostor"
            }
        case .insecureEndpoint(let field, let endpoint):
            "discovery failed: \(field) \(displaySafe(endpoint, limit: 200)) is not https (only loopback hosts may use http): fix the provider's configuration"
        case .s256Unsupported(let advertised):
            "discovery failed: the provider does not support PKCE S256 (it lists \(advertised.isEmpty ? "none" : displaySafe(advertised.joined(separator: ", "), limit: 100))): enable S256 PKCE for the client"
        }
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : self[...]
    }
}

extension TransportError {
    /// Maps a transport failure to the user's words and exit status 3 (or 1 for an unusable URL).
    func asCLIError(doing what: String) -> PingCLIError {
        switch self {
        case .unreachable(let reason):
            .unreachable("\(what) failed: \(reason): check your network, proxy (HTTPS_PROXY) or --ca-file, then try again")
        case .responseTooLarge(let limit):
            .failure("\(what) failed: the response was larger than \(limit / 1024) KiB: the server is misbehaving")
        case .invalidURL(let reason):
            .failure("\(what) failed: \(reason): check the URL")
        case .libraryMissing:
            .failure("\(what) failed: libcurl could not be loaded: install it (apt-get install libcurl4)")
        }
    }
}
