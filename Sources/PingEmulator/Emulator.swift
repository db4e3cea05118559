import Foundation

public enum EmulatorError: Error, CustomStringConvertible {
    case sodiumUnavailable
    case noUsers

    public var description: String {
        switch self {
        case .sodiumUnavailable: return "libsodium could not be initialized"
        case .noUsers: return "the configuration needs at least one user"
        }
    }
}

// MARK: - Internal state

/// One authorization grant (a sign-in of a user for a client); shared by all tokens derived from it.
struct Grant: Sendable {
    let id: String
    let clientID: String
    let user: User
    let scopes: [String]
    let authTime: Int
    let sid: String
}

struct TokenRecord: Sendable {
    let token: String
    let isRefresh: Bool
    let grant: Grant
    let scopes: [String]
    let issuedAt: Double
    var expiresAt: Double
    var revoked = false
    /// Refresh tokens are single-use (rotation).
    var used = false
}

struct CodeRecord: Sendable {
    let grant: Grant
    let redirectURI: String
    let nonce: String?
    let challenge: String
    let extras: [String: String]
    let expiresAt: Double
    var used = false
    var issuedTokens: [String] = []
}

/// A validated authorization request (waiting for sign-in in `.form` mode).
struct AuthorizeRequest: Sendable {
    let client: RegisteredClient
    let redirectURI: String
    let state: String?
    let scopes: [String]
    let nonce: String?
    let challenge: String
    let extras: [String: String]
}

struct IssuedIDToken: Sendable {
    let clientID: String
    let sid: String
}

struct EmulatorState: Sendable {
    var faults = Faults()
    var accessTokenLifetime: Int
    var requests: [RecordedRequest] = []
    /// Requests per endpoint counted on arrival (before any delay), cleared with `requests`.
    var arrivals: [EndpointKind: Int] = [:]
    var nextSequence = 0
    var codes: [String: CodeRecord] = [:]
    var flows: [String: AuthorizeRequest] = [:]
    var tokens: [String: TokenRecord] = [:]
    var accessOrder: [String] = []
    var refreshOrder: [String] = []
    var idTokens: [String: IssuedIDToken] = [:]
    var endedSessions: [String] = []
}

// MARK: - Emulator

/// A PingOne / PingFederate look-alike authorization server on a loopback port.
///
/// Control endpoints (for the executable / demo; not recorded in `requests`):
/// - `GET /__emulator/requests`, `DELETE /__emulator/requests` (also clears the arrival counts)
/// - `GET /__emulator/arrivals` (`{"token": N, …}`: requests per endpoint counted on arrival)
/// - `GET|PUT /__emulator/faults` (JSON `Faults`)
/// - `PUT /__emulator/settings` with `{"accessTokenLifetime": N}`
/// - `POST /__emulator/expire-access-tokens`
/// - `POST /__emulator/introspect` (form `token=`, no client auth)
/// - `GET /__emulator/tokens` (`{"access":[…],"refresh":[…]}`)
///
/// All mutable state lives in one `Locked`; everything else is immutable, hence `Sendable`.
public final class Emulator: Sendable {
    public let configuration: EmulatorConfiguration
    public let port: UInt16
    /// `http://127.0.0.1:<port>`
    public let baseURL: String
    /// The exact issuer string.
    public let issuer: String

    private let server: HTTPServer
    private let key: SigningKey
    private let state: Locked<EmulatorState>
    /// Endpoint kind → path (the single source for routing and discovery).
    private let paths: [EndpointKind: String]
    private let routes: [String: EndpointKind]

