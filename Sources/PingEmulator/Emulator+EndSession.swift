import Foundation

extension Emulator {
    // MARK: End session

    func endSession(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "POST" else { return methodNotAllowed() }
        let params = request.method == "POST" ? request.form : request.query
        func errorPage(_ message: String) -> HTTPResponse {
            .html(
                HTML.page(title: "Sign-off error", body: "<h1>Sign-off error</h1>\n<p>\(HTML.escape(message))</p>"),
                status: 400)
        }
        var client = client(params["client_id"])
        if params["client_id"] != nil && client == nil { return errorPage("Unknown client_id.") }
        var sid: String?
        if let hint = params["id_token_hint"] {
            guard let issued = state.withLock({ $0.idTokens[hint] }) else {
                return errorPage("id_token_hint was not issued by this server.")
            }
            if let client, client.clientID != issued.clientID {
                return errorPage("id_token_hint was issued to another client.")
            }
            client = client ?? self.client(issued.clientID)
            sid = issued.sid
        }
        if let uri = params["post_logout_redirect_uri"] {
            guard let client,
                Self.redirectURI(uri, matchesAnyOf: client.postLogoutRedirectURIs, exactPort: configuration.exactRedirectPorts)
            else {
                return errorPage("post_logout_redirect_uri is not registered for this client.")
            }
            if let sid { state.withLock { $0.endedSessions.append(sid) } }
            let pairs = params["state"].map { [("state", $0)] } ?? []
            return .redirect(FormEncoding.append(pairs, to: uri))
        }
        if let sid { state.withLock { $0.endedSessions.append(sid) } }
        return .html(HTML.page(title: "Signed out", body: "<h1>You have been signed out.</h1>"))
    }
}
