/// What `pingcli login` was asked to do, after flags, environment and the profile were combined.
public struct LoginOptions: Sendable {
    public var profile: ProfileName
    public var issuer: IssuerURL
    public var clientID: String
    public var scopes: [String]
    public var port: UInt16
    /// `login --logout-port`, or the profile's saved one: kept in the profile for `logout --end-session`.
    public var logoutPort: UInt16? = nil
    /// `login --git-host`, or the profile's saved ones: the git servers `git-credential` answers for.
    public var gitHosts: [GitHost]? = nil
    public var openBrowser: Bool
    public var timeout: Double
    public var extraParameters: [FormEncoding.Pair]
    public var caFile: String?
    /// A confidential client's secret (from `--client-secret-file` or `PINGCLI_CLIENT_SECRET`).
    public var clientSecret: ClientSecret?
    /// A `private_key_jwt` client's key (`--client-key-file`).
    public var clientKey: ClientKeyOptions? = nil
    /// Push the authorization request (RFC 9126) when the provider offers it; `--no-par` turns it off.
    public var pushedAuthorization = true
    /// Seconds without any request to the listener before pingcli names the likely causes.
    public var hintAfter: Double = 20
    /// `--device` on a terminal: also show `verification_uri_complete` as a QR code (for a phone).
    public var qrCode = false
    /// `--max-age`, `--acr-values` (also as `--param`): sent, then checked in every ID token.
    public var requirements = AuthenticationRequirements()
    /// `--dpop [ALG]` (or the profile's saved choice): DPoP-bound tokens (RFC 9449).
    public var dpop: DPoPRequest? = nil
    /// `--api-base URL`: what `pingcli api` resolves relative URLs against, saved in the profile.
    public var apiBase: EndpointURL? = nil
}

/// The authorization code flow for native apps ([RFC 8252](https://www.rfc-editor.org/rfc/rfc8252)):
/// discovery, a loopback listener opened before the browser, PKCE S256, state and nonce, the code
/// exchange, ID token validation, and an encrypted save.
public struct LoginFlow {
    public let options: LoginOptions
    public let context: FlowContext
    let key: CommandKey

    /// `key`: the command's key, when the caller has already used it (so a key command runs once).
    public init(options: LoginOptions, context: FlowContext, key: CommandKey? = nil) {
        self.options = options
        self.context = context
        self.key = key ?? context.store.commandKey()
    }

