import PingBase
import PingHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Failures of the UserInfo endpoint ([OIDC Core §5.3](https://openid.net/specs/openid-connect-core-1_0.html#UserInfo)).
public enum UserInfoError: Error, Sendable, Equatable {
    /// 401: the access token was not accepted (RFC 6750 §3.1).
    case invalidToken(String?)
    /// 403, or a 401 whose challenge says `error="insufficient_scope"` (RFC 6750 §3.1): the token is
    /// good but lacks a scope (`openid`, OIDC Core §5.3); a refresh would bring the same scope.
    case insufficientScope(String?)
    case httpStatus(Int, contentType: String?)
    case notJSON(contentType: String?)
    case missingSubject
    /// §5.3.2: the `sub` must equal the ID token's, or the response must not be used.
    case subjectMismatch

    public var message: String {
        switch self {
        case .invalidToken(let challenge):
            "the userinfo endpoint rejected the access token\(challenge.map { " (\(displaySafe($0, limit: 200)))" } ?? "")"
        case .insufficientScope(let challenge):
            "the userinfo endpoint refused the access token for its scope\(challenge.map { " (\(displaySafe($0, limit: 200)))" } ?? "")"
        case .httpStatus(let status, let contentType):
            EndpointAnswer.status("the userinfo endpoint", status, contentType: contentType)
        case .notJSON(let contentType):
            EndpointAnswer.notJSON("the userinfo response", contentType: contentType)
        case .missingSubject: "the userinfo response has no sub claim"
        case .subjectMismatch: "the userinfo response is about a different subject than the ID token (OIDC Core §5.3.2): it was not used"
        }
    }
}

public enum UserInfo {
    /// GET with the access token in the Authorization header (RFC 6750 §2.1, or RFC 9449 §7.1 with the
    /// `DPoP` scheme for a bound token), never in the URL.
    public static func request(endpoint: EndpointURL, tokens: TokenSet) -> HTTPRequest {
        HTTPRequest(method: .get, url: endpoint.value, headers: [tokens.authorization, ("Accept", "application/json")])
    }

    /// Checks a UserInfo response and returns its claims.
    public static func process(_ response: HTTPResponse, expectedSubject: String?) throws(UserInfoError) -> [String: JSONValue] {
        let challenge = response.headers["www-authenticate"]
        if response.status == 401 || response.status == 403 {
            let error = challenge.flatMap { BearerChallenge.parameter("error", in: $0) } ?? response.jsonObject?["error"]?.stringValue
            if error.map(OAuthErrorCode.init) == .insufficientScope {
                throw .insufficientScope(challenge)
            }
            if response.status == 401 { throw .invalidToken(challenge) }
        }
        guard response.status == 200 else { throw .httpStatus(response.status, contentType: response.contentType) }
        guard let claims = response.jsonObject else { throw .notJSON(contentType: response.contentType) }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw .missingSubject }
        if let expectedSubject, subject != expectedSubject { throw .subjectMismatch }
        return claims
    }
}

/// The auth-params of a `WWW-Authenticate` challenge ([RFC 6750 §3](https://www.rfc-editor.org/rfc/rfc6750#section-3),
/// RFC 9110 §11.2): `name=token` or `name="quoted string"`, separated by commas.
package enum BearerChallenge {
    /// The value of the auth-param `name` (case-insensitive), or nil.
    package static func parameter(_ name: String, in header: String) -> String? {
        let bytes = Array(header.utf8.prefix(8192))
        let wanted = Array(name.lowercased().utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\"") {  // a quoted value is never a name: skip it whole
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") { index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1 }
                index += 1
                continue
            }
            // A parameter name starts after the scheme's space, a comma or the start.
            let boundary = index == 0 || bytes[index - 1] == 0x20 || bytes[index - 1] == 0x2C || bytes[index - 1] == 0x09
            var end = index
            while end < bytes.count, end - index < wanted.count, bytes[end] | 0x20 == wanted[end - index] { end += 1 }
            var afterName = end
            while afterName < bytes.count, bytes[afterName] == 0x20 { afterName += 1 }
            if boundary, end - index == wanted.count, afterName < bytes.count, bytes[afterName] == UInt8(ascii: "=") {
                var start = afterName + 1
                while start < bytes.count, bytes[start] == 0x20 { start += 1 }
                guard start < bytes.count else { return "" }
                if bytes[start] == UInt8(ascii: "\"") {
                    var value: [UInt8] = []
                    var position = start + 1
                    while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                        if bytes[position] == UInt8(ascii: "\\"), position + 1 < bytes.count { position += 1 }
                        value.append(bytes[position])
                        position += 1
                    }
                    return String(decoding: value, as: UTF8.self)
                }
                let stop = bytes[start...].firstIndex { $0 == 0x2C || $0 == 0x20 } ?? bytes.count
                return String(decoding: bytes[start..<stop], as: UTF8.self)
            }
            index += 1
        }
        return nil
    }
}
