import PingBase
import PingOAuth
import PingPlatform
import PingRedirect
import PingState

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
    /// `--client-cert`, `--client-key` and `--pin` (RFC 8705 mutual TLS, key pinning).
    public var tls = LoginTLS()
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
    /// The profile's session at another issuer that this login replaces (`login --force`, or confirmed
    /// on a terminal): revoked once the new one is saved (`FlowContext.saveSession`).
    public var replacing: Profile? = nil
    /// `--token-endpoint URL` and the like (or the profile's saved ones): over discovery, or instead of it.
    public var endpoints = EndpointOverrides()
    /// `--journey TREE` (or the profile's saved tree): a PingAM journey in the terminal, no browser.
    public var journey: JourneyOptions? = nil

    package init(
        profile: ProfileName, issuer: IssuerURL, clientID: String, scopes: [String], port: UInt16, logoutPort: UInt16? = nil,
        gitHosts: [GitHost]? = nil, openBrowser: Bool, timeout: Double, extraParameters: [FormEncoding.Pair], caFile: String? = nil,
        clientSecret: ClientSecret? = nil, clientKey: ClientKeyOptions? = nil, pushedAuthorization: Bool = true, tls: LoginTLS = LoginTLS(),
        hintAfter: Double = 20, qrCode: Bool = false, requirements: AuthenticationRequirements = AuthenticationRequirements(),
        dpop: DPoPRequest? = nil, apiBase: EndpointURL? = nil, replacing: Profile? = nil, endpoints: EndpointOverrides = EndpointOverrides()
    ) {
        self.profile = profile
        self.issuer = issuer
        self.clientID = clientID
        self.scopes = scopes
        self.port = port
        self.logoutPort = logoutPort
        self.gitHosts = gitHosts
        self.openBrowser = openBrowser
        self.timeout = timeout
        self.extraParameters = extraParameters
        self.caFile = caFile
        self.clientSecret = clientSecret
        self.clientKey = clientKey
        self.pushedAuthorization = pushedAuthorization
        self.tls = tls
        self.hintAfter = hintAfter
        self.qrCode = qrCode
        self.requirements = requirements
        self.dpop = dpop
        self.apiBase = apiBase
        self.replacing = replacing
        self.endpoints = endpoints
    }
}

/// The authorization code flow for native apps ([RFC 8252](https://www.rfc-editor.org/rfc/rfc8252)):
/// discovery, a loopback listener opened before the browser, PKCE S256, state and nonce, the code
/// exchange, ID token validation, and an encrypted save.
public struct LoginFlow {
    public let options: LoginOptions
    public let context: FlowContext
    package let key: CommandKey

    /// `key`: the command's key, when the caller has already used it (so a key command runs once).
    public init(options: LoginOptions, context: FlowContext, key: CommandKey? = nil) {
        self.options = options
        self.context = context
        self.key = key ?? context.store.commandKey()
    }

    /// Opens the listener, sends the browser to the provider, and signs in with what comes back.
    public func run() throws(PingCLIError) {
        let start = try self.start()
        let listener = try LoopbackListener.forLogin(port: options.port)
        // RFC 9449 §10: dpop_jkt binds the authorization code to the key, in the browser's request and in PAR.
        let request = AuthorizationRequest(
            clientID: options.clientID, redirectURI: "http://127.0.0.1:\(listener.port)/callback", scopes: options.scopes,
            extraParameters: options.extraParameters + (start.dpopKey.map { [("dpop_jkt", $0.thumbprint)] } ?? []))
        let url = try authorizationURL(request, metadata: start.metadata, client: start.client, transport: start.transport)
        let completion = SignInCompletion(options: options, metadata: start.metadata, methods: start.methods, context: context, key: key)

        // 1. Wait for the authorization response: strays are answered and ignored, ours ends the wait
        // with the browser's tab left open for the page that says how it went.
        let (response, tab) = try authorizationResponse(request, url: url, metadata: start.metadata, listener: listener)
        let code: String
        switch response.result {
        case .success(let value): code = value
        case .failure(let error):
            tab?.answer(response.reply)
            throw error
        }

        // 2. Exchange the code (RFC 6749 §4.1.3, with the PKCE verifier) and validate the ID token.
        let signedIn = Result { () throws(PingCLIError) -> SignInCompletion.SignedIn in
            let exchange = TokenEndpoint.authorizationCodeRequest(
                endpoint: start.metadata.tokenEndpoint, code: code, redirectURI: request.redirectURI, client: start.client,
                codeVerifier: request.pkce.codeVerifier)
            var tokens = try TokenEndpointCall(transport: start.transport, clock: context.clock, dpop: start.dpopKey != nil).obtain(
                exchange, doing: "login",
                advice: { SignInAdvice.after($0, clientID: options.clientID, confidential: start.client.isConfidential) })
            tokens.dpopKey = start.dpopKey
            return try completion.validate(tokens, nonce: request.nonce)
        }

        // 3. Answer the browser: who signed in, or why it failed after all.
        switch signedIn {
        case .success(let done):
            var page = response.reply
            page.html = RedirectPage.signedIn(
                profile: options.profile.value, provider: options.issuer.value, account: done.displayName)
            tab?.answer(page)
        case .failure(let error):
            tab?.answer(LoopbackReply(status: 400, html: RedirectPage.failed(error.message), finishes: true))
        }

        // 4. Save.
        try completion.save(try signedIn.get())
    }