    public func run() throws(PingCLIError) {
        let console = context.console
        let (transport, metadata, methods, dpopKey) = try context.discoverForLogin(
            profile: options.profile, issuer: options.issuer, caFile: options.caFile, secret: options.clientSecret, key: key,
            clientKey: options.clientKey, dpop: options.dpop)
        let client = try options.client(metadata: metadata, method: methods.token, clock: context.clock)

        let listener = try LoopbackListener(port: options.port)
        // RFC 9449 §10: dpop_jkt binds the authorization code to the key, in the browser's request and in PAR.
        let request = AuthorizationRequest(
            clientID: options.clientID, redirectURI: "http://127.0.0.1:\(listener.port)/callback", scopes: options.scopes,
            extraParameters: options.extraParameters + (dpopKey.map { [("dpop_jkt", $0.thumbprint)] } ?? []))
        let url = try authorizationURL(request, metadata: metadata, client: client, transport: transport)

        var outcome: Result<String, PingCLIError>? = nil
        var signedIn: Result<(tokens: TokenSet, claims: IDTokenClaims?, keys: FetchedJWKS?), PingCLIError>? = nil
        /// The code exchange and ID token validation, run while the browser waits for its page, so the
        /// page can say who signed in (or why it failed after all).
        func exchange(_ code: String) throws(PingCLIError) -> (tokens: TokenSet, claims: IDTokenClaims?, keys: FetchedJWKS?) {
            let exchange = TokenEndpoint.authorizationCodeRequest(
                endpoint: metadata.tokenEndpoint, code: code, redirectURI: request.redirectURI, client: client,
                codeVerifier: request.pkce.codeVerifier)
            var tokens = try TokenExchange.perform(
                exchange, transport: transport, clock: context.clock, doing: "login", dpop: dpopKey != nil)
            tokens.dpopKey = dpopKey
            return try Self.validate(tokens, nonce: request.nonce, metadata: metadata, options: options, context: context)
        }
        let receiver = RedirectReceiver(
            expectedState: request.state, issuer: metadata.issuer,
            issParameterRequired: metadata.authorizationResponseIssParameterSupported == true)
        let hint =
            "pingcli: nothing has come back from the browser after \(Int(options.hintAfter)) s. If it shows an error page from the provider, the likely causes are a wrong client id (\(displaySafe(options.clientID, limit: 80))) or the redirect URI \(request.redirectURI) not registered for it (a provider that matches ports exactly needs that URI, and --port \(listener.port) on every login); otherwise keep waiting"
        let roundTrip = BrowserRoundTrip(
            console: console, browser: context.browser, openBrowser: options.openBrowser, timeout: options.timeout,
            pasteInput: context.input, hint: options.openBrowser ? (options.hintAfter, { reached in reached ? nil : hint }) : nil)
        let served = roundTrip.run(url: url, purpose: "sign in to \(options.issuer.value)", listener: listener) { httpRequest, pasted in
            var (reply, result) = receiver.handle(httpRequest)
            if case .success(let code)? = result {
                do throws(PingCLIError) {
                    let done = try exchange(code)
                    signedIn = .success(done)
                    reply.html = RedirectPage.signedIn(
                        profile: options.profile.value, provider: options.issuer.value, account: done.claims?.displayName)
                } catch {
                    signedIn = .failure(error)
                    reply = LoopbackReply(status: 400, html: RedirectPage.failed(error.message), finishes: true)
                }
            }
            if let result { outcome = result }
            if !reply.finishes, let note = receiver.lastIgnoredReason {
                console.err(
                    pasted
                        ? "pingcli: the pasted address was not accepted: \(note): paste the address this sign-in's browser tab ended on"
                        : "pingcli: ignored a request to the loopback listener: \(note)")
            }
            return reply
        }
        guard served == .handled, let outcome else {
            throw .failure("no sign-in arrived within \(Int(options.timeout)) s: run pingcli login again (--timeout sets how long to wait)")
        }
        _ = try outcome.get()
        guard let signedIn else { throw .failure("login failed: the code was not exchanged: run pingcli login again") }
        let (tokens, claims, keys) = try signedIn.get()
        try Self.save(
            tokens, claims: claims, keys: keys, metadata: metadata, methods: methods, options: options, context: context, key: key,
            grantType: nil)
    }

    /// The browser's URL: after a pushed request only `client_id` and `request_uri` (RFC 9126 §4), else
    /// every parameter.
    private func authorizationURL(
        _ request: AuthorizationRequest, metadata: ProviderMetadata, client: ClientCredentials, transport: any HTTPTransport
    ) throws(PingCLIError) -> String {
        let required = metadata.requirePushedAuthorizationRequests == true
        guard let endpoint = metadata.pushedAuthorizationRequestEndpoint, options.pushedAuthorization else {
            if required && metadata.pushedAuthorizationRequestEndpoint == nil {
                throw .failure(
                    "the provider requires pushed authorization requests but has no pushed_authorization_request_endpoint: the provider is misconfigured"
                )
            }
            if required {
                throw .usage("the provider requires pushed authorization requests (RFC 9126): leave out --no-par")
            }
            return request.url(authorizationEndpoint: metadata.authorizationEndpoint)
        }
        let response: HTTPResponse
        do {
            response = try transport.send(request.pushRequest(endpoint: endpoint, client: client))
        } catch {
            throw error.asCLIError(doing: "the pushed authorization request")
        }
        do {
            let pushed = try PushedAuthorization.process(response)
            return request.url(authorizationEndpoint: metadata.authorizationEndpoint, requestURI: pushed.requestURI)
        } catch {
            throw .failure("login failed: \(error.message)\(required ? "" : " (--no-par sends the request through the browser instead)")")
        }
    }

