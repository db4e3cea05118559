import Foundation

extension Emulator {
    // MARK: Userinfo

    func userinfo(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "POST" else { return methodNotAllowed() }
        func unauthorized(_ description: String) -> HTTPResponse {
            .oauthError(
                "invalid_token", description, status: 401,
                headers: [
                    ("WWW-Authenticate", "Bearer error=\"invalid_token\", error_description=\"\(description)\"")
                ])
        }
        guard let authorization = request.header("authorization"), authorization.lowercased().hasPrefix("bearer ") else {
            return unauthorized("missing bearer token")
        }
        let token = authorization.dropFirst(7).trimmingCharacters(in: .whitespaces)
        // The access token is a JWT this emulator signed (RS256 by default): check the signature first.
        guard key.verify(token)?["iss"] == .string(issuer), let record = state.withLock({ $0.tokens[token] }), !record.isRefresh
        else {
            return unauthorized("unknown access token")
        }
        guard !record.revoked else { return unauthorized("access token was revoked") }
        if let bound = record.certificateThumbprint, bound != Self.presentedCertificate {
            return unauthorized("the access token is bound to a client certificate the request did not present (RFC 8705 §3)")
        }
        guard now() < record.expiresAt else { return unauthorized("access token expired") }
        // OIDC Core §5.3: the UserInfo endpoint serves tokens granted `openid`; RFC 6750 §3.1 says how to refuse.
        guard record.scopes.contains("openid") else {
            return .oauthError(
                "insufficient_scope", "the access token was not granted the openid scope", status: 403,
                headers: [("WWW-Authenticate", "Bearer error=\"insufficient_scope\", scope=\"openid\"")])
        }
        var claims = Self.userClaims(record.grant.user, scopes: record.scopes)
        claims["sub"] = .string(record.grant.user.sub)
        return .json(.object(claims))
    }
}
