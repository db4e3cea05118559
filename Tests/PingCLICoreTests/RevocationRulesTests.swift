import Testing

@testable import PingBase
@testable import PingCrypto
@testable import PingHTTP
@testable import PingOAuth

/// What a 200 from the revocation endpoint did, by the provider's documented rule (`RevocationRules`).
@Suite("revocation rules (RFC 7009 §2.2, PingOne, PingFederate)")
struct RevocationRulesTests {
    /// An unsigned JWT with these claims (the rules read claims only).
    func jwt(_ claims: String) -> String {
        Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + ".c2ln"
    }

    @Test("provider: PingOne by /as + /revoke (also on a custom domain), PingFederate by revoke_token.oauth2, else other")
    func provider() throws {
        let cases: [(String, String, RevocationRules.Provider)] = [
            ("https://auth.pingone.eu/9e8f7a6b/as", "https://auth.pingone.eu/9e8f7a6b/as/revoke", .pingOne),
            ("https://login.example.com/as", "https://login.example.com/as/revoke", .pingOne),
            ("https://sso.example.com", "https://sso.example.com/as/revoke_token.oauth2", .pingFederate),
            ("https://sso.example.com/virtual", "https://sso.example.com/as/revoke_token.oauth2", .pingFederate),
            (
                "https://am.example.com/am/oauth2/realms/root/realms/alpha",
                "https://am.example.com/am/oauth2/realms/root/realms/alpha/token/revoke", .other
            ),
            ("https://idp.example.com/as", "https://idp.example.com/oauth/revoke", .other),
        ]
        for (issuer, endpoint, expected) in cases {
            #expect(RevocationRules.provider(issuer: issuer, revocationEndpoint: try EndpointURL(endpoint)) == expected, "\(endpoint)")
        }
    }

    @Test("PingOne: a token for the PingOne API only is not revoked; one for a custom resource with a sid is")
    func pingOne() throws {
        let api = try #require(RevocationRules.jwtClaims(jwt(#"{"aud":["https://api.pingone.com"],"sid":"s1","exp":1}"#)))
        #expect(
            RevocationRules.pingOneRefusal(accessTokenClaims: api)?.contains("for the PingOne API (aud https://api.pingone.com)") == true)
        let regional = try #require(RevocationRules.jwtClaims(jwt(#"{"aud":"https://api.pingone.com.au","sid":"s1"}"#)))
        #expect(RevocationRules.pingOneRefusal(accessTokenClaims: regional) != nil)
        let custom = try #require(RevocationRules.jwtClaims(jwt(#"{"aud":["https://api.example.com"],"sid":"s1"}"#)))
        #expect(RevocationRules.pingOneRefusal(accessTokenClaims: custom) == nil)
        let noSession = try #require(RevocationRules.jwtClaims(jwt(#"{"aud":["https://api.example.com"]}"#)))
        #expect(RevocationRules.pingOneRefusal(accessTokenClaims: noSession)?.contains("no sid claim") == true)
        let emptySession = try #require(RevocationRules.jwtClaims(jwt(#"{"aud":"https://api.example.com","sid":""}"#)))
        #expect(RevocationRules.pingOneRefusal(accessTokenClaims: emptySession) != nil)
    }

    @Test("a PingOne API look-alike audience is a custom resource")
    func lookAlike() {
        #expect(RevocationRules.isPingOneAPI("https://api.pingone.com"))
        #expect(RevocationRules.isPingOneAPI("https://api.pingone.eu"))
        #expect(!RevocationRules.isPingOneAPI("https://api.pingone.com.evil-1.example"))
        #expect(!RevocationRules.isPingOneAPI("https://api.pingone.com.evil.example"))
        #expect(!RevocationRules.isPingOneAPI("https://api.pingone."))
        #expect(!RevocationRules.isPingOneAPI("https://api.example.com"))
    }

    @Test("an opaque token has no claims; the expiry comes from the token response, else the JWT's exp")
    func opaqueAndExpiry() {
        #expect(RevocationRules.jwtClaims("2YotnFZFEjr1zCsicMWpAA") == nil)
        #expect(RevocationRules.jwtClaims("a.!!!.c") == nil)
        #expect(RevocationRules.until(expiresAt: 0, claims: nil) == "until 1970-01-01T00:00:00Z")
        #expect(RevocationRules.until(expiresAt: nil, claims: ["exp": .number(60)]) == "until 1970-01-01T00:01:00Z")
        #expect(RevocationRules.until(expiresAt: nil, claims: nil) == "until it expires")
    }

    @Test("outcomes: 200 accepted, unsupported_token_type its own case, any other error refused with its text")
    func outcomes() {
        func response(_ status: Int, _ body: String) -> HTTPResponse {
            HTTPResponse(status: status, headers: ["content-type": "application/json"], body: Array(body.utf8))
        }
        #expect(Revocation.process(response(200, "")) == .accepted)
        #expect(Revocation.process(response(400, #"{"error":"unsupported_token_type"}"#)) == .unsupportedTokenType)
        guard case .refused(let reason) = Revocation.process(response(401, #"{"error":"invalid_client"}"#)) else {
            Issue.record("invalid_client must be a refusal")
            return
        }
        #expect(reason.hasPrefix("HTTP 401: invalid_client"))
    }
}
