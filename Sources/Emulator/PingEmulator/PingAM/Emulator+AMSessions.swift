import EmulatorHTTP
import Foundation

/// PingAM's server information, SSO sessions and their sign-off, and what tests can see and do of journeys.
extension Emulator {
    /// `GET /json/serverinfo/*` (`Accept-API-Version: resource=1.1`): the session cookie's name among the
    /// server's public settings (https://docs.pingidentity.com/pingoneaic/am-reference/rest-api-serverinfo.html).
    func serverInfo(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" else { return Self.amError(405, "Method Not Allowed", "Method not allowed") }
        if let refusal = Self.checkAPIVersion(request, accepting: ["1.0", "1.1"]) { return refusal }
        return .json([
            "cookieName": .string(configuration.journeys.cookieName), "domains": [], "protectedUserAttributes": [],
            "secureCookie": .bool(baseURL.hasPrefix("https:")), "cookieHttpOnly": true, "cookieSameSite": "Lax",
            "forgotPassword": "false", "forgotUsername": "false", "kbaEnabled": "false", "selfRegistration": "false",
            "lang": "en-US", "successfulUserRegistrationDestination": "default", "socialImplementations": [],
            "referralsEnabled": "false", "realm": "/", "xuiUserSessionValidationEnabled": true,
            "zeroPageLogin": ["enabled": false, "refererWhitelist": [], "allowedWithoutReferer": true],
        ])
    }

    /// `POST /json/realms/root/realms/{realm}/sessions?_action=logout` with the session in the header named
    /// after the cookie (or the cookie itself): the session ends
    /// (https://docs.pingidentity.com/pingoneaic/am-authentication/rest-logout.html). `_action=validate`
    /// says whether a session is still good; `_action=getSessionInfo` (resource 4.0 and later) names the
    /// session's user and times, RFC 3339, without resetting its idle timer.
    func sessions(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "POST" else { return Self.amError(405, "Method Not Allowed", "Method not allowed") }
        if let refusal = Self.checkAPIVersion(request, accepting: ["2.0", "2.1", "3.0", "3.1", "4.0"]) { return refusal }
        let action = request.query["_action"] ?? ""
        let bodyToken = EmulatorJSON.parse(Data(request.body))?["tokenId"]?.stringValue
        let token = presentedSession(request) ?? (action == "validate" ? bodyToken : nil)
        switch action {
        case "logout":
            guard let token, endSession(token) else { return Self.amError(401, "Unauthorized", "Access Denied") }
            return .json(["result": "Successfully logged out"])
        case "validate":
            guard let token, let session = activeSession(token) else { return .json(["valid": false]) }
            return .json([
                "valid": true, "uid": .string(session.user.username), "realm": .string("/" + configuration.realm),
            ])
        case "getSessionInfo":
            if let refusal = Self.checkAPIVersion(request, accepting: ["4.0"]) { return refusal }
            guard let token = presentedSession(request), let session = activeSession(token) else {
                return Self.amError(401, "Unauthorized", "Access Denied")
            }
            return .json([
                "username": .string(session.user.username), "realm": .string("/" + configuration.realm),
                "universalId": .string("id=\(session.user.username),ou=user,o=\(configuration.realm),ou=services,ou=am-config"),
                "latestAccessTime": .string(Self.rfc3339(session.authTime)),
                "maxIdleExpirationTime": .string(Self.rfc3339(min(now() + 1800, session.expiresAt))),
                "maxSessionExpirationTime": .string(Self.rfc3339(session.expiresAt)), "properties": ["AMCtxId": "emulator"],
            ])
        default:
            return Self.amError(400, "Bad Request", "Action '\(action)' not implemented for this resource")
        }
    }

    /// `2026-12-05T18:04:00Z`, as AM writes its session times.
    static func rfc3339(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: seconds.rounded(.down)))
    }

    /// The `tokenId` a request carries: in the header named after the cookie, else in `Cookie`.
    func presentedSession(_ request: HTTPRequest) -> String? {
        let name = configuration.journeys.cookieName
        if let header = request.header(name), !header.isEmpty { return header }
        for pair in (request.header("cookie") ?? "").split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0] == name, !parts[1].isEmpty { return parts[1] }
        }
        return nil
    }

    /// The session behind `tokenId` while it is neither ended nor expired.
    func activeSession(_ tokenID: String) -> AMSession? {
        let now = self.now()
        guard let session = state.withLock({ $0.amSessions[tokenID] }), !session.ended, now < session.expiresAt else { return nil }
        return session
    }

    private func endSession(_ tokenID: String) -> Bool {
        guard activeSession(tokenID) != nil else { return false }
        state.withLock { $0.amSessions[tokenID]?.ended = true }
        return true
    }

    // MARK: Inspection and control

    /// PingAM's base (`http://127.0.0.1:<port>/am`) in the PingAM layout, else nil.
    public var amBaseURL: String? { vendor.servesJourneys ? baseURL + "/am" : nil }

    /// Suspended journeys not yet resumed, as the e-mail would carry them.
    public var suspendedJourneys: [SuspendedJourneyRecord] {
        let realm = configuration.realm
        let base = baseURL
        return state.withLock { $0.suspendedJourneys }.map { id, suspended in
            SuspendedJourneyRecord(
                suspendedId: id, tree: suspended.run.tree, username: suspended.run.user?.username,
                resumeURL: base + "/am/XUI/?realm=%2F\(realm)&suspendedId=\(id)", expiresAt: suspended.expiresAt)
        }.sorted { $0.expiresAt < $1.expiresAt }
    }

    /// Every SSO session a journey ended with, ended or not.
    public var journeySessions: [JourneySessionRecord] {
        state.withLock { $0.amSessions }.map { token, session in
            JourneySessionRecord(tokenId: token, username: session.user.username, expiresAt: session.expiresAt, ended: session.ended)
        }.sorted { $0.expiresAt < $1.expiresAt }
    }

    /// Approves (or denies) the push waits in progress, of `username` only when given, as the person on
    /// the phone would. Returns how many it decided.
    @discardableResult
    public func decidePush(username: String? = nil, approve: Bool) -> Int {
        state.withLock { s in
            var decided = 0
            for (id, run) in s.journeys {
                guard case .push = run.pending.first, run.suspendedMessage == nil,
                    username == nil || run.user?.username == username
                else { continue }
                s.journeys[id]?.pushDecision = approve
                decided += 1
            }
            return decided
        }
    }

    /// `/__emulator/journeys/…` control requests; nil when the path is not one of them.
    func handleJourneyControl(_ request: HTTPRequest) -> HTTPResponse? {
        switch (request.method, request.path) {
        case ("GET", "/__emulator/journeys/suspended"):
            return Self.encodeJSON(suspendedJourneys)
        case ("GET", "/__emulator/journeys/sessions"):
            return Self.encodeJSON(journeySessions)
        case ("POST", "/__emulator/journeys/push"):
            let form = request.form
            guard let decision = form["decision"], decision == "approve" || decision == "deny" else {
                return .oauthError("invalid_request", "decision must be approve or deny")
            }
            let decided = decidePush(username: form["username"], approve: decision == "approve")
            return .json(["ok": true, "decided": .number(Double(decided))])
        default:
            return nil
        }
    }
}