    /// Waits for the authorization response at `listener` (or pasted): each stray is answered and named
    /// on stderr, ours ends the wait, with the browser's tab held for the page that says how it went.
    private func authorizationResponse(
        _ request: AuthorizationRequest, url: String, metadata: ProviderMetadata, listener: LoopbackListener
    ) throws(PingCLIError) -> (RedirectReceiver.Arrival, tab: HeldConnection?) {
        let console = context.console
        let receiver = RedirectReceiver(
            expectedState: request.state, issuer: metadata.issuer,
            issParameterRequired: metadata.authorizationResponseIssParameterSupported == true)
        let hint =
            "pingcli: nothing has come back from the browser after \(Int(options.hintAfter)) s. If it shows an error page from the provider, the likely causes are a wrong client id (\(displaySafe(options.clientID, limit: 80))) or the redirect URI \(request.redirectURI) not registered for it (a provider that matches ports exactly needs that URI, and --port \(listener.port) on every login); otherwise keep waiting"
        var roundTrip = BrowserRoundTrip(
            console: console, browser: context.browser, openBrowser: options.openBrowser, timeout: options.timeout,
            pasteInput: context.input, hint: options.openBrowser ? (options.hintAfter, { reached in reached ? nil : hint }) : nil)
        roundTrip.clock = context.waitClock
        roundTrip.pasteIsTerminal = context.inputIsTerminal
        roundTrip.verbose = context.verbose
        let arrival = roundTrip.wait(url: url, purpose: "sign in to \(options.issuer.value)", listener: listener) {
            httpRequest, pasted -> BrowserRoundTrip.Step<RedirectReceiver.Arrival> in
            let (reply, result) = receiver.handle(httpRequest)
            if let result { return .arrived(RedirectReceiver.Arrival(result: result, reply: reply)) }
            if !reply.finishes, let note = receiver.lastIgnoredReason {
                console.err(
                    pasted
                        ? "pingcli: the pasted address was not accepted: \(note): paste the address this sign-in's browser tab ended on"
                        : "pingcli: ignored a request to the loopback listener: \(note)")
            }
            return .answer(reply)
        }
        guard case .arrived(let response, let tab) = arrival else {
            throw .failure(
                "no sign-in arrived within \(Int(options.timeout)) s: run pingcli login again (--timeout sets how long to wait)",
                rule: .loginTimeout)
        }
        return (response, tab)
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
                    "the provider requires pushed authorization requests but has no pushed_authorization_request_endpoint: the provider is misconfigured",
                    rule: .parRequired)
            }
            if required {
                throw .usage("the provider requires pushed authorization requests (RFC 9126): leave out --no-par", rule: .parRequired)
            }
            return request.url(authorizationEndpoint: metadata.authorizationEndpoint)
        }
        let response: HTTPResponse
        do {
            response = try transport.send(request.pushRequest(endpoint: endpoint, client: client))
        } catch {
            throw error.asCLIError(doing: "the pushed authorization request", endpoint: "PAR", url: endpoint.value)
        }
        do {
            let pushed = try PushedAuthorization.process(response)
            return request.url(authorizationEndpoint: metadata.authorizationEndpoint, requestURI: pushed.requestURI)
        } catch {
            // A refused client is the client's fault, not PAR's: --no-par would only move the refusal.
            if case .oauthError(_, let oauth) = error {
                throw .failure(
                    "login failed: \(error.message): \(SignInAdvice.after(oauth, clientID: options.clientID, confidential: client.isConfidential))",
                    rule: error.rule)
            }
            throw .failure(
                "login failed: \(error.message)\(required ? "" : " (--no-par sends the request through the browser instead)")",
                rule: error.rule)
        }
    }
}

/// What a person's sign-in (browser or device code) has before anyone is asked: the provider's
/// metadata, the client authentication it allows, the transport (signing DPoP proofs with `dpopKey`),
/// and the client as it authenticates.
package struct LoginStart {
    package let transport: any HTTPTransport
    package let metadata: ProviderMetadata
    package let methods: (token: ClientAuthMethod?, revocation: ClientAuthMethod?)
    package let dpopKey: DPoPKey?
    package let client: ClientCredentials
}

extension LoginFlow {
    /// The start of a person's sign-in, browser or device code (`FlowContext.discoverForLogin`), and the
    /// client it makes.
    package func start() throws(PingCLIError) -> LoginStart {
        let (transport, metadata, methods, dpopKey) = try context.discoverForLogin(options, key: key)
        let client = try options.client(metadata: metadata, method: methods.token, clock: context.clock)
        return LoginStart(transport: transport, metadata: metadata, methods: methods, dpopKey: dpopKey, client: client)
    }
}

extension LoginOptions {
    /// The client as it authenticates at the token, PAR and device endpoints: its secret or its key.
    package func client(
        metadata: ProviderMetadata, method: ClientAuthMethod?, clock: @escaping WallClock
    ) throws(PingCLIError)
        -> ClientCredentials
    {
        ClientCredentials(
            clientID: clientID, secret: clientSecret, method: method,
            assertion: try clientKey.map { key throws(PingCLIError) in try key.load(metadata: metadata, clock: clock) })
    }
}
