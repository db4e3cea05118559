import EmulatorHTTP
import Foundation

extension Emulator {
    // MARK: Client authentication (token, revoke, introspect)

    enum ClientAuthentication {
        case authenticated(RegisteredClient)
        case failed(HTTPResponse)
    }

    enum AuthenticatedPost {
        case accepted(form: [String: String], client: RegisteredClient)
        case refused(HTTPResponse)
    }

    /// What every client-authenticated endpoint checks first: POST, a form body (when `formRequired`:
    /// the token and PAR endpoints insist on the Content-Type), and the client's authentication.
    func authenticatedPost(_ request: HTTPRequest, formRequired: Bool) -> AuthenticatedPost {
        guard request.method == "POST" else { return .refused(methodNotAllowed()) }
        guard !formRequired || request.isForm else {
            return .refused(.oauthError("invalid_request", "Content-Type must be application/x-www-form-urlencoded"))
        }
        let form = request.form
        switch authenticateClient(request, form: form) {
        case .failed(let response): return .refused(response)
        case .authenticated(let client): return .accepted(form: form, client: client)
        }
    }

    func authenticateClient(_ request: HTTPRequest, form: [String: String]) -> ClientAuthentication {
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
            if let only = client.authMethod, only != "client_secret_basic" {
                return invalid("this client must authenticate with \(only)")
            }
            return .authenticated(client)
        }
        if form["client_assertion_type"] != nil || form["client_assertion"] != nil {
            return authenticateAssertion(request, form: form)
        }
        guard let id = form["client_id"] else { return invalid("client authentication is required") }
        guard let client = client(id) else { return invalid("unknown client_id") }
        if client.authMethod == "private_key_jwt" { return invalid("this client must authenticate with private_key_jwt") }
        if client.usesMutualTLS {
            if form["client_secret"] != nil { return .failed(.oauthError("invalid_request", "more than one client authentication method")) }
            if let failure = checkMutualTLS(request, client: client) { return invalid(failure) }
            return .authenticated(client)
        }
        if let secret = client.clientSecret, form["client_secret"] != secret {
            return invalid("client authentication failed")
        }
        if client.clientSecret != nil, let only = client.authMethod, only != "client_secret_post" {
            return invalid("this client must authenticate with \(only)")
        }
        return .authenticated(client)
    }

    // MARK: Token endpoint

    func token(_ request: HTTPRequest) -> HTTPResponse {
        let (form, client): ([String: String], RegisteredClient)
        switch authenticatedPost(request, formRequired: true) {
        case .refused(let response): return response
        case .accepted(let f, let c): (form, client) = (f, c)
        }
        guard let grantType = form["grant_type"], !grantType.isEmpty else {
            return .oauthError("invalid_request", "grant_type is required")
        }
        // RFC 9449 §5: a proof binds the tokens to its key.
        var jkt: String? = nil
        switch checkDPoP(request, accessToken: nil) {
        case .absent where configuration.dpop.required: return dpopRefusal("invalid_dpop_proof", "a DPoP proof is required")
        case .absent: break
        case .invalid(let error, let description): return dpopRefusal(error, description)
        case .valid(let thumbprint): jkt = thumbprint
        }
        if let canned = faults.tokenErrors[grantType] {
            var body: [String: EmulatorJSON] = ["error": .string(canned.error)]
            if let d = canned.errorDescription { body["error_description"] = .string(d) }
            if let u = canned.errorURI { body["error_uri"] = .string(u) }
            return .json(.object(body), status: canned.status)
        }
        switch grantType {
        case "authorization_code": return authorizationCodeGrant(form: form, client: client, jkt: jkt)
        case "refresh_token": return refreshTokenGrant(form: form, client: client, jkt: jkt)
        case "client_credentials": return clientCredentialsGrant(form: form, client: client, jkt: jkt)
        case Self.deviceGrantType: return deviceCodeGrant(form: form, client: client, jkt: jkt)
        case Self.tokenExchangeGrantType where configuration.tokenExchange:
            return tokenExchangeGrant(form: form, client: client, jkt: jkt)
        default: return .oauthError("unsupported_grant_type", "grant_type \(grantType) is not supported")
        }
    }

    enum GrantCheck<T> {
        case ok(T)
        case error(String, String)

        /// The OAuth error response for a refusal, else `issue`'s answer for what passed.
        func response(_ issue: (T) -> HTTPResponse) -> HTTPResponse {
            switch self {
            case .error(let error, let description): .oauthError(error, description)
            case .ok(let value): issue(value)
            }
        }
    }

    func authorizationCodeGrant(form: [String: String], client: RegisteredClient, jkt: String? = nil) -> HTTPResponse {
        guard let code = form["code"], !code.isEmpty else { return .oauthError("invalid_request", "code is required") }
        guard let verifier = form["code_verifier"] else {
            return .oauthError("invalid_request", "code_verifier is required")
        }
        let now = self.now()
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
            // RFC 9449 §10: a code requested with dpop_jkt is redeemed only with a proof by that key.
            if let expected = record.extras["dpop_jkt"], expected != jkt {
                return .error("invalid_dpop_proof", "the proof's key does not match dpop_jkt")
            }
            record.used = true
            s.codes[code] = record
            return .ok(record)
        }
        return check.response { record in
            let (body, issued) = issueTokens(grant: record.grant, scopes: record.grant.scopes, nonce: record.nonce, jkt: jkt)
            state.withLock { $0.codes[code]?.issuedTokens = issued }
            return .json(.object(body))
        }
    }

    func refreshTokenGrant(form: [String: String], client: RegisteredClient, jkt: String? = nil) -> HTTPResponse {
        guard let refreshToken = form["refresh_token"], !refreshToken.isEmpty else {
            return .oauthError("invalid_request", "refresh_token is required")
        }
        let now = self.now()
        let rotate = configuration.rotateRefreshTokens
        let check = state.withLock { s in
            checkRefresh(refreshToken, form: form, client: client, jkt: jkt, now: now, rotate: rotate, in: &s)
        }
        return check.response { (record, target) in
            // The new refresh token keeps the original scope (RFC 6749 §6); the access token gets `scopes`.
            .json(
                .object(
                    issueTokens(
                        grant: record.grant, scopes: target.scopes, refreshScopes: record.scopes,
                        nonce: nil, refresh: rotate, jkt: jkt, audience: target.audience
                    ).body))
        }
    }

    /// The refresh token's record and the new token's target, or the error that refuses it; marks a
    /// rotated token used.
    private func checkRefresh(
        _ refreshToken: String, form: [String: String], client: RegisteredClient, jkt: String?, now: Double, rotate: Bool,
        in s: inout EmulatorState
    ) -> GrantCheck<(TokenRecord, Target)> {
        if s.faults.failNextRefreshes > 0 {
            s.faults.failNextRefreshes -= 1
            return .error("invalid_grant", "refresh failed (injected fault)")
        }
        guard let record = s.tokens[refreshToken], record.isRefresh else {
            return .error("invalid_grant", "unknown refresh token")
        }
        guard !record.revoked else { return .error("invalid_grant", "refresh token was revoked") }
        // PingOne's refreshTokenRollingGracePeriodDuration: an exchanged refresh token still works for
        // that many seconds (a client that lost the answer can retry), then invalid_grant.
        if record.used {
            guard let usedAt = record.usedAt, now < usedAt + Double(configuration.refreshTokenGracePeriod) else {
                return .error("invalid_grant", "refresh token was already used")
            }
        }
        guard now < record.expiresAt else { return .error("invalid_grant", "refresh token expired") }
        guard record.grant.clientID == client.clientID else {
            return .error("invalid_grant", "refresh token was issued to another client")
        }
        // RFC 9449 §5: a refresh token bound to a key is refreshed only with a proof by that key.
        if let bound = record.jkt, bound != jkt {
            return .error("invalid_dpop_proof", "the refresh token is bound to another DPoP key")
        }
        let scopes: [String]
        switch self.narrowed(form["scope"], within: record.scopes) {
        case .error(let error, let description): return .error(error, description)
        case .ok(let list): scopes = list
        }
        // RFC 8707 §2.2: a resource narrows this access token to one API (and its scopes).
        let target: Target
        switch self.target(resource: form["resource"], requested: form["scope"] != nil, scopes: scopes) {
        case .error(let error, let description): return .error(error, description)
        case .ok(let narrowed): target = narrowed
        }
        // Rotation: this refresh token can never be used again (after the grace period, if any).
        if rotate && !record.used {
            s.tokens[refreshToken]?.used = true
            s.tokens[refreshToken]?.usedAt = now
        }
        return .ok((record, target))
    }

    /// RFC 6749 §4.4: a confidential client asks for itself; an access token only.
    func clientCredentialsGrant(form: [String: String], client: RegisteredClient, jkt: String? = nil) -> HTTPResponse {
        guard client.isConfidential else {
            return .oauthError("unauthorized_client", "client_credentials needs a confidential client")
        }
        let scopes = form["scope"]?.scopeList ?? []
        if let bad = scopes.first(where: { !client.allowedScopes.contains($0) || $0 == "openid" }) {
            return .oauthError("invalid_scope", "scope \(bad) is not allowed for client credentials")
        }
        let machine = User(
            username: client.clientID, password: "", sub: client.clientID, name: client.clientID, email: "")
        let grant = Grant(
            id: Crypto.randomToken(16), clientID: client.clientID, user: machine, scopes: scopes,
            authTime: Int(now()), sid: "")
        // RFC 8707 §2.1: a resource without a scope asks for the client's scopes of that resource.
        let candidates = form["scope"] == nil ? client.allowedScopes.filter { $0 != "openid" } : scopes
        switch target(resource: form["resource"], requested: form["scope"] != nil, scopes: form["resource"] == nil ? scopes : candidates) {
        case .error(let error, let description): return .oauthError(error, description)
        case .ok(let target):
            return .json(
                .object(
                    issueTokens(grant: grant, scopes: target.scopes, nonce: nil, refresh: false, jkt: jkt, audience: target.audience).body))
        }
    }

    /// Mints access, refresh and (for openid) ID tokens, records them, and returns the response body.
    func issueTokens(
        grant: Grant, scopes: [String], refreshScopes: [String]? = nil,
        nonce: String?, refresh includeRefresh: Bool = true, idToken includeIDToken: Bool = true,
        jkt: String? = nil, audience: EmulatorJSON? = nil
    ) -> (body: [String: EmulatorJSON], issued: [String]) {
        let now = self.now()
        let (lifetime, faults) = state.withLock { ($0.accessTokenLifetime, $0.faults) }
        let scopeString = scopes.joined(separator: " ")
        let certificate = Self.presentedCertificate
        let accessToken = mintAccessToken(
            grant: grant, scopes: scopes, issuedAt: Int(now), lifetime: lifetime, certificate: certificate, jkt: jkt,
            audience: audience)
        let refreshToken = Crypto.randomToken()
        var body: [String: EmulatorJSON] = [
            "access_token": .string(accessToken), "token_type": jkt == nil ? "Bearer" : "DPoP",
            "expires_in": .number(Double(lifetime)),
        ]
        if !scopeString.isEmpty { body["scope"] = .string(scopeString) }
        if includeRefresh { body["refresh_token"] = .string(refreshToken) }
        var idToken: String?
        if includeIDToken && scopes.contains("openid") {
            let token = mintIDToken(grant: grant, scopes: scopes, issuedAt: Int(now), nonce: nonce, faults: faults)
            body["id_token"] = .string(token)
            idToken = token
        }
        var access = TokenRecord(
            token: accessToken, isRefresh: false, grant: grant, scopes: scopes, issuedAt: now,
            expiresAt: now + Double(lifetime))
        access.certificateThumbprint = certificate
        access.jkt = jkt
        access.audience = audience
        var refresh = TokenRecord(
            token: refreshToken, isRefresh: true, grant: grant,
            scopes: refreshScopes ?? scopes, issuedAt: now, expiresAt: refreshExpiry(grant: grant, now: now))
        refresh.jkt = jkt
        record(access: access, refresh: includeRefresh ? refresh : nil, idToken: idToken, grant: grant)
        return (body.applying(faults.tokenResponseOverrides), includeRefresh ? [accessToken, refreshToken] : [accessToken])
    }

    /// The signed JWT access token for `grant`.
    private func mintAccessToken(
        grant: Grant, scopes: [String], issuedAt iat: Int, lifetime: Int, certificate: String?, jkt: String?,
        audience: EmulatorJSON?
    ) -> String {
        var accessClaims: [String: EmulatorJSON] = [
            "iss": .string(issuer), "sub": .string(grant.user.sub), "aud": audience ?? accessTokenAudience(scopes: scopes),
            "client_id": .string(grant.clientID), "scope": .string(scopes.joined(separator: " ")),
            "iat": .number(Double(iat)), "exp": .number(Double(iat + lifetime)), "jti": .string(Crypto.randomToken(16)),
        ]
        // No session behind client_credentials: PingOne's tokens then have no sid (token-claims page).
        if !grant.sid.isEmpty { accessClaims["sid"] = .string(grant.sid) }
        // RFC 8705 §3: a token issued over mutual TLS is bound to the client's certificate; RFC 9449 §6.1:
        // a token issued with a DPoP proof to the proof's key.
        var confirmation: [String: EmulatorJSON] = [:]
        if let certificate { confirmation["x5t#S256"] = .string(certificate) }
        if let jkt { confirmation["jkt"] = .string(jkt) }
        if !confirmation.isEmpty { accessClaims["cnf"] = .object(confirmation) }
        return key.sign(claims: accessClaims, typ: configuration.accessTokenType)
    }

    /// The signed ID token for `grant`, with the claims its scopes release and the configured faults.
    private func mintIDToken(grant: Grant, scopes: [String], issuedAt iat: Int, nonce: String?, faults: Faults) -> String {
        var claims: [String: EmulatorJSON] = [
            "iss": .string(issuer), "sub": .string(grant.user.sub), "aud": .string(grant.clientID),
            "iat": .number(Double(iat)), "exp": .number(Double(iat + configuration.idTokenLifetime)),
            "auth_time": .number(Double(grant.authTime)), "sid": .string(grant.sid),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        if let acr = grant.acr { claims["acr"] = .string(acr) }
        claims.merge(Self.userClaims(grant.user, scopes: scopes)) { current, _ in current }
        return signIDToken(claims.applying(faults.idTokenClaimOverrides), clientID: grant.clientID, fault: faults.idTokenSignature)
    }

    /// PingOne: each refresh token lives refreshTokenDuration, and none outlives the grant's
    /// refreshTokenRollingDuration counted from the sign-in.
    private func refreshExpiry(grant: Grant, now: Double) -> Double {
        let expiry = now + Double(configuration.refreshTokenLifetime)
        guard let rolling = configuration.refreshTokenRollingDuration else { return expiry }
        return min(expiry, Double(grant.authTime + rolling))
    }

    /// Records what was issued, so that later requests find it.
    private func record(access: TokenRecord, refresh: TokenRecord?, idToken: String?, grant: Grant) {
        state.withLock { s in
            s.tokens[access.token] = access
            s.accessOrder.append(access.token)
            if let refresh {
                s.tokens[refresh.token] = refresh
                s.refreshOrder.append(refresh.token)
            }
            if let idToken { s.idTokens[idToken] = IssuedIDToken(clientID: grant.clientID, sid: grant.sid) }
        }
    }

    /// Profile/email claims released for the granted scopes (ID token and userinfo).
    static func userClaims(_ user: User, scopes: [String]) -> [String: EmulatorJSON] {
        var claims: [String: EmulatorJSON] = [:]
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
}
