import PingHTTP

/// What one answer of the token endpoint means, for every grant that asks it (the code exchange,
/// refresh, the device poll, client credentials, token exchange, a journey's session code): the token
/// set, or the refusal with what the sender can do about it
/// ([RFC 6749 §5.1, §5.2](https://www.rfc-editor.org/rfc/rfc6749#section-5)). Pure: the flows send
/// the request (`TokenEndpointCall`) and then only sleep, lock, save and print.
public enum TokenEndpointOutcome: Sendable, Equatable {
    case tokens(TokenSet)
    /// Refused: the error, what it means for the sender (`TokenFailureKind`), the HTTP status and the
    /// server's `Retry-After` in seconds when it sent one ([RFC 9110 §10.2.3](https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3)).
    case refused(TokenEndpointError, kind: TokenFailureKind, status: Int, retryAfter: Double?)

    /// The OAuth error object of a refusal, when the server sent one.
    public var oauthError: OAuthErrorResponse? {
        if case .refused(.oauthError(_, let oauth), _, _, _) = self { return oauth }
        return nil
    }
}

extension TokenEndpoint {
    /// Reads an answer of the token endpoint: `process`, then for a token exchange
    /// ([RFC 8693 §2.2.1](https://www.rfc-editor.org/rfc/rfc8693#section-2.2.1)) its `issued_token_type`,
    /// which must name an access token; a refusal is sorted by `TokenFailureKind`.
    public static func classify(
        _ response: HTTPResponse, now: Double, dpop: Bool = false, exchange: Bool = false
    )
        -> TokenEndpointOutcome
    {
        let error: TokenEndpointError
        do {
            let tokens = try process(response, now: now, dpop: dpop)
            guard exchange, let issued = unusableIssuedTokenType(response) else { return .tokens(tokens) }
            error = .issuedTokenType(issued)
        } catch let refused {
            error = refused
        }
        let retryAfter = response.headers["retry-after"].flatMap { Double($0.trimmingWhitespace) }
        return .refused(
            error, kind: TokenFailureKind(status: response.status, error: error), status: response.status, retryAfter: retryAfter)
    }
}
