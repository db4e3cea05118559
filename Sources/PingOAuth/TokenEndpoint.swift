import PingBase
import PingHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Failures of the token endpoint, one per rule; worded where the flows word failures (`PingFlowCore/OAuthAdvice.swift`).
public enum TokenEndpointError: Error, Sendable, Equatable {
    /// An OAuth error object (RFC 6749 §5.2), with the HTTP status.
    case oauthError(status: Int, OAuthErrorResponse)
    /// A non-200 answer that is not an OAuth error object (an HTML error page, a 502 from a proxy).
    case httpStatus(Int, contentType: String?)
    case notJSON(contentType: String?)
    case missingAccessToken
    case unsupportedTokenType(String)
    /// A request with a DPoP proof got a token of another type back (RFC 9449 §5): the provider did not
    /// bind it to the key, so it would be a plain bearer token.
    case notDPoPBound(String)
    /// A request without a proof got a DPoP-bound token back.
    case unexpectedDPoP
    case invalidExpiresIn
    /// A token failed its grammar (RFC 6749 Appendix A, RFC 6750 §2.1, RFC 7515 §7.1).
    case invalidToken(TokenGrammarError)
    /// `scope` is not a space-separated list of RFC 6749 §3.3 scope tokens.
    case invalidScope
    case missingIDToken
    case idToken(IDTokenError)
    /// A token exchange answered with a token that is not an access token (RFC 8693 §2.2.1): the
    /// `issued_token_type` it named, or `(missing)`.
    case issuedTokenType(String)

    /// Whether the grant itself is dead (the refresh token was rejected), as opposed to a passing failure.
    public var isInvalidGrant: Bool {
        if case .oauthError(_, let error) = self { return error.code == .invalidGrant }
        return false
    }
}

/// Token endpoint requests and response processing
/// ([RFC 6749 §4.1.3, §5, §6](https://www.rfc-editor.org/rfc/rfc6749#section-5)).
public enum TokenEndpoint {
    /// The authorization code exchange, with the PKCE verifier (RFC 7636 §4.5).
    public static func authorizationCodeRequest(
        endpoint: EndpointURL, code: String, redirectURI: String, client: ClientCredentials, codeVerifier: String
    ) -> HTTPRequest {
        client.form(
            endpoint.value,
            [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", codeVerifier)])
    }

    /// A refresh ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)); scope left out to keep the original grant.
    public static func refreshRequest(endpoint: EndpointURL, refreshToken: RefreshToken, client: ClientCredentials) -> HTTPRequest {
        client.form(endpoint.value, [("grant_type", "refresh_token"), ("refresh_token", refreshToken.value)])
    }

    /// The client credentials grant ([RFC 6749 §4.4](https://www.rfc-editor.org/rfc/rfc6749#section-4.4)):
    /// a confidential client asks for a token for itself; scope only when given.
    public static func clientCredentialsRequest(endpoint: EndpointURL, scopes: [String], client: ClientCredentials) -> HTTPRequest {
        var pairs: [FormEncoding.Pair] = [("grant_type", "client_credentials")]
        if !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        return client.form(endpoint.value, pairs)
    }

    /// Longest access-token lifetime believed; anything longer is a server bug, not a gift.
    package static let maximumExpiresIn: Double = 10 * 365 * 24 * 3600

    /// Checks a token response and turns it into a `TokenSet` (RFC 6749 §5.1, §5.2; RFC 6750 for Bearer).
    ///
    /// `dpop`: the request carried a DPoP proof, so the token must come back as `token_type` `DPoP`
    /// (RFC 9449 §5); without one, a `DPoP` token is refused as well: a Bearer login never silently
    /// becomes DPoP. Token type names are case-insensitive (RFC 6749 §5.1).
    public static func process(_ response: HTTPResponse, now: Double, dpop: Bool = false) throws(TokenEndpointError) -> TokenSet {
        let object = response.jsonObject
        guard response.status == 200 else {
            if let error = OAuthErrorResponse(object) { throw .oauthError(status: response.status, error) }
            throw .httpStatus(response.status, contentType: response.contentType)
        }
        guard let object else { throw .notJSON(contentType: response.contentType) }
        guard let tokenType = object["token_type"]?.stringValue else { throw .unsupportedTokenType("(missing)") }
        switch (tokenType.lowercased(), dpop) {
        case ("dpop", true), ("bearer", false): break
        case (_, true): throw .notDPoPBound(tokenType)
        case ("dpop", false): throw .unexpectedDPoP
        default: throw .unsupportedTokenType(tokenType)
        }
        let seconds = try expiresIn(object["expires_in"])
        func token<T: ProviderToken>(_ type: T.Type) throws(TokenEndpointError) -> T? {
            switch object[T.field] {
            case nil, .null?: return nil
            case .string(let text)? where text.isEmpty: return nil  // an empty string is as good as absent
            case .string(let text)?:
                do { return try T(checking: text) } catch { throw .invalidToken(error) }
            default: throw .invalidToken(TokenGrammarError(field: T.field, rule: T.rule))
            }
        }
        guard let accessToken = try token(AccessToken.self) else { throw .missingAccessToken }
        var scope: String? = nil
        switch object["scope"] {
        case nil, .null?: scope = nil
        case .string(let text)? where isValidScope(text): scope = text
        default: throw .invalidScope
        }
        return TokenSet(
            accessToken: accessToken, tokenType: dpop ? "DPoP" : "Bearer", expiresAt: seconds.map { now + $0 },
            refreshToken: try token(RefreshToken.self), idToken: try token(IDToken.self), scope: scope, obtainedAt: now)
    }

    /// `expires_in` (RFC 6749 §5.1): a JSON number, or a string of plain decimal digits as some servers
    /// send; positive and under ten years. `"0x10"`, `"1e3"`, `" 60"` are refused, not guessed at.
    package static func expiresIn(_ value: JSONValue?) throws(TokenEndpointError) -> Double? {
        let seconds: Double
        switch value {
        case nil, .null?: return nil
        case .number(let number)?: seconds = number
        case .string(let text)?:
            guard !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy(\.isASCIIDigit), let number = Double(text) else {
                throw .invalidExpiresIn
            }
            seconds = number
        default: throw .invalidExpiresIn
        }
        guard seconds.isFinite, seconds > 0, seconds <= maximumExpiresIn else { throw .invalidExpiresIn }
        return seconds
    }
}

extension OAuthErrorResponse {
    /// The error object of RFC 6749 §5.2 from a JSON body: nil unless `error` is a string.
    package init?(_ object: [String: JSONValue]?) {
        guard let object, let error = object["error"]?.stringValue else { return nil }
        self.init(error: error, errorDescription: object["error_description"]?.stringValue, errorURI: object["error_uri"]?.stringValue)
    }
}
