/// The token endpoint round trip shared by login and refresh.
enum TokenExchange {
    static func perform(
        _ request: HTTPRequest, transport: any HTTPTransport, clock: WallClock, doing what: String
    )
        throws(PingCLIError) -> TokenSet
    {
        let response: HTTPResponse
        do {
            response = try transport.send(request)
        } catch {
            throw error.asCLIError(doing: what)
        }
        do {
            return try TokenEndpoint.process(response, now: clock())
        } catch {
            throw .failure("\(what) failed: \(error.message)")
        }
    }

    static func validateIDToken(
        _ token: IDToken, issuer: String, clientID: String, nonce: String?, now: Double, previousSubject: String? = nil,
        doing what: String
    ) throws(PingCLIError) -> IDTokenClaims {
        do {
            let claims = try IDTokenClaims.decode(token.value)
            try claims.validate(
                issuer: issuer, clientID: clientID, expectedNonce: nonce, now: now, previousSubject: previousSubject)
            return claims
        } catch {
            throw .failure("\(what) failed: \(error.message)")
        }
    }
}
