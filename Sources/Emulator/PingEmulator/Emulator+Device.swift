import EmulatorHTTP
import Foundation

extension Emulator {
    // MARK: Device authorization (RFC 8628)

    static let deviceGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// §3.1–3.2: a device code, a user code, where to enter it, how long and how often.
    func deviceAuthorization(_ request: HTTPRequest) -> HTTPResponse {
        let (form, client): ([String: String], RegisteredClient)
        switch authenticatedPost(request, formRequired: false) {
        case .refused(let response): return response
        case .accepted(let f, let c): (form, client) = (f, c)
        }
        let scopes = (form["scope"] ?? "openid").scopeList
        if let bad = scopes.first(where: { !client.allowedScopes.contains($0) }) {
            return .oauthError("invalid_scope", "scope \(bad) is not allowed for this client")
        }
        let deviceCode = Crypto.randomToken()
        // RFC 8628 §6.1: a short code from an alphabet without vowels or look-alikes.
        let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
        let letters = (0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] }
        let userCode = String(letters[0..<4]) + "-" + String(letters[4...])
        let record = DeviceRecord(
            clientID: client.clientID, scopes: scopes, userCode: userCode,
            expiresAt: now() + Double(configuration.deviceCodeLifetime),
            status: configuration.deviceRequiresApproval ? .pending : .approved)
        state.withLock { $0.devices[deviceCode] = record }
        let verification = url(for: .deviceVerification) ?? baseURL
        return .json([
            "device_code": .string(deviceCode), "user_code": .string(userCode),
            "verification_uri": .string(verification),
            "verification_uri_complete": .string(FormEncoding.append([("user_code", userCode)], to: verification)),
            "expires_in": .number(Double(configuration.deviceCodeLifetime)),
            "interval": .number(configuration.deviceInterval),
        ])
    }

    /// §3.4–3.5: a poll with the device code.
    func deviceCodeGrant(form: [String: String], client: RegisteredClient, jkt: String? = nil) -> HTTPResponse {
        guard let deviceCode = form["device_code"], !deviceCode.isEmpty else {
            return .oauthError("invalid_request", "device_code is required")
        }
        let now = self.now()
        let check = state.withLock { s -> GrantCheck<DeviceRecord> in
            guard var record = s.devices[deviceCode] else { return .error("invalid_grant", "unknown device code") }
            guard record.clientID == client.clientID else { return .error("invalid_grant", "device code of another client") }
            if !s.faults.deviceErrors.isEmpty {
                return .error(s.faults.deviceErrors.removeFirst(), "injected fault")
            }
            guard !record.used else { return .error("invalid_grant", "device code was already used") }
            guard now < record.expiresAt else { return .error("expired_token", "the device code expired") }
            switch record.status {
            case .pending: return .error("authorization_pending", "the user has not approved yet")
            case .denied: return .error("access_denied", "the user declined")
            case .approved:
                record.used = true
                s.devices[deviceCode] = record
                return .ok(record)
            }
        }
        return check.response { record in
            let grant = Grant(
                id: Crypto.randomToken(16), clientID: record.clientID, user: configuration.users[0], scopes: record.scopes,
                authTime: Int(now) - (configuration.authTimeAge ?? 0), sid: UUID().uuidString.lowercased(), acr: configuration.acr)
            // RFC 8628 defines no ID token: `deviceGrantIDToken` false answers without one (later refreshes
            // of the grant still bring one, as some providers do).
            return .json(
                .object(
                    issueTokens(grant: grant, scopes: record.scopes, nonce: nil, idToken: configuration.deviceGrantIDToken, jkt: jkt).body))
        }
    }

    /// §3.3: the verification page. GET shows a sign-in form (the same `id="emulator-signin"` as
    /// authorize, so the browser double fills it in) for the `user_code` in the query; POST with a
    /// user's credentials and the code (`flow`) approves it.
    func deviceVerification(_ request: HTTPRequest) -> HTTPResponse {
        let params = request.method == "POST" ? request.form : request.query
        let userCode = params["flow"] ?? params["user_code"] ?? ""
        func page(_ title: String, _ body: String, status: Int = 200) -> HTTPResponse {
            .html(HTML.page(title: title, body: body), status: status)
        }
        let pending = state.withLock { s in s.devices.values.contains { $0.userCode == userCode && $0.status == .pending } }
        guard pending else {
            return page(
                "Device sign-in", "<h1>Enter the code shown on your device</h1><p>No pending request has that code.</p>", status: 400)
        }
        if request.method == "POST" {
            guard configuration.users.contains(where: { $0.username == params["username"] && $0.password == params["password"] }) else {
                return page("Device sign-in", "<h1>Invalid username or password.</h1>", status: 400)
            }
            approveDevice(userCode: userCode)
            return page("Device approved", "<h1>Device approved</h1><p>You can return to your device.</p>")
        }
        let action = HTML.escape(url(for: .deviceVerification) ?? "")
        return page(
            "Device sign-in",
            """
            <h1>Sign in to approve code \(HTML.escape(userCode))</h1>
            <form id="emulator-signin" method="post" action="\(action)">
            <input type="hidden" name="flow" value="\(HTML.escape(userCode))">
            <label>Username <input name="username"></label>
            <label>Password <input type="password" name="password"></label>
            <button type="submit">Approve</button>
            </form>
            """)
    }

    /// Approves (or declines) the pending device authorization with this user code; false when none.
    @discardableResult
    public func approveDevice(userCode: String, approve: Bool = true) -> Bool {
        state.withLock { s in
            guard let code = s.devices.first(where: { $0.value.userCode == userCode && $0.value.status == .pending })?.key
            else { return false }
            s.devices[code]?.status = approve ? .approved : .denied
            return true
        }
    }
}