    /// What every person's login ends with, whatever brought the tokens: the ID token validated, then
    /// the profile and the tokens (with the client secret) saved under the profile's lock.
    static func finish(
        _ received: TokenSet, nonce: String?, metadata: ProviderMetadata,
        methods: (token: ClientAuthMethod?, revocation: ClientAuthMethod?),
        options: LoginOptions, context: FlowContext, key: CommandKey, grantType: Profile.GrantType? = nil
    ) throws(PingCLIError) {
        let (tokens, claims, keys) = try validate(
            received, nonce: nonce, metadata: metadata, options: options, context: context, idTokenRequired: grantType == nil)
        // Without an ID token, the UserInfo endpoint says who signed in (when openid was granted).
        let person = claims == nil ? try SessionIdentity.fromUserInfo(tokens, metadata: metadata, options: options, context: context) : nil
        try save(
            tokens, claims: claims, keys: keys, metadata: metadata, methods: methods, options: options, context: context, key: key,
            grantType: grantType, person: person)
    }

    /// The ID token validated (OIDC Core §3.1.3.7), its signature first, and the client secret put beside
    /// the tokens. Returns the provider's keys the signature was checked with, to be cached with the profile.
    /// `idTokenRequired`: the authorization code flow with `openid` must bring one (OIDC Core §3.1.3.3);
    /// grants OpenID Connect does not define (RFC 8628's device grant) may come without one.
    static func validate(
        _ received: TokenSet, nonce: String?, metadata: ProviderMetadata, options: LoginOptions, context: FlowContext,
        idTokenRequired: Bool = true
    ) throws(PingCLIError) -> (tokens: TokenSet, claims: IDTokenClaims?, keys: FetchedJWKS?) {
        var tokens = received
        tokens.clientSecret = options.clientSecret
        var claims: IDTokenClaims? = nil
        var keys: FetchedJWKS? = nil
        if let idToken = tokens.idToken {
            keys = try IDTokenKeys.verifyAtLogin(
                idToken, metadata: metadata, clientSecret: options.clientSecret?.value,
                transport: context.transport(caFile: options.caFile), now: context.clock())
            claims = try TokenExchange.validateIDToken(
                idToken, issuer: metadata.issuer, clientID: options.clientID, nonce: nonce, now: context.clock(),
                requirements: options.requirements, doing: "login")
        } else if idTokenRequired && options.scopes.contains("openid") {
            throw .failure("login failed: \(TokenEndpointError.missingIDToken.message)")
        }
        return (tokens, claims, keys)
    }

    /// The profile and the tokens saved under the profile's lock; a new login resets the refresh backoff.
    static func save(
        _ tokens: TokenSet, claims: IDTokenClaims?, keys: FetchedJWKS?, metadata: ProviderMetadata,
        methods: (token: ClientAuthMethod?, revocation: ClientAuthMethod?),
        options: LoginOptions, context: FlowContext, key: CommandKey, grantType: Profile.GrantType?,
        person: SessionIdentity? = nil
    ) throws(PingCLIError) {
        var profile = Profile(
            issuer: metadata.issuer, clientID: options.clientID, scopes: options.scopes, metadata: metadata,
            caFile: options.caFile, tokenEndpointAuthMethod: methods.token, revocationEndpointAuthMethod: methods.revocation,
            grantType: grantType, port: options.port == 0 ? nil : options.port, logoutPort: options.logoutPort,
            gitHosts: options.gitHosts, maxAge: options.requirements.maxAge, acrValues: options.requirements.acrValues,
            subject: person?.subject, dpop: tokens.dpopKey?.algorithm.rawValue,
            apiBase: options.apiBase?.value)
        profile.clientKey = options.clientKey
        let lock = try context.store.lock(options.profile)
        defer { lock.unlock() }
        try context.store.saveProfile(profile, as: options.profile)
        if let keys { try keys.save(context.store.paths.jwksFile(options.profile)) }
        try context.store.saveTokens(tokens, options.profile, profile: profile, key: key)
        try context.store.clearRefreshFailure(options.profile)  // a new login resets the refresh backoff
        let who = (claims?.displayName ?? person?.displayName).map { " as \($0)" } ?? ""
        context.console.err("Logged in to \(displaySafe(metadata.issuer))\(who) (profile \"\(options.profile)\").")
    }
}

extension LoginOptions {
    /// The client as it authenticates at the token, PAR and device endpoints: its secret or its key.
    func client(
        metadata: ProviderMetadata, method: ClientAuthMethod?, clock: @escaping WallClock
    ) throws(PingCLIError)
        -> ClientCredentials
    {
        ClientCredentials(
            clientID: clientID, secret: clientSecret, method: method,
            assertion: try clientKey.map { key throws(PingCLIError) in try key.load(metadata: metadata, clock: clock) })
    }
}
