import PingBase
import PingHTTP

/// What `token --scope`, `--resource` and `--audience` ask for: an access token for less than the
/// session's whole grant, after one gate per input.
///
/// - `scope` (RFC 6749 §3.3): scope tokens, kept in the order given, duplicates dropped.
/// - `resource` (RFC 8707 §2): an absolute URI without a fragment, the API the token is for.
/// - `audience` (RFC 8693 §2.1): the logical name of the target service, sent by token exchange.
public struct TokenTarget: Sendable, Equatable {
    public var scopes: [String]?
    public var resource: String?
    public var audience: String?

    /// Longest resource or audience taken: far beyond any real API's identifier.
    package static let maximumLength = 2048

    public init(scope: String?, resource: String?, audience: String?) throws(Failure) {
        if let scope {
            guard isValidScope(scope) else { throw .scope(scope) }
            var seen = Set<Substring>()
            scopes = scope.split(separator: " ").filter { seen.insert($0).inserted }.map(String.init)
        }
        if let resource {
            guard Self.isAbsoluteURI(resource) else { throw .resource(resource) }
            self.resource = resource
        }
        if let audience {
            guard !audience.isEmpty, audience.utf8.count <= Self.maximumLength, audience.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            else { throw .audience(audience) }
            self.audience = audience
        }
    }

    /// Which input failed its gate, as given; worded where the flows word failures (`PingFlowCore/OAuthAdvice.swift`).
    public enum Failure: Error, Sendable, Equatable {
        /// Not a list of RFC 6749 §3.3 scope tokens.
        case scope(String)
        /// Not an absolute URI without a fragment (RFC 8707 §2).
        case resource(String)
        /// Not 1 to `maximumLength` visible ASCII characters.
        case audience(String)

        public var rule: Rule {
            switch self {
            case .scope: .targetScopeGrammar
            case .resource: .targetResourceURI
            case .audience: .targetAudienceGrammar
            }
        }
    }

    /// RFC 3986 §4.3 `absolute-URI` (a scheme, then something), printable ASCII only, no fragment
    /// (RFC 8707 §2): `https://api.example.com/orders` and `urn:example:orders` pass.
    package static func isAbsoluteURI(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumLength, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), !bytes.contains(UInt8(ascii: "#")),
            let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon < bytes.count - 1, bytes[0].isASCIILetter
        else { return false }
        return bytes[..<colon].allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
    }

    /// The scope as sent: the tokens joined by spaces.
    public var scope: String? { scopes?.joined(separator: " ") }

    /// The key of this target's record in the cache: the same request always finds the same record.
    package var cacheKey: String {
        "scope=\(scopes?.sorted().joined(separator: " ") ?? "")\nresource=\(resource ?? "")\naudience=\(audience ?? "")"
    }

    /// The parameters a refresh or exchange adds for this target (RFC 6749 §6 `scope`, RFC 8707 §2.2 `resource`).
    package var parameters: [FormEncoding.Pair] {
        var pairs: [FormEncoding.Pair] = []
        if let scope { pairs.append(("scope", scope)) }
        if let resource { pairs.append(("resource", resource)) }
        return pairs
    }

    /// How the target is described to a person: `scope "a b", resource https://…`.
    package var summary: String {
        var parts: [String] = []
        if let scope { parts.append("scope \"\(displaySafe(scope, limit: 80))\"") }
        if let resource { parts.append("resource \(displaySafe(resource, limit: 120))") }
        if let audience { parts.append("audience \(displaySafe(audience, limit: 120))") }
        return parts.joined(separator: ", ")
    }
}

extension TokenEndpoint {
    /// RFC 8693 §2.1: the grant type of token exchange.
    public static let tokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// RFC 8693 §3: the token type identifier of an access token.
    public static let accessTokenTypeIdentifier = "urn:ietf:params:oauth:token-type:access_token"

    /// A refresh for a narrower token ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6),
    /// [RFC 8707 §2.2](https://www.rfc-editor.org/rfc/rfc8707#section-2.2)): `scope` and `resource` narrow
    /// the new access token only; the refresh token keeps the grant's whole scope.
    package static func refreshRequest(
        endpoint: EndpointURL, refreshToken: RefreshToken, client: ClientCredentials, target: TokenTarget
    ) -> HTTPRequest {
        client.form(endpoint.value, [("grant_type", "refresh_token"), ("refresh_token", refreshToken.value)] + target.parameters)
    }

    /// Token exchange ([RFC 8693 §2.1](https://www.rfc-editor.org/rfc/rfc8693#section-2.1)): the session's
    /// access token as the subject, an access token for the target back.
    package static func tokenExchangeRequest(
        endpoint: EndpointURL, subjectToken: AccessToken, client: ClientCredentials, target: TokenTarget
    ) -> HTTPRequest {
        var pairs: [FormEncoding.Pair] = [
            ("grant_type", tokenExchangeGrantType), ("subject_token", subjectToken.value),
            ("subject_token_type", accessTokenTypeIdentifier), ("requested_token_type", accessTokenTypeIdentifier),
        ]
        if let audience = target.audience { pairs.append(("audience", audience)) }
        return client.form(endpoint.value, pairs + target.parameters)
    }

    /// The `issued_token_type` of a token exchange's answer when it is not an access token (nil when it is):
    /// [RFC 8693 §2.2.1](https://www.rfc-editor.org/rfc/rfc8693#section-2.2.1) requires the member, and only
    /// an access token is of use here. "(missing)" when the answer has none.
    package static func unusableIssuedTokenType(_ response: HTTPResponse) -> String? {
        let issued = response.jsonObject?["issued_token_type"]?.stringValue
        return issued == accessTokenTypeIdentifier ? nil : issued ?? "(missing)"
    }

    /// The client credentials grant for a target (RFC 6749 §4.4 with RFC 8707 §2.1's `resource`): without
    /// `--scope`, no scope, so the provider issues the client's scopes of that resource.
    package static func clientCredentialsRequest(endpoint: EndpointURL, client: ClientCredentials, target: TokenTarget) -> HTTPRequest {
        client.form(endpoint.value, [("grant_type", "client_credentials")] + target.parameters)
    }
}
