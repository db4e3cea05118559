#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What pingcli keeps from token responses; encrypted at rest by the token store.
public struct TokenSet: Codable, Sendable, Equatable {
    public var accessToken: String
    public var tokenType: String
    /// Seconds since 1970 when the access token expires; nil when the server did not say.
    public var expiresAt: Double?
    public var refreshToken: String?
    public var idToken: String?
    public var scope: String?
    /// Seconds since 1970 when this set was obtained.
    public var obtainedAt: Double

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresAt = "expires_at"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case scope
        case obtainedAt = "obtained_at"
    }

    public init(
        accessToken: String, tokenType: String, expiresAt: Double?, refreshToken: String?, idToken: String?,
        scope: String?, obtainedAt: Double
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
        self.obtainedAt = obtainedAt
    }

    /// Whether the access token is still good for at least `minimumTTL` seconds. A token without a
    /// known expiry counts as fresh: the server chose not to say.
    public func isFresh(now: Double, minimumTTL: Double) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt - now > minimumTTL
    }

    /// Whether the access token has actually expired (not merely close to it).
    public func isExpired(now: Double) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= now
    }

    /// The set after a refresh ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)): a
    /// refresh token or ID token the server did not send again stays as it was.
    public func merging(_ refreshed: TokenSet) -> TokenSet {
        var next = refreshed
        if next.refreshToken == nil { next.refreshToken = refreshToken }
        if next.idToken == nil { next.idToken = idToken }
        if next.scope == nil { next.scope = scope }
        return next
    }
}

/// Failures of the token endpoint, one per rule.
public enum TokenEndpointError: Error, Sendable, Equatable {
    /// An OAuth error object (RFC 6749 §5.2), with the HTTP status.
    case oauthError(status: Int, OAuthErrorResponse)
    /// A non-200 answer that is not an OAuth error object (an HTML error page, a 502 from a proxy).
    case httpStatus(Int, contentType: String?)
    case notJSON(contentType: String?)
    case missingAccessToken
    case unsupportedTokenType(String)
    case invalidExpiresIn
    case missingIDToken
    case idToken(IDTokenError)

    /// Whether the grant itself is dead (the refresh token was rejected), as opposed to a passing failure.
    public var isInvalidGrant: Bool {
        if case .oauthError(_, let error) = self { return error.error == "invalid_grant" }
        return false
    }

    public var message: String {
        switch self {
        case .oauthError(let status, let error): "the token endpoint refused (HTTP \(status)): \(error.summary)"
        case .httpStatus(let status, let contentType):
            "the token endpoint answered HTTP \(status)\(contentType.map { " (\(displaySafe($0, limit: 60)))" } ?? "") without an OAuth error"
        case .notJSON(let contentType):
            "the token endpoint's answer is not a JSON object\(contentType.map { " (got \(displaySafe($0, limit: 60)))" } ?? "")"
        case .missingAccessToken: "the token response has no access_token"
        case .unsupportedTokenType(let type):
            "the token response's token_type is \(displaySafe(type, limit: 40)), and pingcli supports only Bearer"
        case .invalidExpiresIn: "the token response's expires_in is not a positive number of seconds under ten years"
        case .missingIDToken: "the token response has no id_token although the openid scope was granted"
        case .idToken(let error): error.message
        }
    }
}

/// Token endpoint requests and response processing
/// ([RFC 6749 §4.1.3, §5, §6](https://www.rfc-editor.org/rfc/rfc6749#section-5)).
public enum TokenEndpoint {
    /// The authorization code exchange, with the PKCE verifier (RFC 7636 §4.5).
    public static func authorizationCodeRequest(
        endpoint: String, code: String, redirectURI: String, clientID: String, codeVerifier: String
    ) -> HTTPRequest {
        .form(
            endpoint,
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("client_id", clientID), ("code_verifier", codeVerifier),
            ])
    }

    /// A refresh ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)); scope left out to keep the original grant.
    public static func refreshRequest(endpoint: String, refreshToken: String, clientID: String) -> HTTPRequest {
        .form(endpoint, [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientID)])
    }

    /// Longest access-token lifetime believed; anything longer is a server bug, not a gift.
    static let maximumExpiresIn: Double = 10 * 365 * 24 * 3600

    /// Checks a token response and turns it into a `TokenSet` (RFC 6749 §5.1, §5.2; RFC 6750 for Bearer).
    public static func process(_ response: HTTPResponse, now: Double) throws(TokenEndpointError) -> TokenSet {
        let object = JSONValue.parseObject(response.body)
        guard response.status == 200 else {
            if let object, let error = object["error"]?.stringValue {
                throw .oauthError(
                    status: response.status,
                    OAuthErrorResponse(
                        error: error, errorDescription: object["error_description"]?.stringValue,
                        errorURI: object["error_uri"]?.stringValue))
            }
            throw .httpStatus(response.status, contentType: response.contentType)
        }
        guard let object else { throw .notJSON(contentType: response.contentType) }
        guard let accessToken = object["access_token"]?.stringValue, !accessToken.isEmpty else {
            throw .missingAccessToken
        }
        guard let tokenType = object["token_type"]?.stringValue else { throw .unsupportedTokenType("(missing)") }
        guard tokenType.lowercased() == "bearer" else { throw .unsupportedTokenType(tokenType) }
        var expiresAt: Double? = nil
        switch object["expires_in"] {
        case nil, .null?:
            expiresAt = nil
        case .number(let seconds)?:
            guard seconds > 0, seconds <= maximumExpiresIn else { throw .invalidExpiresIn }
            expiresAt = now + seconds
        case .string(let text)?:  // some servers send a string; accept it only if it is a clean number
            guard let seconds = Double(text), seconds > 0, seconds <= maximumExpiresIn else { throw .invalidExpiresIn }
            expiresAt = now + seconds
        default:
            throw .invalidExpiresIn
        }
        return TokenSet(
            accessToken: accessToken, tokenType: "Bearer", expiresAt: expiresAt,
            refreshToken: object["refresh_token"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
            idToken: object["id_token"]?.stringValue, scope: object["scope"]?.stringValue, obtainedAt: now)
    }
}
