import PingHTTP
import PingOAuth

/// The name of AM's session cookie, from `/json/serverinfo/*` or `--cookie-name`: `iPlanetDirectoryPro`
/// on a self-hosted AM, a random name per tenant on Advanced Identity Cloud. It becomes a cookie name
/// and a header name, so its gate is RFC 6265's `cookie-name`, an RFC 9110 `token`.
public struct AMCookieName: Sendable, Equatable, CustomStringConvertible {
    public let value: String

    public init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= 256, MediaType.isToken(text[...]) else { return nil }
        value = text
    }

    public var description: String { value }
}

/// Failures of AM's REST endpoints outside the journey itself (server information, sessions).
public enum AMEndpointError: Error, Sendable, Equatable {
    case httpStatus(Int, contentType: String?)
    case notJSON(contentType: String?)
    /// `cookieName` absent, or not a cookie name.
    case cookieName

    public var message: String {
        switch self {
        case .httpStatus(let status, let contentType): EndpointAnswer.status("AM's server information", status, contentType: contentType)
        case .notJSON(let contentType): EndpointAnswer.notJSON("AM's server information", contentType: contentType)
        case .cookieName: "AM's server information has no usable cookieName (an RFC 6265 cookie name)"
        }
    }
}

/// AM's server information and session endpoints (`/json/serverinfo/*`, `/json/…/sessions`).
public enum AMServerInfo {
    /// `GET {base}/json/serverinfo/*` with the API version the SDKs send.
    public static func request(_ realm: AMRealm) -> HTTPRequest {
        HTTPRequest(
            method: .get, url: realm.serverInfoURL,
            headers: [("Accept", "application/json"), ("Accept-API-Version", "resource=1.1")])
    }

    /// The session cookie's name from the server information, through its gate.
    public static func process(_ response: HTTPResponse) throws(AMEndpointError) -> AMCookieName {
        guard response.status == 200 else { throw .httpStatus(response.status, contentType: response.contentType) }
        guard let object = response.jsonObject else { throw .notJSON(contentType: response.contentType) }
        guard let text = object["cookieName"]?.stringValue, let name = AMCookieName(text) else { throw .cookieName }
        return name
    }

    /// `POST …/sessions?_action=logout` with the session in the header named after the cookie: ends it.
    public static func logoutRequest(_ realm: AMRealm, cookieName: AMCookieName, session: SSOToken) -> HTTPRequest {
        sessionsAction(realm.sessionLogoutURL, version: "resource=3.1, protocol=1.0", cookieName: cookieName, session: session)
    }

    /// `POST` to an action of AM's sessions endpoint about the session itself: the session only in the
    /// header named after the cookie, an empty JSON body.
    static func sessionsAction(_ url: String, version: String, cookieName: AMCookieName, session: SSOToken) -> HTTPRequest {
        HTTPRequest(
            method: .post, url: url,
            headers: [
                ("Content-Type", "application/json"), ("Accept", "application/json"), ("Accept-API-Version", version),
                (cookieName.value, session.value),
            ],
            body: Array("{}".utf8))
    }

    /// Whether AM ended the session: 200, or 401 when it had already ended (nothing left to end).
    public static func logoutSucceeded(_ response: HTTPResponse) -> Bool {
        response.status == 200 || response.status == 401
    }
}
