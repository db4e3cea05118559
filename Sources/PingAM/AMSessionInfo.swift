import PingBase
import PingHTTP
import PingOAuth

/// How long AM keeps a session: `POST …/sessions?_action=getSessionInfo` with the session in the header
/// named after the cookie (AM 7 and later, `Accept-API-Version: resource=4.0`), whose answer names
/// `maxSessionExpirationTime` (the session's end, however busy it is) and `maxIdleExpirationTime` (its end
/// if unused from now), as RFC 3339 date-times
/// (https://docs.pingidentity.com/pingam/8/am-sessions/managing-sessions-REST.html); asking does not reset the
/// idle timer.
public struct AMSessionTimes: Sendable, Equatable {
    /// Seconds since 1970 when AM ends the session at the latest.
    public var maxSessionExpiry: Double
    /// Seconds since 1970 when AM ends the session if it is not used before.
    public var maxIdleExpiry: Double?

    public init(maxSessionExpiry: Double, maxIdleExpiry: Double?) {
        self.maxSessionExpiry = maxSessionExpiry
        self.maxIdleExpiry = maxIdleExpiry
    }
}

extension AMServerInfo {
    public static func sessionInfoRequest(_ realm: AMRealm, cookieName: AMCookieName, session: SSOToken) -> HTTPRequest {
        sessionsAction(realm.sessionInfoURL, version: "resource=4.0, protocol=1.0", cookieName: cookieName, session: session)
    }

    /// The session's times, or nil when AM did not answer with them (an older AM, a refused request, a
    /// time that is not an RFC 3339 date-time): the session's length is then unknown, nothing else.
    public static func sessionTimes(_ response: HTTPResponse) -> AMSessionTimes? {
        guard response.status == 200, let object = response.jsonObject,
            let text = object["maxSessionExpirationTime"]?.stringValue, let maxSession = parseRFC3339(text)
        else { return nil }
        let idle = object["maxIdleExpirationTime"]?.stringValue.flatMap(parseRFC3339)
        return AMSessionTimes(maxSessionExpiry: maxSession, maxIdleExpiry: idle)
    }
}
