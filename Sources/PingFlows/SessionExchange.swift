import PingBase
import PingOAuth
import PingPlatform
import PingRedirect
import PingState

/// An AM session turned into tokens: the authorization request a browser login sends (PKCE, state,
/// nonce) with the session in the header named after the cookie, or, where AM asks for consent, the
/// consent form's answer (`Cookie`, `csrf`, `decision=allow`); the code read from `Location` without
/// following it and checked as a browser's callback is; the token exchange and the ID token's checks;
/// the session kept beside the tokens, only in the encrypted cache. The session goes only to AM's origin.
struct SessionExchange {
    var options: LoginOptions
    var realm: AMRealm
    var cookieName: AMCookieName
    var metadata: ProviderMetadata
    var methods: (token: ClientAuthMethod?, revocation: ClientAuthMethod?)
    var context: FlowContext
    var key: CommandKey

    /// Where the code is sent: never opened (no listener), only read from the redirect. It must be one
    /// registered for the client; with `--port`, the same one as the browser login's.
    var redirectURI: String { "http://127.0.0.1\(options.port == 0 ? "" : ":\(options.port)")/callback" }

    /// Signs in with `session`, saves, and says so.
    func signIn(session: SSOToken, transport: any HTTPTransport, dpopKey: DPoPKey?) throws(PingCLIError) {
        var (received, nonce) = try tokens(session: session, transport: transport, dpop: dpopKey != nil)
        received.dpopKey = dpopKey
        let completion = SignInCompletion(options: options, metadata: metadata, methods: methods, context: context, key: key)
        var signedIn = try completion.validate(received, nonce: nonce)
        signedIn.tokens.amSession = session
        try completion.save(signedIn)
    }

    /// The code for `session`, exchanged: the tokens (not yet validated) and the nonce sent.
    func tokens(session: SSOToken, transport: any HTTPTransport, dpop: Bool) throws(PingCLIError) -> (tokens: TokenSet, nonce: String?) {
        let endpoint = metadata.authorizationEndpoint
        guard endpoint.origin == realm.origin else {
            throw .failure(
                "the provider's authorization endpoint (\(endpoint.origin)) is not at AM's origin (\(realm.origin)), and the session is sent nowhere else: check --issuer and --authenticate-endpoint",
                rule: .journeySessionOrigin)
        }
        let request = AuthorizationRequest(
            clientID: options.clientID, redirectURI: redirectURI, scopes: options.scopes, extraParameters: options.extraParameters)
        var code: String
        do {
            code = try authorize(
                SessionAuthorization.headerRequest(request, endpoint: endpoint, cookieName: cookieName, session: session), request,
                transport)
        } catch .consentRequired {
            do {
                code = try authorize(
                    SessionAuthorization.consentRequest(request, endpoint: endpoint, cookieName: cookieName, session: session), request,
                    transport)
            } catch {
                throw Self.failure(error)
            }
        } catch {
            throw Self.failure(error)
        }
        defer { code = "" }
        let client = try options.client(metadata: metadata, method: methods.token, clock: context.clock)
        let exchange = TokenEndpoint.authorizationCodeRequest(
            endpoint: metadata.tokenEndpoint, code: code, redirectURI: redirectURI, client: client, codeVerifier: request.pkce.codeVerifier)
        let tokens = try TokenExchange.perform(exchange, transport: transport, clock: context.clock, doing: "login", dpop: dpop)
        return (tokens, request.nonce)
    }

    private func authorize(
        _ httpRequest: HTTPRequest, _ request: AuthorizationRequest, _ transport: any HTTPTransport
    ) throws(SessionAuthorizationError) -> String {
        let response: HTTPResponse
        do {
            response = try transport.send(httpRequest)
        } catch {
            throw .httpStatus(0)
        }
        return try SessionAuthorization.process(
            response, redirectURI: redirectURI, expectedState: request.state, issuer: metadata.issuer,
            issParameterRequired: metadata.authorizationResponseIssParameterSupported == true)
    }

    static func failure(_ error: SessionAuthorizationError) -> PingCLIError {
        switch error {
        case .authorization(let rule): .failure("login failed: \(rule.message)", rule: rule.rule)
        case .sessionNotAccepted: .loginRequired("login failed: \(error.message): run pingcli login again", rule: error.rule)
        case .httpStatus(0):
            .unreachable("login failed: AM's authorize endpoint could not be reached: check the network and try again", rule: error.rule)
        default: .failure("login failed: \(error.message)", rule: error.rule)
        }
    }
}
