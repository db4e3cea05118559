import PingBase
import PingCrypto
import PingPlatform

/// The SSO session a finished journey hands back (`tokenId`): a bearer secret for the whole realm. It
/// travels only as a cookie or in the header named after the cookie, so its gate is the cookie value's
/// grammar ([RFC 6265 §4.1.1](https://www.rfc-editor.org/rfc/rfc6265#section-4.1.1) `cookie-octet`):
/// nothing that could end a header, split a cookie list or act on a terminal. `description` never shows it.
public struct SSOToken: ProviderToken {
    public let value: String
    public init(unchecked value: String) { self.value = value }
    public static let field = "tokenId"
    public static let rule = "AM session token (RFC 6265 cookie-octets)"

    public static func matchesGrammar(_ bytes: [UInt8]) -> Bool {
        bytes.count <= 8192 && bytes.allSatisfy(isCookieOctet)
    }

    /// `%x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E`: printable ASCII but space, `"`, `,`, `;` and `\`.
    static func isCookieOctet(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte) && byte != 0x22 && byte != 0x2C && byte != 0x3B && byte != 0x5C
    }
}

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
        HTTPRequest(
            method: .post, url: realm.sessionLogoutURL,
            headers: [
                ("Content-Type", "application/json"), ("Accept", "application/json"),
                ("Accept-API-Version", "resource=3.1, protocol=1.0"), (cookieName.value, session.value),
            ],
            body: Array("{}".utf8))
    }

    /// Whether AM ended the session: 200, or 401 when it had already ended (nothing left to end).
    public static func logoutSucceeded(_ response: HTTPResponse) -> Bool {
        response.status == 200 || response.status == 401
    }
}
