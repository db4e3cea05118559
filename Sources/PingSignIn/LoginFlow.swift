import PingBase
import PingFlowCore
import PingHTTP
import PingOAuth
import PingRedirect
import PingSession
import PingState

/// The authorization code flow for native apps ([RFC 8252](https://www.rfc-editor.org/rfc/rfc8252)):
/// discovery, a loopback listener opened before the browser, PKCE S256, state and nonce, the code
/// exchange, ID token validation, and an encrypted save.
public struct LoginFlow {
    public let signIn: SignIn
    public let context: SignInContext
    package let key: CommandKey

    /// `key`: the command's key, when the caller has already used it (so a key command runs once).
    public init(signIn: SignIn, context: SignInContext, key: CommandKey? = nil) {
        self.signIn = signIn
        self.context = context
        self.key = key ?? context.session.store.commandKey()
    }

    /// Opens the listener, sends the browser to the provider, and signs in with what comes back.
    public func run() throws(PingCLIError) {
        let start = try self.start()
        let listener = try LoopbackListener.forLogin(port: signIn.port)
        // RFC 9449 §10: dpop_jkt binds the authorization code to the key, in the browser's request and in PAR.
        let request = AuthorizationRequest(
            clientID: signIn.clientID, redirectURI: "http://127.0.0.1:\(listener.port)/callback", scopes: signIn.scopes,
            extraParameters: signIn.extraParameters + (start.dpopKey.map { [("dpop_jkt", $0.thumbprint)] } ?? []))
        let url = try authorizationURL(request, metadata: start.metadata, client: start.client, transport: start.transport)
        let completion = SignInCompletion(
            signIn: signIn, metadata: start.metadata, methods: start.methods, context: context.session, key: key)

        // 1. Wait for the authorization response: strays are answered and ignored, ours ends the wait
        // with the browser's tab left open for the page that says how it went.
        let (response, tab) = try authorizationResponse(request, url: url, metadata: start.metadata, listener: listener)
        let code: String
        switch response.result {
        case .success(let value): code = value
        case .failure(let error):
            tab?.answer(response.reply)
            throw SignInAdvice.afterRefusal(error)
        }

        // 2. Exchange the code (RFC 6749 §4.1.3, with the PKCE verifier) and validate the ID token.
        let signedIn = Result { () throws(PingCLIError) -> SignInCompletion.SignedIn in
            let exchange = TokenEndpoint.authorizationCodeRequest(
                endpoint: start.metadata.tokenEndpoint, code: code, redirectURI: request.redirectURI, client: start.client,
                codeVerifier: request.pkce.codeVerifier)
            var tokens = try TokenEndpointCall(transport: start.transport, clock: context.session.clock, dpop: start.dpopKey != nil).obtain(
                exchange, doing: "login",
                advice: { SignInAdvice.after($0, clientID: signIn.clientID, confidential: start.client.isConfidential) })
            tokens.dpopKey = start.dpopKey
            return try completion.validate(tokens, nonce: request.nonce)
        }

        // 3. Answer the browser: who signed in, or why it failed after all.
        switch signedIn {
        case .success(let done):
            var page = response.reply
            page.html = RedirectPage.signedIn(
                profile: signIn.profile.value, provider: signIn.issuer.value, account: done.displayName)
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
        let console = context.session.console
        let receiver = RedirectReceiver(
            expectedState: request.state, issuer: metadata.issuer,
            issParameterRequired: metadata.authorizationResponseIssParameterSupported == true)
        let hint =
            "pingcli: nothing has come back from the browser after \(Int(signIn.hintAfter)) s. If it shows an error page from the provider, the likely causes are a wrong client id (\(displaySafe(signIn.clientID, limit: 80))) or the redirect URI \(request.redirectURI) not registered for it (a provider that matches ports exactly needs that URI, and --port \(listener.port) on every login); otherwise keep waiting"
        let roundTrip = context.browsing.roundTrip(
            console: console, waits: context.waits, openBrowser: signIn.openBrowser, timeout: signIn.timeout,
            hint: signIn.openBrowser ? (signIn.hintAfter, { reached in reached ? nil : hint }) : nil)
        let arrival = roundTrip.wait(url: url, purpose: "sign in to \(signIn.issuer.value)", listener: listener) {
            httpRequest, pasted -> BrowserRoundTrip.Step<RedirectReceiver.Arrival> in
            let (reply, result) = receiver.handle(httpRequest)
            if let result { return .arrived(RedirectReceiver.Arrival(result: result, reply: reply)) }
            if !reply.finishes, let note = receiver.lastIgnoredReason {
                roundTrip.noteIgnored(note, pasted: pasted, pasteAdvice: "paste the address this sign-in's browser tab ended on")
            }
            return .answer(reply)
        }
        guard case .arrived(let response, let tab) = arrival else {
            throw .failure(
                "no sign-in arrived within \(Int(signIn.timeout)) s: run pingcli login again (--timeout sets how long to wait)",
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
        guard let endpoint = metadata.pushedAuthorizationRequestEndpoint, signIn.pushedAuthorization else {
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
        let response = try transport.send(
            request.pushRequest(endpoint: endpoint, client: client), doing: "the pushed authorization request", endpoint: "PAR",
            url: endpoint.value)
        do {
            let pushed = try PushedAuthorization.process(response)
            return request.url(authorizationEndpoint: metadata.authorizationEndpoint, requestURI: pushed.requestURI)
        } catch {
            // A refused client is the client's fault, not PAR's: --no-par would only move the refusal.
            if case .oauthError(_, let oauth) = error {
                throw .failure(
                    "login failed: \(error.message): \(SignInAdvice.after(oauth, clientID: signIn.clientID, confidential: client.isConfidential))",
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
    /// The start of a person's sign-in, browser or device code (`SessionContext.discoverForLogin`), and the
    /// client it makes.
    package func start() throws(PingCLIError) -> LoginStart {
        let (transport, metadata, methods, dpopKey) = try context.session.discoverForLogin(signIn, key: key)
        let client = try signIn.client(metadata: metadata, method: methods.token, clock: context.session.clock)
        return LoginStart(transport: transport, metadata: metadata, methods: methods, dpopKey: dpopKey, client: client)
    }
}
