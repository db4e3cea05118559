import EmulatorHTTP
import Foundation

extension Emulator {
    // MARK: Authorize

    enum AuthorizeValidation {
        case errorPage(String)
        case redirectError(uri: String, state: String?, error: String, description: String)
        case valid(AuthorizeRequest)
    }

    static let standardAuthorizeParameters: Set<String> = [
        "client_id", "redirect_uri", "response_type", "scope", "state", "nonce", "code_challenge",
        "code_challenge_method",
    ]

    func authorize(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "POST" else { return methodNotAllowed() }
        let params = request.method == "POST" ? request.form : request.query
        if request.method == "POST", let flow = params["flow"] {
            return completeSignIn(flowID: flow, params: params)
        }
        if vendor.servesJourneys, let token = presentedSession(request) {
            return authorizeWithSession(request, params: params, token: token)
        }
        let authorizeRequest: AuthorizeRequest
        switch checkedAuthorizeRequest(params) {
        case .refused(let response): return response
        case .valid(let checked): authorizeRequest = checked
        }
        switch configuration.signInMode {
        case .approve:
            return issueCode(for: authorizeRequest, user: configuration.users[0])
        case .form:
            if authorizeRequest.extras["prompt"] == "none" {
                return redirectError(
                    uri: authorizeRequest.redirectURI, state: authorizeRequest.state,
                    error: "login_required", description: "the user is not signed in")
            }
            let flowID = Crypto.randomToken(16)
            state.withLock { $0.flows[flowID] = authorizeRequest }
            return signInForm(flowID: flowID, request: authorizeRequest, error: nil)
        }
    }

    enum AuthorizeCheck {
        case refused(HTTPResponse)
        case valid(AuthorizeRequest)
    }

    /// The request an `/authorize` call makes, with or without a session: a pushed one resolved
    /// (`request_uri`), a classic one refused where PAR is required, otherwise validated; or the error
    /// page or error redirect that answers it.
    func checkedAuthorizeRequest(_ params: [String: String]) -> AuthorizeCheck {
        let validation: AuthorizeValidation
        if let requestURI = params["request_uri"] {
            validation = resolvePushed(requestURI, clientID: params["client_id"])
        } else if configuration.pushedAuthorization == .required {
            validation = .errorPage("This client must use pushed authorization requests (RFC 9126).")
        } else {
            validation = validateAuthorize(params)
        }
        switch validation {
        case .errorPage(let message):
            return .refused(authorizationErrorPage(message))
        case .redirectError(let uri, let state, let error, let description):
            return .refused(redirectError(uri: uri, state: state, error: error, description: description))
        case .valid(let authorizeRequest):
            return .valid(authorizeRequest)
        }
    }

    func authorizationErrorPage(_ message: String) -> HTTPResponse {
        .html(
            HTML.page(title: "Authorization error", body: "<h1>Authorization error</h1>\n<p>\(HTML.escape(message))</p>"),
            status: 400)
    }

    func validateAuthorize(_ params: [String: String]) -> AuthorizeValidation {
        guard let client = client(params["client_id"]) else {
            return .errorPage("Unknown client_id.")
        }
        guard let redirectURI = params["redirect_uri"],
            Self.redirectURI(redirectURI, matchesAnyOf: client.redirectURIs, exactPort: configuration.exactRedirectPorts)
        else {
            return .errorPage("The redirect_uri is missing or not registered for this client.")
        }
        let state = params["state"]
        func fail(_ error: String, _ description: String) -> AuthorizeValidation {
            .redirectError(uri: redirectURI, state: state, error: error, description: description)
        }
        guard params["response_type"] == "code" else {
            return fail("unsupported_response_type", "response_type must be code")
        }
        guard let challenge = params["code_challenge"], !challenge.isEmpty else {
            return fail("invalid_request", "code_challenge is required (PKCE S256 required)")
        }
        guard params["code_challenge_method"] == "S256" else {
            return fail("invalid_request", "PKCE S256 required")
        }
        guard challenge.count == 43, Base64URL.isAlphabet(challenge) else {
            return fail("invalid_request", "code_challenge must be 43 base64url characters")
        }
        let scopes = (params["scope"] ?? "openid").scopeList
        if let bad = scopes.first(where: { !client.allowedScopes.contains($0) }) {
            return fail("invalid_scope", "scope \(bad) is not allowed for this client")
        }
        let extras = params.filter { !Self.standardAuthorizeParameters.contains($0.key) }
        return .valid(
            AuthorizeRequest(
                client: client, redirectURI: redirectURI, state: state, scopes: scopes,
                nonce: params["nonce"], challenge: challenge, extras: extras))
    }

