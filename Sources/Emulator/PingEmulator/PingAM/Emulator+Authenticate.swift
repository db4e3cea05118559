import EmulatorHTTP
import Foundation

/// PingAM's `/json/realms/root/realms/{realm}/authenticate`: a journey walked step by step
/// (https://docs.pingidentity.com/pingoneaic/am-authentication/login-using-rest.html).
///
/// An empty POST starts the tree `authIndexValue` (`authIndexType=service`); the step posted back with its
/// inputs filled continues it; `?suspendedId=` resumes a suspended one. A step carries an `authId`: an HS256
/// JWT signed with the emulator's key, good for one post and until the authentication session's end.
extension Emulator {
    static let loginFailure = "Login failure"
    /// The message the SDKs recognise a suspended journey's expiry by (ForgeRock Android SDK's
    /// `AuthServiceResponseHandler`).
    static let suspendedExpiredMessage =
        "org.forgerock.openam.auth.nodes.framework.token.SuspendedAuthSessionException: Token not found. It may have expired."

    func authenticate(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "POST" else { return Self.amError(405, "Method Not Allowed", "Method not allowed") }
        if let refusal = Self.checkAPIVersion(request, accepting: ["2.0", "2.1"]) { return refusal }
        let text = String(decoding: request.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if let suspendedID = request.query["suspendedId"] { return resume(suspendedID) }
        if text.isEmpty || text == "{}" { return start(request.query) }
        guard case .object(let step)? = EmulatorJSON.parse(Data(request.body)) else {
            return Self.amError(400, "Bad Request", "The request body is not a JSON object")
        }
        return proceed(step, request)
    }

    /// PingAM's error body: `{"code","reason","message"}` and, where there is one, `detail`.
    static func amError(_ code: Int, _ reason: String, _ message: String, detail: [String: EmulatorJSON]? = nil) -> HTTPResponse {
        var body: [String: EmulatorJSON] = ["code": .number(Double(code)), "reason": .string(reason), "message": .string(message)]
        if let detail { body["detail"] = .object(detail) }
        return .json(.object(body), status: code)
    }

    static var loginFailed: HTTPResponse { amError(401, "Unauthorized", loginFailure, detail: ["failureUrl": ""]) }

    /// The authentication session ended (errorCode 110).
    static var timedOut: HTTPResponse { amError(401, "Unauthorized", "Session has timed out", detail: ["errorCode": "110"]) }

    /// `Accept-API-Version: resource=X, protocol=1.0`: an absent header takes the newest version, as
    /// PingAM does; a resource version the endpoint does not have is refused.
    static func checkAPIVersion(_ request: HTTPRequest, accepting versions: Set<String>) -> HTTPResponse? {
        guard let header = request.header("accept-api-version") else { return nil }
        var fields: [String: String] = [:]
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2 { fields[pair[0].lowercased()] = pair[1] }
        }
        if let resource = fields["resource"], !versions.contains(resource) {
            return amError(404, "Not Found", "Accept-API-Version: Requested version \"\(resource)\" does not match any routes.")
        }
        if let proto = fields["protocol"], proto != "1.0" {
            return amError(400, "Bad Request", "Unsupported major version: \(proto)")
        }
        return nil
    }

    private func start(_ query: [String: String]) -> HTTPResponse {
        let settings = configuration.journeys
        let name = query["authIndexValue"] ?? "Login"
        guard query["authIndexType"] ?? "service" == "service", let tree = settings.tree(named: name) else {
            return Self.amError(400, "Bad Request", "No configuration found")
        }
        let run = JourneyRun(
            id: Crypto.randomToken(16), tree: tree.name, pending: tree.nodes,
            expiresAt: now() + Double(settings.authIDLifetime))
        return present(run)
    }

    private func resume(_ suspendedID: String) -> HTTPResponse {
        let now = self.now()
        let lifetime = Double(configuration.journeys.authIDLifetime)
        let found = state.withLock { s -> JourneyRun? in
            guard let suspended = s.suspendedJourneys.removeValue(forKey: suspendedID), now < suspended.expiresAt else { return nil }
            s.journeys[suspended.run.id] = nil
            return suspended.run
        }
        guard var run = found else { return Self.amError(401, "Unauthorized", Self.suspendedExpiredMessage) }
        run.suspendedMessage = nil
        run.expiresAt = now + lifetime
        return present(run)
    }

