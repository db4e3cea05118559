/// The token endpoint round trip shared by login and refresh.
enum TokenExchange {
    static func perform(
        _ request: HTTPRequest, transport: any HTTPTransport, clock: WallClock, doing what: String, dpop: Bool = false
    )
        throws(PingCLIError) -> TokenSet
    {
        let response: HTTPResponse
        do {
            response = try transport.send(request)
        } catch {
            throw error.asCLIError(doing: what, endpoint: "token", url: request.url)
        }
        do {
            return try TokenEndpoint.process(response, now: clock(), dpop: dpop)
        } catch {
            throw .failure("\(what) failed: \(error.message)", rule: error.rule)
        }
    }

    /// `requirements`: what the sign-in asked of the authentication (`max_age`, `acr_values`); `refreshing`
    /// with `originalAuthTime` for an ID token from a refresh (OIDC Core §12.2).
    static func validateIDToken(
        _ token: IDToken, issuer: String, clientID: String, nonce: String?, now: Double, previousSubject: String? = nil,
        requirements: AuthenticationRequirements = AuthenticationRequirements(), refreshing: Bool = false,
        originalAuthTime: Double? = nil, doing what: String
    ) throws(PingCLIError) -> IDTokenClaims {
        let claims: IDTokenClaims
        do {
            claims = try IDTokenClaims.decode(token.value)
            try claims.validate(
                issuer: issuer, clientID: clientID, expectedNonce: nonce, now: now, previousSubject: previousSubject)
        } catch {
            throw .failure("\(what) failed: \(error.message)", rule: error.rule)
        }
        do {
            try claims.checkAuthentication(requirements, now: now, refreshing: refreshing, originalAuthTime: originalAuthTime)
        } catch {
            throw .failure(
                "\(what) failed: \(error.message): run pingcli login again (--prompt login asks the provider for a new sign-in)",
                rule: error.rule)
        }
        return claims
    }
}
