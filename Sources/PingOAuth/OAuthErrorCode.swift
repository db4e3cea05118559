/// The `error` code of an OAuth error response, typed: the codes of
/// [RFC 6749 §4.1.2.1 and §5.2](https://www.rfc-editor.org/rfc/rfc6749#section-5.2),
/// [RFC 8693 §2.2.2](https://www.rfc-editor.org/rfc/rfc8693#section-2.2.2) (`invalid_target`, also RFC 8707 §2),
/// [RFC 6750 §3.1](https://www.rfc-editor.org/rfc/rfc6750#section-3.1), [RFC 8628 §3.5](https://www.rfc-editor.org/rfc/rfc8628#section-3.5), [RFC 7009 §2.2.1](https://www.rfc-editor.org/rfc/rfc7009#section-2.2.1)
/// and [RFC 9449 §8](https://www.rfc-editor.org/rfc/rfc9449#section-8); any other code as `.other`. A flow
/// matches the case, never the text.
public enum OAuthErrorCode: Sendable, Equatable {
    case invalidRequest, invalidClient, invalidGrant, unauthorizedClient, unsupportedGrantType, invalidScope
    case accessDenied, unsupportedResponseType, serverError, temporarilyUnavailable
    case invalidTarget
    case invalidToken, insufficientScope
    case authorizationPending, slowDown, expiredToken
    case unsupportedTokenType
    case invalidDPoPProof, useDPoPNonce
    /// A code no RFC above defines, as the server sent it.
    case other(String)

    private static let known: [(String, OAuthErrorCode)] = [
        ("invalid_request", .invalidRequest), ("invalid_client", .invalidClient), ("invalid_grant", .invalidGrant),
        ("unauthorized_client", .unauthorizedClient), ("unsupported_grant_type", .unsupportedGrantType),
        ("invalid_scope", .invalidScope), ("access_denied", .accessDenied), ("unsupported_response_type", .unsupportedResponseType),
        ("server_error", .serverError), ("temporarily_unavailable", .temporarilyUnavailable), ("invalid_target", .invalidTarget),
        ("invalid_token", .invalidToken), ("insufficient_scope", .insufficientScope),
        ("authorization_pending", .authorizationPending), ("slow_down", .slowDown), ("expired_token", .expiredToken),
        ("unsupported_token_type", .unsupportedTokenType), ("invalid_dpop_proof", .invalidDPoPProof),
        ("use_dpop_nonce", .useDPoPNonce),
    ]

    /// The code for the `error` member as received (codes are case-sensitive: RFC 6749 §5.2).
    public init(_ text: String) {
        self = Self.known.first { $0.0 == text }?.1 ?? .other(text)
    }

    /// The code as it appears on the wire.
    public var rawValue: String {
        if case .other(let text) = self { return text }
        return Self.known.first { $0.1 == self }!.0
    }
}

extension OAuthErrorResponse {
    /// The `error` member, typed.
    public var code: OAuthErrorCode { OAuthErrorCode(error) }
}
