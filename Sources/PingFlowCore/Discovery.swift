import PingBase
import PingHTTP
import PingOAuth

/// Discovery as a sign-in does it: the document fetched (`ProviderMetadata.discoveryRequest`), checked
/// (`ProviderMetadata.process`, which throws a `DiscoveryError` with its rule), and a failure worded here,
/// once, with what to change (`--issuer`, the endpoint options).
extension ProviderMetadata {
    /// Fetches and validates `{issuer}/.well-known/openid-configuration`. `standalone`: the metadata to
    /// use when the issuer serves no document (an HTTP error or no JSON), made from `login`'s endpoint
    /// options; nil: that is an error.
    package static func discover(
        issuer: IssuerURL, transport: any HTTPTransport, standalone: ProviderMetadata? = nil
    ) throws(PingCLIError) -> ProviderMetadata {
        let request = discoveryRequest(issuer: issuer)
        let response = try transport.send(request, doing: "discovery", endpoint: "discovery", url: request.url)
        do {
            return try process(response, expectedIssuer: issuer.value)
        } catch {
            switch error {
            case .httpStatus, .notJSON:
                if let standalone { return standalone }
                throw PingCLIError(
                    .failure,
                    error.message(url: request.url)
                        + " (a provider without discovery: give --authorization-endpoint URL and --token-endpoint URL)",
                    rule: error.rule)
            default: throw PingCLIError(.failure, error.message(url: request.url), rule: error.rule)
            }
        }
    }
}

extension DiscoveryError {
    /// One line: what discovery at `url` found wrong, and what to check or change.
    package func message(url: String) -> String {
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
        case .refusedEndpoint(let field, let endpoint, let reason):
            "discovery failed: the provider's \(field) \(displaySafe(endpoint, limit: 200)) was refused: \(reason.message): fix the provider's configuration, or check --issuer"
        case .s256Unsupported(let advertised):
            "discovery failed: the provider does not support PKCE S256 (it lists \(advertised.isEmpty ? "none" : displaySafe(advertised.joined(separator: ", "), limit: 100))): enable S256 PKCE for the client"
        }
    }
}
