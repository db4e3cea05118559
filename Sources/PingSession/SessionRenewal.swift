import PingBase
import PingFlowCore
import PingHTTP
import PingOAuth
import PingState

/// What Ping's SDKs do when a journey's refresh token is gone or refused: the AM session (kept in the
/// encrypted cache since the journey ended) is turned into a new code at the realm's authorize endpoint
/// without asking the person, while AM still accepts it; the session itself is never renewed. The
/// request is the one the sign-in sent (PKCE, `state`, `nonce`, the profile's client, scopes, redirect
/// URI and step-up parameters), and the ID token gets every check a sign-in's gets, for the same person.
extension TokenProvider {
    /// New tokens from the profile's AM session, saved under the lock the caller holds; nil when the
    /// profile has none, or AM no longer accepts it (it is then dropped from the cache, and the caller
    /// says "sign in again").
    package func renewedWithAMSession(_ tokens: TokenSet, profile: Profile) throws(PingCLIError) -> FreshTokens? {
        guard profile.grantType == nil, let session = tokens.amSession, let target = AMSessionTarget(profile) else { return nil }
        let sessionCode = SessionCode(
            realm: target.realm, cookieName: target.cookieName, metadata: profile.metadata,
            redirectURI: SessionCode.redirectURI(port: profile.port))
        var parameters: [FormEncoding.Pair] = []
        if let maxAge = profile.maxAge { parameters.append(("max_age", String(maxAge))) }
        if let values = profile.acrValues { parameters.append(("acr_values", values.joined(separator: " "))) }
        let request = AuthorizationRequest(
            clientID: profile.clientID, redirectURI: sessionCode.redirectURI, scopes: profile.scopes, extraParameters: parameters)
        let transport = context.transports.transport(caFile: profile.caFile, tls: profile.clientTLS, dpop: tokens.dpopKey)
        var code: String
        do {
            code = try sessionCode.code(session: session, request: request, transport: transport)
        } catch .authorization(.sessionNotAccepted) {
            var ended = tokens
            ended.amSession = nil
            ended.amSessionEnds = nil
            try StoreAdvice.worded(context.store.writeTokens(ended, profileName, profile: profile, key: key))
            return nil
        } catch {
            throw SessionCode.failure(error, doing: "renewing the session with the AM session failed")
        }
        defer { code = "" }
        let client = try profile.signing(profile.tokenClient(secret: tokens.clientSecret), clock: context.clock)
        let exchange = TokenEndpoint.authorizationCodeRequest(
            endpoint: profile.metadata.tokenEndpoint, code: code, redirectURI: sessionCode.redirectURI, client: client,
            codeVerifier: request.pkce.codeVerifier)
        let doing = "renewing the session with the AM session"
        var received = try TokenEndpointCall(transport: transport, clock: context.clock, dpop: tokens.dpopKey != nil).obtain(
            exchange, doing: doing)
        try checkIdentity(received, previous: tokens, profile: profile, nonce: request.nonce, transport: transport)
        received.clientSecret = tokens.clientSecret
        received.dpopKey = tokens.dpopKey
        received.amSession = session
        received.amSessionEnds = tokens.amSessionEnds
        try StoreAdvice.worded(context.store.writeTokens(received, profileName, profile: profile, key: key))
        try FileAdvice.worded(try context.store.clearRefreshFailure(profileName))
        return FreshTokens(tokens: received, profile: profile)
    }

    /// The new ID token, as a sign-in's: its signature, `iss`, `aud`, `nonce`, the step-up claims, and
    /// the same person as before (the session is one person's; the tokens must be too).
    private func checkIdentity(
        _ received: TokenSet, previous: TokenSet, profile: Profile, nonce: String?, transport: any HTTPTransport
    ) throws(PingCLIError) {
        guard let idToken = received.idToken else {
            guard !profile.scopes.contains("openid") else {
                throw .failure(
                    "renewing the session with the AM session failed: \(TokenEndpointError.missingIDToken.message)",
                    rule: TokenEndpointError.missingIDToken.rule)
            }
            return
        }
        try IDTokenKeys.verifyAtRefresh(
            idToken, profile: profile, cachePath: context.store.paths.jwksFile(profileName),
            clientSecret: previous.clientSecret?.value, transport: transport, now: context.clock())
        let before = previous.idToken.flatMap { try? IDTokenClaims.decode($0.value) }
        _ = try IDTokenValidation.validateIDToken(
            idToken, issuer: profile.issuer, clientID: profile.clientID, nonce: nonce, now: context.clock(),
            previousSubject: before?.subject ?? profile.subject, requirements: profile.requirements,
            doing: "renewing the session with the AM session")
    }
}
