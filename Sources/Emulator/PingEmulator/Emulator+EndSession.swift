import EmulatorHTTP
import Foundation

extension Emulator {
    // MARK: End session (RP-initiated logout)

    /// PingOne `/as/signoff`, PingFederate `/idp/init_logout.openid`, PingAM `/connect/endSession`: the
    /// `id_token_hint` is checked here, the rest is the layout's (`VendorLayout.signOff`).
    func endSession(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "POST" else { return methodNotAllowed() }
        let params = request.method == "POST" ? request.form : request.query
        if request.method == "POST", let pending = params["logout_request"] { return confirmLogout(pending) }
        var client = client(params["client_id"])
        if params["client_id"] != nil && client == nil { return signOffError("Unknown client_id.") }
        var sid: String?
        if let hint = params["id_token_hint"] {
            // The hint must be an ID token this server signed for this client (signature, iss, aud).
            let claims = key.verify(hint)
            let issued = claims?["iss"] == .string(issuer) ? state.withLock({ $0.idTokens[hint] }) : nil
            if let issued {
                if let client, client.clientID != issued.clientID {
                    return signOffError("id_token_hint was issued to another client.")
                }
                client = client ?? self.client(issued.clientID)
                sid = issued.sid
            } else if !vendor.ignoresForeignIDTokenHint {
                return signOffError("id_token_hint was not issued by this server.")
            }
        }
        let signOff = SignOffRequest(
            client: client, sid: sid, postLogoutRedirectURI: params["post_logout_redirect_uri"], state: params["state"])
        return vendor.signOff(signOff, on: self)
    }

    /// Keeps the sign-off until the person confirms it, and shows the confirmation form.
    func askToConfirmSignOff(_ pending: PendingLogout) -> HTTPResponse {
        let id = Crypto.randomToken(16)
        state.withLock { $0.pendingLogouts[id] = pending }
        return logoutConfirmation(id)
    }

    /// The confirmation form was submitted: end the session, then redirect or show the signed-out page.
    func confirmLogout(_ id: String) -> HTTPResponse {
        guard let pending = state.withLock({ $0.pendingLogouts.removeValue(forKey: id) }) else {
            return signOffError("Unknown or expired sign-off request.")
        }
        return signedOff(sid: pending.sid, redirectURI: pending.redirectURI, state: pending.state)
    }

    /// Ends `sid` (if any), then redirects to `redirectURI` with `state`, or shows the signed-out page
    /// (`id="emulator-signed-out"`, status 200).
    func signedOff(sid: String?, redirectURI: String?, state stateValue: String?) -> HTTPResponse {
        if let sid { state.withLock { $0.endedSessions.append(sid) } }
        guard let redirectURI else {
            return .html(
                HTML.page(title: "Signed out", body: "<h1 id=\"emulator-signed-out\">You have been signed out.</h1>"))
        }
        return .redirect(FormEncoding.append(stateValue.map { [("state", $0)] } ?? [], to: redirectURI))
    }

    /// The error page that ends a sign-off without redirecting (`id="emulator-signoff-error"`, status 400).
    func signOffError(_ message: String) -> HTTPResponse {
        .html(
            HTML.page(
                title: "Sign-off error",
                body: "<h1 id=\"emulator-signoff-error\">Sign-off error</h1>\n<p>\(HTML.escape(message))</p>"),
            status: 400)
    }

    /// PingFederate's "are you sure" page: a form (`id="emulator-logout-confirm"`) that posts back here.
    func logoutConfirmation(_ id: String) -> HTTPResponse {
        let action = url(for: .endSession) ?? ""
        let body = """
            <h1>Sign off?</h1>
            <p>Do you want to sign off?</p>
            <form id="emulator-logout-confirm" method="post" action="\(HTML.escape(action))">
            <input type="hidden" name="logout_request" value="\(HTML.escape(id))">
            <button type="submit">Sign off</button>
            </form>
            """
        return .html(HTML.page(title: "Sign off", body: body))
    }
}