    /// RFC 8252 §7.3: loopback redirect URIs match ignoring the port; everything else matches exactly.
    /// `exactPort`: the port must match too, as RFC 8252 lets some providers require (Glewlwyd, canaille).
    static func redirectURI(_ requested: String, matchesAnyOf registered: [String], exactPort: Bool = false) -> Bool {
        if registered.contains(requested) { return true }
        if exactPort { return false }
        func loopbackParts(_ uri: String) -> (host: String, path: String, query: String?)? {
            guard let c = URLComponents(string: uri), c.scheme?.lowercased() == "http", c.fragment == nil,
                let rawHost = c.host
            else { return nil }
            let host = rawHost.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            guard host == "127.0.0.1" || host == "::1" else { return nil }
            return (host, c.percentEncodedPath, c.percentEncodedQuery)
        }
        guard let wanted = loopbackParts(requested) else { return false }
        return registered.contains { candidate in
            guard let r = loopbackParts(candidate) else { return false }
            return r.host == wanted.host && r.path == wanted.path && r.query == wanted.query
        }
    }

    /// RFC 9207 `iss` in authorization responses: PingFederate's "Include Issuer in Authorization Response"
    /// is cleared by default
    /// (https://docs.pingidentity.com/pingfederate/latest/administrators_reference_guide/help_authorizationserversettingstasklet_oauthauthorizationserversettingsstate.html);
    /// PingOne and PingAM send it.
    var includesIssuerInAuthorizationResponse: Bool {
        configuration.authorizationResponseIssuer ?? vendor.sendsIssuerInAuthorizationResponse
    }

    func redirectError(uri: String, state: String?, error: String, description: String) -> HTTPResponse {
        var pairs = [("error", error), ("error_description", description)]
        if let state { pairs.append(("state", state)) }
        if includesIssuerInAuthorizationResponse { pairs.append(("iss", issuer)) }
        return .redirect(FormEncoding.append(pairs, to: uri))
    }

    func signInForm(flowID: String, request: AuthorizeRequest, error: String?) -> HTTPResponse {
        let action = url(for: .authorize) ?? ""
        let errorHTML = error.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>\n" } ?? ""
        let body = """
            <h1>Sign in</h1>
            <p>Application <code>\(HTML.escape(request.client.clientID))</code> requests: \
            \(HTML.escape(request.scopes.joined(separator: " ")))</p>
            \(errorHTML)<form id="emulator-signin" method="post" action="\(HTML.escape(action))">
            <input type="hidden" name="flow" value="\(HTML.escape(flowID))">
            <label>Username <input name="username" autocomplete="username"></label>
            <label>Password <input type="password" name="password" autocomplete="current-password"></label>
            <button type="submit">Sign in</button>
            </form>
            """
        return .html(HTML.page(title: "Sign in", body: body))
    }

    func completeSignIn(flowID: String, params: [String: String]) -> HTTPResponse {
        guard let pending = state.withLock({ $0.flows[flowID] }) else {
            return .html(
                HTML.page(title: "Sign-in error", body: "<h1>Unknown or expired sign-in request</h1>"),
                status: 400)
        }
        guard
            let user = configuration.users.first(where: {
                $0.username == params["username"] && $0.password == params["password"]
            })
        else {
            return signInForm(flowID: flowID, request: pending, error: "Invalid username or password.")
        }
        // Remove atomically so a double submit cannot mint two codes.
        guard state.withLock({ $0.flows.removeValue(forKey: flowID) }) != nil else {
            return .html(
                HTML.page(title: "Sign-in error", body: "<h1>Sign-in request already completed</h1>"),
                status: 400)
        }
        return issueCode(for: pending, user: user)
    }

    /// `authTime`: when the person signed in (a PingAM session's start); nil: now, less `authTimeAge`.
    func issueCode(for request: AuthorizeRequest, user: User, authTime: Int? = nil) -> HTTPResponse {
        let now = self.now()
        let code = Crypto.randomToken()
        // An old single sign-on session (`authTimeAge`) and the context the provider claims to have met.
        let grant = Grant(
            id: Crypto.randomToken(16), clientID: request.client.clientID, user: user,
            scopes: request.scopes, authTime: authTime ?? Int(now) - (configuration.authTimeAge ?? 0), sid: UUID().uuidString.lowercased(),
            acr: configuration.acr ?? request.extras["acr_values"]?.scopeList.first)
        let record = CodeRecord(
            grant: grant, redirectURI: request.redirectURI, nonce: request.nonce,
            challenge: request.challenge, extras: request.extras,
            expiresAt: now + Double(configuration.authorizationCodeLifetime))
        let overrides = state.withLock { s -> [String: String?] in
            s.codes[code] = record
            return s.faults.authorizationResponseOverrides
        }
        var pairs = [("code", code)]
        if let st = request.state { pairs.append(("state", st)) }
        if includesIssuerInAuthorizationResponse { pairs.append(("iss", issuer)) }
        for (name, value) in overrides.sorted(by: { $0.key < $1.key }) {
            if let value {
                if let i = pairs.firstIndex(where: { $0.0 == name }) { pairs[i].1 = value } else { pairs.append((name, value)) }
            } else {
                pairs.removeAll { $0.0 == name }
            }
        }
        return .redirect(FormEncoding.append(pairs, to: request.redirectURI))
    }
}
