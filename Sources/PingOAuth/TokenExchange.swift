import PingBase
import PingPlatform

/// The token endpoint round trip shared by login and refresh.
package enum TokenExchange {
    /// `advice`: the next step to add when the endpoint answers with an OAuth error (a sign-in's).
    package static func perform(
        _ request: HTTPRequest, transport: any HTTPTransport, clock: WallClock, doing what: String, dpop: Bool = false,
        advice: ((OAuthErrorResponse) -> String)? = nil
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
            if case .oauthError(_, let oauth) = error, let advice {
                throw .failure("\(what) failed: \(error.message): \(advice(oauth))", rule: error.rule)
            }
            throw .failure("\(what) failed: \(error.message)", rule: error.rule)
        }
    }

    /// `requirements`: what the sign-in asked of the authentication (`max_age`, `acr_values`); `refreshing`
    /// with `originalAuthTime` for an ID token from a refresh (OIDC Core §12.2).
    package static func validateIDToken(
        _ token: IDToken, issuer: String, clientID: String, nonce: String?, now: Double, previousSubject: String? = nil,
        requirements: AuthenticationRequirements = AuthenticationRequirements(), refreshing: Bool = false,
        originalAuthTime: Double? = nil, doing what: String
    ) throws(PingCLIError) -> IDTokenClaims {
        let claims = try validateIdentity(
            token, issuer: issuer, clientID: clientID, nonce: nonce, now: now, previousSubject: previousSubject, doing: what)
        try validateAuthentication(
            claims, requirements: requirements, now: now, refreshing: refreshing, originalAuthTime: originalAuthTime, doing: what)
        return claims
    }

    /// Who the ID token is about and for: `iss`, `aud`/`azp`, `exp`, `iat`, `nonce`, and the subject a
    /// refresh must keep.
    package static func validateIdentity(
        _ token: IDToken, issuer: String, clientID: String, nonce: String?, now: Double, previousSubject: String?, doing what: String
    ) throws(PingCLIError) -> IDTokenClaims {
        do {
            let claims = try IDTokenClaims.decode(token.value)
            try claims.validate(
                issuer: issuer, clientID: clientID, expectedNonce: nonce, now: now, previousSubject: previousSubject)
            return claims
        } catch {
            throw .failure("\(what) failed: \(error.message)", rule: error.rule)
        }
    }

    /// How the person authenticated, against what the sign-in asked (`max_age`, `acr_values`).
    package static func validateAuthentication(
        _ claims: IDTokenClaims, requirements: AuthenticationRequirements, now: Double, refreshing: Bool, originalAuthTime: Double?,
        doing what: String
    ) throws(PingCLIError) {
        do {
            try claims.checkAuthentication(requirements, now: now, refreshing: refreshing, originalAuthTime: originalAuthTime)
        } catch {
            throw .failure(
                "\(what) failed: \(error.message): run pingcli login again (--prompt login asks the provider for a new sign-in)",
                rule: error.rule)
        }
    }
}