    /// Binds the listening socket now; call `start()` to begin answering.
    public init(configuration: EmulatorConfiguration = .init()) throws {
        guard Crypto.initialize() else { throw EmulatorError.sodiumUnavailable }
        guard !configuration.users.isEmpty else { throw EmulatorError.noUsers }
        self.configuration = configuration
        server = try HTTPServer(port: configuration.port, readTimeout: configuration.readTimeout)
        port = server.port
        baseURL = "http://127.0.0.1:\(server.port)"
        key = SigningKey()
        state = Locked(EmulatorState(accessTokenLifetime: configuration.accessTokenLifetime))

        let paths: [EndpointKind: String]
        switch configuration.layout {
        case .pingOne:
            let root = "/\(configuration.environmentID)/as"
            issuer = baseURL + root
            paths = [
                .discovery: root + "/.well-known/openid-configuration",
                .authorize: root + "/authorize",
                .token: root + "/token",
                .userinfo: root + "/userinfo",
                .revoke: root + "/revoke",
                .introspect: root + "/introspect",
                .jwks: root + "/jwks",
                .endSession: root + "/signoff",
                .deviceAuthorization: root + "/device_authorization",
                .par: root + "/par",
            ]
        case .pingFederate:
            issuer = baseURL
            paths = [
                .discovery: "/.well-known/openid-configuration",
                .authorize: "/as/authorization.oauth2",
                .token: "/as/token.oauth2",
                .userinfo: "/idp/userinfo.openid",
                .revoke: "/as/revoke_token.oauth2",
                .introspect: "/as/introspect.oauth2",
                .jwks: "/pf/JWKS",
                .endSession: "/idp/init_logout.openid",
            ]
        }
        self.paths = paths
        routes = Dictionary(uniqueKeysWithValues: paths.map { ($0.value, $0.key) })
    }

    /// Starts the accept loop on a background thread.
    public func start() {
        server.start { [self] request in handle(request) }
    }

    /// Closes the listening socket; in-flight requests still complete.
    public func stop() { server.stop() }

    /// Absolute URL of an endpoint (nil if the layout has none).
    public func url(for kind: EndpointKind) -> String? { paths[kind].map { baseURL + $0 } }

    // MARK: Inspection and control

    public var requests: [RecordedRequest] {
        state.withLock { $0.requests }.sorted { $0.sequence < $1.sequence }
    }

    public func requests(to kind: EndpointKind) -> [RecordedRequest] { requests.filter { $0.kind == kind } }

    public func clearRequests() {
        state.withLock {
            $0.requests.removeAll()
            $0.arrivals.removeAll()
        }
    }

    /// Requests to `kind` that have arrived since the last `clearRequests`, answered or not.
    public func arrivals(to kind: EndpointKind) -> Int { state.withLock { $0.arrivals[kind] ?? 0 } }

    /// Requests that have arrived so far, answered or not (a delayed request counts from its arrival;
    /// `requests` lists it only once answered).
    public var arrivedRequestCount: Int { state.withLock { $0.nextSequence } }

    public var faults: Faults {
        get { state.withLock { $0.faults } }
        set { state.withLock { $0.faults = newValue } }
    }

    public func setFaults(_ faults: Faults) { self.faults = faults }

    /// Lifetime in seconds of access tokens issued from now on.
    public var accessTokenLifetime: Int {
        get { state.withLock { $0.accessTokenLifetime } }
        set { state.withLock { $0.accessTokenLifetime = newValue } }
    }

    /// Every access token issued, oldest first.
    public var issuedAccessTokens: [String] { state.withLock { $0.accessOrder } }
    /// Every refresh token issued, oldest first.
    public var issuedRefreshTokens: [String] { state.withLock { $0.refreshOrder } }
    /// Session ids (`sid`) ended through the end-session endpoint, in order.
    public var endedSessions: [String] { state.withLock { $0.endedSessions } }

    public func isActive(token: String) -> Bool { introspect(token).active }

    public func introspect(_ token: String) -> IntrospectionResult {
        let now = nowSeconds()
        guard let record = state.withLock({ $0.tokens[token] }),
            !record.revoked, !record.used, now < record.expiresAt
        else {
            return IntrospectionResult(active: false)
        }
        return IntrospectionResult(
            active: true, scope: record.scopes.joined(separator: " "),
            clientID: record.grant.clientID, sub: record.grant.user.sub,
            exp: Int(record.expiresAt), iat: Int(record.issuedAt),
            tokenType: record.isRefresh ? "refresh_token" : "Bearer")
    }

