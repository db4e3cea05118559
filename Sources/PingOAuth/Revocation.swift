import PingBase
import PingHTTP

/// Token revocation ([RFC 7009](https://www.rfc-editor.org/rfc/rfc7009)).
public enum Revocation {
    /// `token_type_hint` (§2.1): which kind of token is being revoked.
    public enum TokenTypeHint: String, Sendable {
        case refreshToken = "refresh_token"
        case accessToken = "access_token"

        package var name: String { self == .refreshToken ? "refresh token" : "access token" }
    }

    /// POST `token` and `token_type_hint` with the client's authentication (§2.1: a public client
    /// identifies itself by `client_id` in the body, a confidential one with its secret).
    public static func request(
        endpoint: EndpointURL, token: any ProviderToken, kind: TokenTypeHint, client: ClientCredentials
    ) -> HTTPRequest {
        client.form(endpoint.value, [("token", token.value), ("token_type_hint", kind.rawValue)])
    }

    /// How the server answered a revocation request.
    public enum Outcome: Equatable, Sendable {
        /// 200 (§2.2): revoked, or a token the server no longer knows, or one its own rules leave alone
        /// (`RevocationRules`).
        case accepted
        /// `unsupported_token_type` (§2.2.1): the server does not revoke tokens of this kind.
        case unsupportedTokenType
        /// Anything else, with why.
        case refused(String)
    }

    public static func process(_ response: HTTPResponse) -> Outcome {
        if response.status == 200 { return .accepted }
        if let oauth = OAuthErrorResponse(response.jsonObject) {
            if oauth.code == .unsupportedTokenType { return .unsupportedTokenType }
            return .refused("HTTP \(response.status): \(oauth.summary)")
        }
        return .refused("HTTP \(response.status)\(response.contentType.map { " (\(displaySafe($0, limit: 60)))" } ?? "")")
    }
}
