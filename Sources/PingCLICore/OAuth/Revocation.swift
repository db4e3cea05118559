/// Token revocation ([RFC 7009](https://www.rfc-editor.org/rfc/rfc7009)).
public enum Revocation {
    public enum TokenKind: String, Sendable {
        case refreshToken = "refresh_token"
        case accessToken = "access_token"

        var name: String { self == .refreshToken ? "refresh token" : "access token" }
    }

    /// POST `token` and `token_type_hint` with the client's authentication (§2.1: a public client
    /// identifies itself by `client_id` in the body, a confidential one with its secret).
    public static func request(endpoint: EndpointURL, token: any ProviderToken, kind: TokenKind, client: ClientCredentials) -> HTTPRequest {
        client.form(endpoint.value, [("token", token.value), ("token_type_hint", kind.rawValue)])
    }

    /// nil when revoked (200, §2.2: also for tokens the server no longer knows), else why not.
    public static func process(_ response: HTTPResponse) -> String? {
        if response.status == 200 { return nil }
        if let oauth = OAuthErrorResponse(response.jsonObject) {
            var reason = "HTTP \(response.status): \(oauth.summary)"
            if isMissingRevokeScope(oauth) {
                reason +=
                    "; PingOne needs the client to have the revoke scope: add it to the application's resources and log in with --scope including revoke (see \"Setting up PingOne\" in the README)"
            }
            return reason
        }
        return "HTTP \(response.status)\(response.contentType.map { " (\(displaySafe($0, limit: 60)))" } ?? "")"
    }

    /// PingOne refuses revocation unless the grant includes its custom `revoke` scope.
    static func isMissingRevokeScope(_ error: OAuthErrorResponse) -> Bool {
        error.error == "invalid_scope" || (error.errorDescription?.lowercased().contains("revoke") ?? false)
    }
}