    /// Marks every issued access token as expired now (refresh tokens stay valid).
    public func expireAccessTokens() {
        let now = nowSeconds()
        state.withLock { s in
            for token in s.accessOrder { s.tokens[token]?.expiresAt = now - 1 }
        }
    }

    // MARK: Request dispatch

    private func handle(_ request: HTTPRequest) -> HTTPResponse {
        let arrived = nowSeconds()
        let kind = routes[request.path] ?? (request.path.hasPrefix("/__emulator/") ? .control : .other)
        let sequence = state.withLock { s -> Int in
            s.nextSequence += 1
            if kind != .control { s.arrivals[kind, default: 0] += 1 }
            return s.nextSequence
        }
        let response: HTTPResponse
        if kind == .control {
            response = handleControl(request)
        } else {
            let (delay, canned) = state.withLock { s -> (Double?, CannedResponse?) in
                (s.faults.delays[kind], Self.takeCannedResponse(for: kind, from: &s.faults))
            }
            if let delay, delay > 0 { Thread.sleep(forTimeInterval: delay) }
            response = canned.map(Self.render) ?? route(kind, request)
        }
        let form = request.form
        let record = RecordedRequest(
            sequence: sequence, method: request.method, path: request.path,
            query: request.query, form: form, headers: request.headers, kind: kind,
            grantType: kind == .token ? form["grant_type"] : nil,
            status: response.status, timestamp: arrived)
        if kind != .control { state.withLock { $0.requests.append(record) } }
        configuration.onRequest?(record)
        return response
    }

    /// Returns the canned response for `kind`, counting down its `times` budget.
    private static func takeCannedResponse(for kind: EndpointKind, from faults: inout Faults) -> CannedResponse? {
        guard var canned = faults.responseOverrides[kind] else { return nil }
        if let times = canned.times {
            if times <= 0 {
                faults.responseOverrides[kind] = nil
                return nil
            }
            canned.times = times - 1
            faults.responseOverrides[kind] = times == 1 ? nil : canned
        }
        return canned
    }

    private static func render(_ canned: CannedResponse) -> HTTPResponse {
        var headers: [(String, String)] = []
        if let type = canned.contentType { headers.append(("Content-Type", type)) }
        for (name, value) in (canned.headers ?? [:]).sorted(by: { $0.key < $1.key }) { headers.append((name, value)) }
        let body = String(repeating: canned.body, count: max(1, canned.bodyRepeat ?? 1))
        return HTTPResponse(status: canned.status, headers: headers, body: Array(body.utf8))
    }

    private func route(_ kind: EndpointKind, _ request: HTTPRequest) -> HTTPResponse {
        switch kind {
        case .discovery, .jwks:
            guard request.method == "GET" || request.method == "HEAD" else { return methodNotAllowed() }
            return .json(kind == .jwks ? ["keys": [key.jwk]] : .object(discoveryDocument()))
        case .authorize: return authorize(request)
        case .token: return token(request)
        case .userinfo: return userinfo(request)
        case .revoke: return revoke(request)
        case .introspect: return introspectEndpoint(request)
        case .endSession: return endSession(request)
        case .deviceAuthorization, .par:
            return .oauthError("unauthorized_client", "\(kind.rawValue) is not enabled for this environment")
        case .other, .control:
            return .json(
                ["error": "not_found", "error_description": .string("no such endpoint: \(request.path)")],
                status: 404)
        }
    }

    private func methodNotAllowed() -> HTTPResponse {
        .oauthError("invalid_request", "method not allowed", status: 405)
    }

    private func client(_ id: String?) -> RegisteredClient? {
        guard let id else { return nil }
        return configuration.clients.first { $0.clientID == id }
    }

    // MARK: Discovery

