#if canImport(Glibc)
    import Glibc
#endif

/// Failures of the UserInfo endpoint ([OIDC Core §5.3](https://openid.net/specs/openid-connect-core-1_0.html#UserInfo)).
public enum UserInfoError: Error, Sendable, Equatable {
    /// 401: the access token was not accepted (RFC 6750 §3.1).
    case invalidToken(String?)
    case httpStatus(Int, contentType: String?)
    case notJSON(contentType: String?)
    case missingSubject
    /// §5.3.2: the `sub` must equal the ID token's, or the response must not be used.
    case subjectMismatch

    public var message: String {
        switch self {
        case .invalidToken(let challenge):
            "the userinfo endpoint rejected the access token\(challenge.map { " (\(displaySafe($0, limit: 200)))" } ?? "")"
        case .httpStatus(let status, let contentType):
            "the userinfo endpoint answered HTTP \(status)\(contentType.map { " (\(displaySafe($0, limit: 60)))" } ?? "")"
        case .notJSON(let contentType):
            "the userinfo response is not a JSON object\(contentType.map { " (got \(displaySafe($0, limit: 60)))" } ?? "")"
        case .missingSubject: "the userinfo response has no sub claim"
        case .subjectMismatch: "the userinfo response is about a different subject than the ID token (OIDC Core §5.3.2): it was not used"
        }
    }
}

public enum UserInfo {
    /// GET with the access token in the Authorization header (RFC 6750 §2.1), never in the URL.
    public static func request(endpoint: EndpointURL, accessToken: AccessToken) -> HTTPRequest {
        HTTPRequest(
            method: .get, url: endpoint.value, headers: [("Authorization", "Bearer " + accessToken.value), ("Accept", "application/json")])
    }

    /// Checks a UserInfo response and returns its claims.
    public static func process(_ response: HTTPResponse, expectedSubject: String?) throws(UserInfoError) -> [String: JSONValue] {
        if response.status == 401 { throw .invalidToken(response.headers["www-authenticate"]) }
        guard response.status == 200 else { throw .httpStatus(response.status, contentType: response.contentType) }
        guard let claims = response.jsonObject else { throw .notJSON(contentType: response.contentType) }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw .missingSubject }
        if let expectedSubject, subject != expectedSubject { throw .subjectMismatch }
        return claims
    }
}