    private func proceed(_ step: [String: EmulatorJSON], _ request: HTTPRequest) -> HTTPResponse {
        let origin = request.header("origin")
        guard let authID = step["authId"]?.stringValue else { return Self.amError(400, "Bad Request", "Invalid authId") }
        guard let claims = verifyAuthID(authID) else { return Self.amError(400, "Bad Request", "AuthId JWT Signature not valid") }
        let now = self.now()
        guard let exp = claims["exp"]?.numberValue, now < exp, let id = claims["otk"]?.stringValue,
            var run = state.withLock({ $0.journeys[id] }), run.authID == authID
        else { return Self.timedOut }
        if run.suspendedMessage != nil { return present(run) }
        guard let node = run.pending.first else { return Self.timedOut }
        let inputs = AMCallback.inputs(of: step)
        let outcome =
            evaluateSocialNode(node, inputs, request, run: run)
            ?? evaluateWebAuthnNode(node, inputs, run: &run, origin: origin, now: now)
            ?? evaluateDeviceNode(node, inputs, run: run, now: now)
            ?? node.evaluate(
                inputs, run: run, users: configuration.users, now: now, pushApproveAfterPolls: configuration.journeys.pushApproveAfterPolls)
        switch outcome {
        case .fail:
            state.withLock { _ = $0.journeys.removeValue(forKey: run.id) }
            return Self.loginFailed
        case .again(let failedPolicies):
            run.failedPolicies = failedPolicies
            run.polls += 1
            return present(run)
        case .advance(let user, let then):
            run.pending.removeFirst()
            run.pending.insert(contentsOf: then, at: 0)
            if let user { run.user = user }
            run.polls = 0
            run.pushDecision = nil
            run.failedPolicies = []
            return present(run)
        }
    }

    /// Shows the run's current node (with a new `authId`), suspends it at an Email Suspend Node, or ends
    /// the journey with a session when no node is left.
    private func present(_ run: JourneyRun) -> HTTPResponse {
        var run = run
        if run.suspendedMessage == nil {
            guard let node = run.pending.first else { return succeed(run) }
            if case .suspend(let message) = node {
                run.pending.removeFirst()
                run.suspendedMessage = message
                suspend(run)
            }
        }
        if run.suspendedMessage == nil { prepareSocialNode(&run) }
        let shown = run.suspendedMessage.map { JourneyNode.suspend(message: $0) } ?? run.pending[0]
        prepareDeviceNode(shown, &run)
        run.authID = signAuthID(run)
        let stored = run
        state.withLock { $0.journeys[stored.id] = stored }
        let callbacks = shown.callbacks(failedPolicies: run.failedPolicies, run: run) + socialCallbacks(shown, run: run)
        return .json(
            ["authId": .string(run.authID), "callbacks": .array(callbacks)], headers: run.suspendedMessage == nil ? socialHeaders(run) : [])
    }

    private func suspend(_ run: JourneyRun) {
        let suspendedID = Crypto.randomToken(20)
        let expiresAt = now() + Double(configuration.journeys.suspendedLifetime)
        state.withLock { $0.suspendedJourneys[suspendedID] = SuspendedJourney(run: run, expiresAt: expiresAt) }
    }

    private func succeed(_ run: JourneyRun) -> HTTPResponse {
        state.withLock { _ = $0.journeys.removeValue(forKey: run.id) }
        guard let user = run.user else { return Self.loginFailed }
        let now = self.now()
        let tokenID = Crypto.randomToken(32) + ".*AAJTSQACMDE.*"
        let session = AMSession(user: user, authTime: now, expiresAt: now + Double(configuration.journeys.sessionLifetime))
        state.withLock { $0.amSessions[tokenID] = session }
        let realm = "/" + configuration.realm
        return .json(
            ["tokenId": .string(tokenID), "successUrl": .string("/enduser/?realm=\(realm)"), "realm": .string(realm)],
            headers: [("Set-Cookie", "\(configuration.journeys.cookieName)=\(tokenID); Path=/; HttpOnly; SameSite=Lax")])
    }

    // MARK: authId

    private func signAuthID(_ run: JourneyRun) -> String {
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"HS256"}"#.utf8))
        let claims: EmulatorJSON = [
            "otk": .string(run.id), "nonce": .string(Crypto.randomToken(12)), "realm": .string("/" + configuration.realm),
            "authIndexType": "service", "authIndexValue": .string(run.tree), "exp": .number(run.expiresAt.rounded(.down)),
        ]
        let input = header + "." + Base64URL.encode(Array(claims.serialized.utf8))
        return input + "." + Base64URL.encode(hmac(digest: 0, key: journeyKey, message: Array(input.utf8)))
    }

    /// The claims of an `authId` this emulator signed, or nil.
    private func verifyAuthID(_ authID: String) -> EmulatorJSON? {
        let parts = authID.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let signature = Base64URL.decode(String(parts[2])),
            signature == hmac(digest: 0, key: journeyKey, message: Array((parts[0] + "." + parts[1]).utf8)),
            let payload = Base64URL.decode(String(parts[1]))
        else { return nil }
        return EmulatorJSON.parse(Data(payload))
    }
}