    func discoveryDocument() -> [String: JSONValue] {
        var doc: [String: JSONValue] = [
            "issuer": .string(issuer),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": .array(RegisteredClient.defaultScopes.map { .string($0) }),
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["EdDSA"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            "claims_supported": [
                "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "sid", "name",
                "preferred_username", "given_name", "family_name", "email", "email_verified",
            ],
            "authorization_response_iss_parameter_supported": true,
        ]
        let names: [(EndpointKind, String)] = [
            (.authorize, "authorization_endpoint"), (.token, "token_endpoint"), (.userinfo, "userinfo_endpoint"),
            (.jwks, "jwks_uri"), (.revoke, "revocation_endpoint"), (.introspect, "introspection_endpoint"),
            (.endSession, "end_session_endpoint"),
        ]
        for (kind, name) in names { doc[name] = url(for: kind).map { .string($0) } }
        return doc.applying(faults.discoveryOverrides)
    }

    // MARK: Authorize

    private enum AuthorizeValidation {
        case errorPage(String)
        case redirectError(uri: String, state: String?, error: String, description: String)
        case valid(AuthorizeRequest)
    }

    private static let standardAuthorizeParameters: Set<String> = [
        "client_id", "redirect_uri", "response_type", "scope", "state", "nonce", "code_challenge",
        "code_challenge_method",
    ]

    private func authorize(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "POST" else { return methodNotAllowed() }
        let params = request.method == "POST" ? request.form : request.query
        if request.method == "POST", let flow = params["flow"] {
            return completeSignIn(flowID: flow, params: params)
        }
        switch validateAuthorize(params) {
        case .errorPage(let message):
            return .html(
                HTML.page(
                    title: "Authorization error",
                    body: "<h1>Authorization error</h1>\n<p>\(HTML.escape(message))</p>"),
                status: 400)
        case .redirectError(let uri, let state, let error, let description):
            return redirectError(uri: uri, state: state, error: error, description: description)
        case .valid(let authorizeRequest):
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
    }

    private func validateAuthorize(_ params: [String: String]) -> AuthorizeValidation {
        guard let client = client(params["client_id"]) else {
            return .errorPage("Unknown client_id.")
        }
        guard let redirectURI = params["redirect_uri"],
            Self.redirectURI(redirectURI, matchesAnyOf: client.redirectURIs)
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
    static func redirectURI(_ requested: String, matchesAnyOf registered: [String]) -> Bool {
        if registered.contains(requested) { return true }
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

    private func redirectError(uri: String, state: String?, error: String, description: String) -> HTTPResponse {
        var pairs = [("error", error), ("error_description", description)]
        if let state { pairs.append(("state", state)) }
        pairs.append(("iss", issuer))
        return .redirect(FormEncoding.append(pairs, to: uri))
    }

    private func signInForm(flowID: String, request: AuthorizeRequest, error: String?) -> HTTPResponse {
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

    private func completeSignIn(flowID: String, params: [String: String]) -> HTTPResponse {
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

    private func issueCode(for request: AuthorizeRequest, user: User) -> HTTPResponse {
        let now = nowSeconds()
        let code = Crypto.randomToken()
        let grant = Grant(
            id: Crypto.randomToken(16), clientID: request.client.clientID, user: user,
            scopes: request.scopes, authTime: Int(now), sid: UUID().uuidString.lowercased())
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
        pairs.append(("iss", issuer))
        for (name, value) in overrides.sorted(by: { $0.key < $1.key }) {
            if let value {
                if let i = pairs.firstIndex(where: { $0.0 == name }) { pairs[i].1 = value } else { pairs.append((name, value)) }
            } else {
                pairs.removeAll { $0.0 == name }
            }
        }
        return .redirect(FormEncoding.append(pairs, to: request.redirectURI))
    }

    // MARK: Client authentication (token, revoke, introspect)

    private enum ClientAuthentication {
        case authenticated(RegisteredClient)
        case failed(HTTPResponse)
    }

    private func authenticateClient(_ request: HTTPRequest, form: [String: String]) -> ClientAuthentication {
        func invalid(_ description: String) -> ClientAuthentication {
            .failed(
                .oauthError(
                    "invalid_client", description, status: 401,
                    headers: [("WWW-Authenticate", "Basic realm=\"emulator\"")]))
        }
        if let authorization = request.header("authorization"), authorization.lowercased().hasPrefix("basic ") {
            // RFC 6749 §2.3.1: id and secret are form-encoded before base64.
            guard let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
            else {
                return invalid("malformed Basic credentials")
            }
            let id = FormEncoding.percentDecode(text[..<colon])
            let secret = FormEncoding.percentDecode(text[text.index(after: colon)...])
            guard let client = client(id), client.clientSecret ?? "" == secret else {
                return invalid("client authentication failed")
            }
            if let bodyID = form["client_id"], bodyID != id { return invalid("client_id does not match credentials") }
            if form["client_secret"] != nil {
                return .failed(.oauthError("invalid_request", "more than one client authentication method"))
            }
            return .authenticated(client)
        }
        guard let id = form["client_id"] else { return invalid("client authentication is required") }
        guard let client = client(id) else { return invalid("unknown client_id") }
        if let secret = client.clientSecret, form["client_secret"] != secret {
            return invalid("client authentication failed")
        }
        return .authenticated(client)
    }

    // MARK: Token endpoint

    private func token(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "POST" else { return methodNotAllowed() }
        guard request.isForm else {
            return .oauthError("invalid_request", "Content-Type must be application/x-www-form-urlencoded")
        }
        let form = request.form
        let client: RegisteredClient
        switch authenticateClient(request, form: form) {
        case .failed(let response): return response
        case .authenticated(let c): client = c
        }
        guard let grantType = form["grant_type"], !grantType.isEmpty else {
            return .oauthError("invalid_request", "grant_type is required")
        }
        if let canned = faults.tokenErrors[grantType] {
            var body: [String: JSONValue] = ["error": .string(canned.error)]
            if let d = canned.errorDescription { body["error_description"] = .string(d) }
            if let u = canned.errorURI { body["error_uri"] = .string(u) }
            return .json(.object(body), status: canned.status)
        }
        switch grantType {
        case "authorization_code": return authorizationCodeGrant(form: form, client: client)
        case "refresh_token": return refreshTokenGrant(form: form, client: client)
        default: return .oauthError("unsupported_grant_type", "grant_type \(grantType) is not supported")
        }
    }

    private enum GrantCheck<T> {
        case ok(T)
        case error(String, String)
    }

    private func authorizationCodeGrant(form: [String: String], client: RegisteredClient) -> HTTPResponse {
        guard let code = form["code"], !code.isEmpty else { return .oauthError("invalid_request", "code is required") }
        guard let verifier = form["code_verifier"] else {
            return .oauthError("invalid_request", "code_verifier is required")
        }
        let now = nowSeconds()
        // Check and consume under the lock so concurrent redemptions cannot both succeed.
        let check = state.withLock { s -> GrantCheck<CodeRecord> in
            guard var record = s.codes[code] else { return .error("invalid_grant", "unknown authorization code") }
            if record.used {
                // RFC 6749 §4.1.2: a replayed code revokes the tokens it produced.
                for token in record.issuedTokens { s.tokens[token]?.revoked = true }
                return .error("invalid_grant", "authorization code was already used")
            }
            guard now < record.expiresAt else { return .error("invalid_grant", "authorization code expired") }
            guard record.grant.clientID == client.clientID else {
                return .error("invalid_grant", "authorization code was issued to another client")
            }
            guard form["redirect_uri"] == record.redirectURI else {
                return .error("invalid_grant", "redirect_uri does not match the authorization request")
            }
            guard (43...128).contains(verifier.utf8.count), verifier.utf8.allSatisfy(FormEncoding.isUnreserved) else {
                return .error("invalid_grant", "code_verifier must be 43-128 unreserved characters")
            }
            guard Crypto.pkceChallenge(forVerifier: verifier) == record.challenge else {
                return .error("invalid_grant", "PKCE verification failed")
            }
            record.used = true
            s.codes[code] = record
            return .ok(record)
        }
        switch check {
        case .error(let error, let description):
            return .oauthError(error, description)
        case .ok(let record):
            let (body, issued) = issueTokens(grant: record.grant, scopes: record.grant.scopes, nonce: record.nonce)
            state.withLock { $0.codes[code]?.issuedTokens = issued }
            return .json(.object(body))
        }
    }

    private func refreshTokenGrant(form: [String: String], client: RegisteredClient) -> HTTPResponse {
        guard let refreshToken = form["refresh_token"], !refreshToken.isEmpty else {
            return .oauthError("invalid_request", "refresh_token is required")
        }
        let now = nowSeconds()
        let check = state.withLock { s -> GrantCheck<(TokenRecord, [String])> in
            if s.faults.failNextRefreshes > 0 {
                s.faults.failNextRefreshes -= 1
                return .error("invalid_grant", "refresh failed (injected fault)")
            }
            guard let record = s.tokens[refreshToken], record.isRefresh else {
                return .error("invalid_grant", "unknown refresh token")
            }
            guard !record.revoked else { return .error("invalid_grant", "refresh token was revoked") }
            guard !record.used else { return .error("invalid_grant", "refresh token was already used") }
            guard now < record.expiresAt else { return .error("invalid_grant", "refresh token expired") }
            guard record.grant.clientID == client.clientID else {
                return .error("invalid_grant", "refresh token was issued to another client")
            }
            var scopes = record.scopes
            if let requested = form["scope"] {
                let list = requested.scopeList
                guard list.allSatisfy(record.scopes.contains) else {
                    return .error("invalid_scope", "requested scope exceeds the original grant")
                }
                scopes = list
            }
            // Rotation: this refresh token can never be used again.
            s.tokens[refreshToken]?.used = true
            return .ok((record, scopes))
        }
        switch check {
        case .error(let error, let description):
            return .oauthError(error, description)
        case .ok(let (record, scopes)):
            // The new refresh token keeps the original scope (RFC 6749 §6); the access token gets `scopes`.
            return .json(
                .object(
                    issueTokens(
                        grant: record.grant, scopes: scopes, refreshScopes: record.scopes,
                        nonce: nil
                    ).body))
        }
    }

    /// Mints access, refresh and (for openid) ID tokens, records them, and returns the response body.
    private func issueTokens(
        grant: Grant, scopes: [String], refreshScopes: [String]? = nil,
        nonce: String?
    ) -> (body: [String: JSONValue], issued: [String]) {
        let now = nowSeconds()
        let iat = Int(now)
        let (lifetime, faults) = state.withLock { ($0.accessTokenLifetime, $0.faults) }
        let scopeString = scopes.joined(separator: " ")
        let audience: JSONValue = configuration.layout == .pingOne ? ["https://api.pingone.com"] : .string(issuer)
        let accessToken = key.sign(claims: [
            "iss": .string(issuer), "sub": .string(grant.user.sub), "aud": audience,
            "client_id": .string(grant.clientID), "scope": .string(scopeString), "sid": .string(grant.sid),
            "iat": .number(Double(iat)), "exp": .number(Double(iat + lifetime)), "jti": .string(Crypto.randomToken(16)),
        ])
        let refreshToken = Crypto.randomToken()
        var body: [String: JSONValue] = [
            "access_token": .string(accessToken), "token_type": "Bearer", "expires_in": .number(Double(lifetime)),
            "refresh_token": .string(refreshToken), "scope": .string(scopeString),
        ]
        var idToken: String?
        if scopes.contains("openid") {
            var claims: [String: JSONValue] = [
                "iss": .string(issuer), "sub": .string(grant.user.sub), "aud": .string(grant.clientID),
                "iat": .number(Double(iat)), "exp": .number(Double(iat + configuration.idTokenLifetime)),
                "auth_time": .number(Double(grant.authTime)), "sid": .string(grant.sid),
            ]
            if let nonce { claims["nonce"] = .string(nonce) }
            claims.merge(Self.userClaims(grant.user, scopes: scopes)) { current, _ in current }
            let token = key.sign(claims: claims.applying(faults.idTokenClaimOverrides))
            body["id_token"] = .string(token)
            idToken = token
        }
        let access = TokenRecord(
            token: accessToken, isRefresh: false, grant: grant, scopes: scopes, issuedAt: now,
            expiresAt: now + Double(lifetime))
        let refresh = TokenRecord(
            token: refreshToken, isRefresh: true, grant: grant,
            scopes: refreshScopes ?? scopes, issuedAt: now,
            expiresAt: now + Double(configuration.refreshTokenLifetime))
        state.withLock { s in
            s.tokens[accessToken] = access
            s.tokens[refreshToken] = refresh
            s.accessOrder.append(accessToken)
            s.refreshOrder.append(refreshToken)
            if let idToken { s.idTokens[idToken] = IssuedIDToken(clientID: grant.clientID, sid: grant.sid) }
        }
        return (body.applying(faults.tokenResponseOverrides), [accessToken, refreshToken])
    }

    /// Profile/email claims released for the granted scopes (ID token and userinfo).
    static func userClaims(_ user: User, scopes: [String]) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [:]
        if scopes.contains("profile") {
            let parts = user.name.split(separator: " ", maxSplits: 1).map(String.init)
            claims["name"] = .string(user.name)
            claims["preferred_username"] = .string(user.username)
            if let given = parts.first { claims["given_name"] = .string(given) }
            if parts.count > 1 { claims["family_name"] = .string(parts[1]) }
        }
        if scopes.contains("email") {
            claims["email"] = .string(user.email)
            claims["email_verified"] = true
        }
        return claims
    }

    // MARK: Userinfo

    private func userinfo(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "POST" else { return methodNotAllowed() }
        func unauthorized(_ description: String) -> HTTPResponse {
            .oauthError(
                "invalid_token", description, status: 401,
                headers: [
                    ("WWW-Authenticate", "Bearer error=\"invalid_token\", error_description=\"\(description)\"")
                ])
        }
        guard let authorization = request.header("authorization"), authorization.lowercased().hasPrefix("bearer ") else {
            return unauthorized("missing bearer token")
        }
        let token = authorization.dropFirst(7).trimmingCharacters(in: .whitespaces)
        guard let record = state.withLock({ $0.tokens[token] }), !record.isRefresh else {
            return unauthorized("unknown access token")
        }
        guard !record.revoked else { return unauthorized("access token was revoked") }
        guard nowSeconds() < record.expiresAt else { return unauthorized("access token expired") }
        var claims = Self.userClaims(record.grant.user, scopes: record.scopes)
        claims["sub"] = .string(record.grant.user.sub)
        return .json(.object(claims))
    }

    // MARK: Revocation and introspection

    private func revoke(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "POST" else { return methodNotAllowed() }
        let form = request.form
        let client: RegisteredClient
        switch authenticateClient(request, form: form) {
        case .failed(let response): return response
        case .authenticated(let c): client = c
        }
        guard let token = form["token"], !token.isEmpty else {
            return .oauthError("invalid_request", "token is required")
        }
        // token_type_hint is only a hint: both kinds are looked up in the same table.
        return state.withLock { s -> HTTPResponse in
            guard let record = s.tokens[token] else { return HTTPResponse(status: 200) }  // RFC 7009 §2.2
            guard record.grant.clientID == client.clientID else {
                return .oauthError("unauthorized_client", "the token was issued to another client")
            }
            if client.requiresRevokeScope && !record.grant.scopes.contains("revoke") {
                return .oauthError("invalid_scope", "The client does not have the revoke scope")
            }
            s.tokens[token]?.revoked = true
            if record.isRefresh {
                // RFC 7009 §2.1: revoking a refresh token also invalidates the grant's access tokens.
                for (t, r) in s.tokens where r.grant.id == record.grant.id { s.tokens[t]?.revoked = true }
            }
            return HTTPResponse(status: 200)
        }
    }

    private func introspectEndpoint(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "POST" else { return methodNotAllowed() }
        let form = request.form
        if case .failed(let response) = authenticateClient(request, form: form) { return response }
        guard let token = form["token"], !token.isEmpty else {
            return .oauthError("invalid_request", "token is required")
        }
        return .json(introspectionJSON(token))
    }

    private func introspectionJSON(_ token: String) -> JSONValue {
        let result = introspect(token)
        guard result.active else { return ["active": false] }
        var body: [String: JSONValue] = ["active": true]
        body["scope"] = result.scope.map { .string($0) }
        body["client_id"] = result.clientID.map { .string($0) }
        body["sub"] = result.sub.map { .string($0) }
        body["exp"] = result.exp.map { .number(Double($0)) }
        body["iat"] = result.iat.map { .number(Double($0)) }
        body["token_type"] = result.tokenType.map { .string($0) }
        return .object(body)
    }

    // MARK: End session

    private func endSession(_ request: HTTPRequest) -> HTTPResponse {
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
            guard let client, Self.redirectURI(uri, matchesAnyOf: client.postLogoutRedirectURIs) else {
                return errorPage("post_logout_redirect_uri is not registered for this client.")
            }
            if let sid { state.withLock { $0.endedSessions.append(sid) } }
            let pairs = params["state"].map { [("state", $0)] } ?? []
            return .redirect(FormEncoding.append(pairs, to: uri))
        }
        if let sid { state.withLock { $0.endedSessions.append(sid) } }
        return .html(HTML.page(title: "Signed out", body: "<h1>You have been signed out.</h1>"))
    }

    // MARK: Control endpoints (/__emulator/…)

    private func handleControl(_ request: HTTPRequest) -> HTTPResponse {
        let ok: JSONValue = ["ok": true]
        switch (request.method, request.path) {
        case ("GET", "/__emulator/requests"):
            return Self.encodeJSON(requests)
        case ("DELETE", "/__emulator/requests"):
            clearRequests()
            return .json(ok)
        case ("GET", "/__emulator/arrivals"):
            let counts = state.withLock { $0.arrivals }
            return .json(.object(Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, JSONValue.number(Double($0.value))) })))
        case ("GET", "/__emulator/faults"):
            return Self.encodeJSON(faults)
        case ("PUT", "/__emulator/faults"):
            do {
                faults = try JSONDecoder().decode(Faults.self, from: Data(request.body))
                return .json(ok)
            } catch {
                return .oauthError("invalid_request", "invalid Faults JSON: \(error)")
            }
        case ("PUT", "/__emulator/settings"):
            guard case .object(let settings)? = JSONValue.parse(Data(request.body)) else {
                return .oauthError("invalid_request", "expected a JSON object")
            }
            if let lifetime = settings["accessTokenLifetime"] {
                guard let seconds = lifetime.numberValue, let value = Int(exactly: seconds) else {
                    return .oauthError("invalid_request", "accessTokenLifetime must be an integer")
                }
                accessTokenLifetime = value
            }
            return .json(["ok": true, "accessTokenLifetime": .number(Double(accessTokenLifetime))])
        case ("POST", "/__emulator/expire-access-tokens"):
            expireAccessTokens()
            return .json(ok)
        case ("POST", "/__emulator/introspect"):
            guard let token = request.form["token"] else { return .oauthError("invalid_request", "token is required") }
            return .json(introspectionJSON(token))
        case ("GET", "/__emulator/latest-tokens"):
            // Introspection of the newest access and refresh token, without their values: for the demo.
            var report: [String: JSONValue] = [:]
            if let access = issuedAccessTokens.last { report["access_token"] = introspectionJSON(access) }
            if let refresh = issuedRefreshTokens.last { report["refresh_token"] = introspectionJSON(refresh) }
            return .json(.object(report))
        case ("GET", "/__emulator/tokens"):
            return .json([
                "access": .array(issuedAccessTokens.map { .string($0) }),
                "refresh": .array(issuedRefreshTokens.map { .string($0) }),
            ])
        default:
            return .json(["error": "not_found", "error_description": .string("no such control endpoint")], status: 404)
        }
    }

    private static func encodeJSON<T: Encodable>(_ value: T) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "application/json")],
                body: [UInt8](try encoder.encode(value)))
        } catch {
            return .oauthError("server_error", "encoding failed: \(error)", status: 500)
        }
    }
}
