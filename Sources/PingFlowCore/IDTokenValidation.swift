import PingBase
import PingOAuth

/// The ID token's checks after a token response, each failure worded as one line with the next step
/// (OIDC Core §3.1.3.7, §12.2; the claims' rules themselves are `IDTokenClaims`', in PingOAuth).
package enum IDTokenValidation {
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
