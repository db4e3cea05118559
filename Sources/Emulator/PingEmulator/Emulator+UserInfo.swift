import EmulatorHTTP
import Foundation

extension Emulator {
    // MARK: Userinfo

    func userinfo(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "POST" else { return methodNotAllowed() }
        let record: TokenRecord
        switch protectedResourceToken(request) {
        case .refused(let response): return response
        case .granted(let found): record = found
        }
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
