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

    var sessionCode: SessionCode {
        SessionCode(
            realm: realm, cookieName: cookieName, metadata: metadata, redirectURI: SessionCode.redirectURI(port: options.port))
    }

    /// Signs in with `session`, saves, and says so.
    /// Nothing kept (the exchange, the ID token's checks or the save failed): the session is ended at AM.
    func signIn(session: SSOToken, transport: any HTTPTransport, dpopKey: DPoPKey?) throws(PingCLIError) {
        do {
            var (received, nonce) = try tokens(session: session, transport: transport, dpop: dpopKey != nil)
            received.dpopKey = dpopKey
            let completion = SignInCompletion(options: options, metadata: metadata, methods: methods, context: context, key: key)
            var signedIn = try completion.validate(received, nonce: nonce)
            signedIn.tokens.amSession = session
            try completion.save(signedIn)
        } catch {
            throw endOrphan(session, transport: transport, after: error)
        }
    }

    /// The code for `session`, exchanged: the tokens (not yet validated) and the nonce sent.
    func tokens(session: SSOToken, transport: any HTTPTransport, dpop: Bool) throws(PingCLIError) -> (tokens: TokenSet, nonce: String?) {
        let sessionCode = sessionCode
        let request = AuthorizationRequest(
            clientID: options.clientID, redirectURI: sessionCode.redirectURI, scopes: options.scopes,
            extraParameters: options.extraParameters)
        var code: String
        do {
            code = try sessionCode.code(session: session, request: request, transport: transport)
        } catch {
            throw SessionCode.failure(error, doing: "login failed")
        }
        defer { code = "" }
        let client = try options.client(metadata: metadata, method: methods.token, clock: context.clock)
        let exchange = TokenEndpoint.authorizationCodeRequest(
            endpoint: metadata.tokenEndpoint, code: code, redirectURI: sessionCode.redirectURI, client: client,
            codeVerifier: request.pkce.codeVerifier)
        let tokens = try TokenEndpointCall(transport: transport, clock: context.clock, dpop: dpop).obtain(exchange, doing: "login")
        return (tokens, request.nonce)
    }
}

/// The code for an AM session at the realm's authorize endpoint, as a journey's sign-in and the
/// session's reuse (when the refresh token is gone) both get it: only at AM's origin, the header form
/// first, the consent form's answer where AM shows a consent page.
struct SessionCode {
    var realm: AMRealm
    var cookieName: AMCookieName
    var metadata: ProviderMetadata
    /// Where the code is sent: never opened (no listener), only read from the redirect. It must be one
    /// registered for the client; with `--port`, the same one as the browser login's.
    var redirectURI: String

    static func redirectURI(port: UInt16?) -> String { "http://127.0.0.1\(port.map { $0 == 0 ? "" : ":\($0)" } ?? "")/callback" }

    /// Why no code came: the session refused or the redirect broken (`authorization`), or the session
    /// would have gone to another origin than AM's.
    enum Failure: Error {
        case authorization(SessionAuthorizationError)
        case otherOrigin(PingCLIError)
    }

    func code(session: SSOToken, request: AuthorizationRequest, transport: any HTTPTransport) throws(Failure) -> String {
        let endpoint = metadata.authorizationEndpoint
        guard endpoint.origin == realm.origin else {
            throw .otherOrigin(
                .failure(
                    "the provider's authorization endpoint (\(endpoint.origin)) is not at AM's origin (\(realm.origin)), and the session is sent nowhere else: check --issuer and --authenticate-endpoint",
                    rule: .journeySessionOrigin))
        }
        do {
            do {
                return try authorize(
                    SessionAuthorization.headerRequest(request, endpoint: endpoint, cookieName: cookieName, session: session), request,
                    transport)
            } catch .consentRequired {
                return try authorize(
                    SessionAuthorization.consentRequest(request, endpoint: endpoint, cookieName: cookieName, session: session), request,
                    transport)
            }
        } catch {
            throw .authorization(error)
        }
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

    /// `failure` worded for the person; `doing` begins it ("login failed").
    static func failure(_ failure: Failure, doing: String) -> PingCLIError {
        switch failure {
        case .otherOrigin(let refused): return refused
        case .authorization(.authorization(let rule)): return .failure("\(doing): \(rule.message)", rule: rule.rule)
        case .authorization(let error) where error == .sessionNotAccepted:
            return .loginRequired("\(doing): \(error.message): run pingcli login again", rule: error.rule)
        case .authorization(let error) where error == .httpStatus(0):
            return .unreachable("\(doing): AM's authorize endpoint could not be reached: check the network and try again", rule: error.rule)
        case .authorization(let error): return .failure("\(doing): \(error.message)", rule: error.rule)
        }
    }
}
