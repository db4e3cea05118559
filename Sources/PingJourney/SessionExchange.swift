import PingAM
import PingBase
import PingFlowCore
import PingHTTP
import PingOAuth
import PingSession
import PingSignIn
import PingState

/// An AM session turned into tokens: the authorization request a browser login sends (PKCE, state,
/// nonce) with the session in the header named after the cookie, or, where AM asks for consent, the
/// consent form's answer (`Cookie`, `csrf`, `decision=allow`); the code read from `Location` without
/// following it and checked as a browser's callback is; the token exchange and the ID token's checks;
/// the session kept beside the tokens, only in the encrypted cache. The session goes only to AM's origin.
package struct SessionExchange {
    package var signIn: SignIn
    package var realm: AMRealm
    package var cookieName: AMCookieName
    /// The OTP account that answered the journey's code prompts (or was registered), kept with the profile.
    package var otpAccount: String?
    package var metadata: ProviderMetadata
    package var methods: (token: ClientAuthMethod?, revocation: ClientAuthMethod?)
    package var context: SessionContext
    package var key: CommandKey

    package var sessionCode: SessionCode {
        SessionCode(
            realm: realm, cookieName: cookieName, metadata: metadata, redirectURI: SessionCode.redirectURI(port: signIn.port))
    }

    /// Signs in with `session`, saves, and says so.
    /// Nothing kept (the exchange, the ID token's checks or the save failed): the session is ended at AM.
    package func signIn(session: SSOToken, transport: any HTTPTransport, dpopKey: DPoPKey?) throws(PingCLIError) {
        do {
            var (received, nonce) = try tokens(session: session, transport: transport, dpop: dpopKey != nil)
            received.dpopKey = dpopKey
            let completion = SignInCompletion(signIn: signIn, metadata: metadata, methods: methods, context: context, key: key)
            var signedIn = try completion.validate(received, nonce: nonce)
            signedIn.tokens.amSession = session
            signedIn.tokens.amSessionEnds = sessionEnds(session, transport: transport)
            signedIn.journey = JourneyRecord(
                tree: signIn.journey?.tree?.name ?? signIn.journey?.savedTree, cookieName: cookieName,
                authenticateEndpoint: signIn.journey?.authenticateEndpoint, otpAccount: otpAccount)
            signedIn.journey?.webAuthnOrigin = signIn.journey?.webAuthnOrigin
            try completion.save(signedIn)
        } catch {
            throw endOrphan(session, transport: transport, after: error)
        }
    }

    /// When AM ends `session` at the latest, as its session information says; nil when AM does not say (a
    /// refused or failed request only leaves the session's length unknown: `status` then says so).
    func sessionEnds(_ session: SSOToken, transport: any HTTPTransport) -> Double? {
        let request = AMServerInfo.sessionInfoRequest(realm, cookieName: cookieName, session: session)
        return (try? transport.send(request)).flatMap(AMServerInfo.sessionTimes)?.maxSessionExpiry
    }

    /// The code for `session`, exchanged: the tokens (not yet validated) and the nonce sent.
    package func tokens(
        session: SSOToken, transport: any HTTPTransport, dpop: Bool
    ) throws(PingCLIError) -> (tokens: TokenSet, nonce: String?) {
        let sessionCode = sessionCode
        let request = AuthorizationRequest(
            clientID: signIn.clientID, redirectURI: sessionCode.redirectURI, scopes: signIn.scopes,
            extraParameters: signIn.extraParameters)
        var code: String
        do {
            code = try sessionCode.code(session: session, request: request, transport: transport)
        } catch {
            throw SessionCode.failure(error, doing: "login failed")
        }
        defer { code = "" }
        let client = try signIn.client(metadata: metadata, method: methods.token, clock: context.clock)
        let exchange = TokenEndpoint.authorizationCodeRequest(
            endpoint: metadata.tokenEndpoint, code: code, redirectURI: sessionCode.redirectURI, client: client,
            codeVerifier: request.pkce.codeVerifier)
        let tokens = try TokenEndpointCall(transport: transport, clock: context.clock, dpop: dpop).obtain(exchange, doing: "login")
        return (tokens, request.nonce)
    }
}
