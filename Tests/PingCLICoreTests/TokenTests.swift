import Testing

@testable import PingCrypto
@testable import PingHTTP
@testable import PingOAuth

/// An unsigned JWT with these claims (signatures are not checked on ID tokens from the token endpoint).
func jwt(_ claims: String) -> String {
    Base64URL.encode(Array("{\"alg\":\"EdDSA\",\"typ\":\"JWT\"}".utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + ".c2ln"
}

@Suite("ID token validation (OIDC Core §3.1.3.7)")
struct IDTokenTests {
    let now = 1_800_000_000.0
    let issuer = "https://auth.pingone.com/env/as"

    func claims(_ extra: String = "", aud: String = "\"cli\"", nonce: String? = "N", exp: Double? = nil, iat: Double? = nil) -> String {
        var fields = [
            "\"iss\":\"\(issuer)\"", "\"sub\":\"user-1\"", "\"aud\":\(aud)", "\"exp\":\(Int(exp ?? now + 3600))",
            "\"iat\":\(Int(iat ?? now))",
        ]
        if let nonce { fields.append("\"nonce\":\"\(nonce)\"") }
        if !extra.isEmpty { fields.append(extra) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    func validate(_ token: String, nonce: String? = "N", previousSubject: String? = nil) throws(IDTokenError) {
        try IDTokenClaims.decode(token).validate(
            issuer: issuer, clientID: "cli", expectedNonce: nonce, now: now, previousSubject: previousSubject)
    }

    @Test("a valid ID token passes and its claims are read")
    func valid() throws {
        try validate(jwt(claims("\"name\":\"Ada\"")))
        #expect(try IDTokenClaims.decode(jwt(claims("\"name\":\"Ada\""))).displayName == "Ada")
    }

    @Test("id-token-not-jwt: not three parts")
    func notThreeParts() {
        #expect(throws: IDTokenError.notThreeParts) { try validate("a.b") }
        let payload = Base64URL.encode(Array(claims().utf8))
        for token in ["e30.\(payload).sig.more", ".\(payload).sig", "e30..sig", "e30\(payload)sig", "", "..", "..."] {
            #expect(throws: IDTokenError.notThreeParts, "\(token)") { try validate(token) }
        }
        // An empty signature is still three parts (the signature is checked elsewhere, against the keys).
        #expect(throws: Never.self) { try IDTokenClaims.decode("e30.\(payload).") }
    }

    @Test("id-token-bad-base64url: a payload outside the alphabet")
    func badBase64() {
        #expect(throws: IDTokenError.badBase64URL) { try validate("eyJ9.#$%.sig") }
    }

    @Test("id-token-wrong-iss")
    func wrongIssuer() {
        let token = jwt(claims().split(separator: issuer, omittingEmptySubsequences: false).joined(separator: "https://evil.example"))
        #expect(throws: IDTokenError.issuerMismatch(received: "https://evil.example")) { try validate(token) }
    }

    @Test("id-token-aud-without-client: our client id missing from aud")
    func wrongAudience() {
        #expect(throws: IDTokenError.audienceMismatch) { try validate(jwt(claims(aud: "\"other\""))) }
    }

    @Test("id-token-multiple-aud-no-azp: several audiences need azp")
    func multipleAudiencesWithoutAzp() {
        #expect(throws: IDTokenError.authorizedPartyMissing) { try validate(jwt(claims(aud: "[\"cli\",\"api\"]"))) }
    }

    @Test("id-token-wrong-azp: azp must be our client id")
    func wrongAzp() {
        #expect(throws: IDTokenError.authorizedPartyMismatch) {
            try validate(jwt(claims("\"azp\":\"api\"", aud: "[\"cli\",\"api\"]")))
        }
        #expect((try? validate(jwt(claims("\"azp\":\"cli\"", aud: "[\"cli\",\"api\"]")))) != nil)
    }

    @Test("id-token-expired: exp in the past beyond the leeway")
    func expired() {
        #expect(throws: IDTokenError.expired) { try validate(jwt(claims(exp: now - 61))) }
        #expect((try? validate(jwt(claims(exp: now - 30)))) != nil)
    }

    @Test("id-token-iat-future: iat beyond the leeway")
    func issuedInFuture() {
        #expect(throws: IDTokenError.issuedInFuture) { try validate(jwt(claims(iat: now + 3600))) }
    }

    @Test("invalid-nonce: a different nonce")
    func wrongNonce() {
        #expect(throws: IDTokenError.nonceMismatch) { try validate(jwt(claims(nonce: "other"))) }
    }

    @Test("missing-nonce: no nonce although one was sent")
    func missingNonce() {
        #expect(throws: IDTokenError.nonceMissing) { try validate(jwt(claims(nonce: nil))) }
    }

    @Test("refreshed-id-token-subject: a refreshed ID token must keep the subject (§12.2)")
    func subjectChanged() {
        #expect(throws: IDTokenError.subjectChanged) { try validate(jwt(claims(nonce: nil)), nonce: nil, previousSubject: "user-2") }
    }

    @Test("id-token-missing-claim: no sub")
    func missingSubject() {
        let token = jwt("{\"iss\":\"\(issuer)\",\"aud\":\"cli\",\"exp\":\(Int(now + 60)),\"iat\":\(Int(now))}")
        #expect(throws: IDTokenError.missingClaim("sub")) { try validate(token, nonce: nil) }
    }
}

@Suite("token endpoint responses (RFC 6749 §5)")
struct TokenResponseTests {
    let now = 1_000.0

    func response(_ body: String, status: Int = 200, type: String = "application/json") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["content-type": type], body: Array(body.utf8))
    }

    @Test("a good response becomes a token set with an absolute expiry")
    func valid() throws {
        let tokens = try TokenEndpoint.process(
            response("{\"access_token\":\"A\",\"token_type\":\"bearer\",\"expires_in\":60,\"refresh_token\":\"R\",\"scope\":\"openid\"}"),
            now: now)
        #expect(
            tokens
                == TokenSet(
                    accessToken: "A", tokenType: "Bearer", expiresAt: 1_060, refreshToken: "R", idToken: nil, scope: "openid",
                    obtainedAt: now))
    }

    @Test("token-missing-access-token")
    func missingAccessToken() {
        #expect(throws: TokenEndpointError.missingAccessToken) {
            try TokenEndpoint.process(response("{\"token_type\":\"Bearer\"}"), now: now)
        }
    }

    @Test("token-type-not-bearer")
    func notBearer() {
        #expect(throws: TokenEndpointError.unsupportedTokenType("mac")) {
            try TokenEndpoint.process(response("{\"access_token\":\"A\",\"token_type\":\"mac\"}"), now: now)
        }
    }

    @Test("token-not-json")
    func notJSON() {
        #expect(throws: TokenEndpointError.notJSON(contentType: "text/plain")) {
            try TokenEndpoint.process(response("access_token=A", type: "text/plain"), now: now)
        }
    }

    @Test("token-500-html: a 500 with an HTML page is reported by status and type")
    func serverErrorPage() {
        #expect(throws: TokenEndpointError.httpStatus(500, contentType: "text/html")) {
            try TokenEndpoint.process(response("<html>oops</html>", status: 500, type: "text/html"), now: now)
        }
    }

    @Test("token-error-object: error, error_description and error_uri are kept")
    func errorObject() {
        let error = #expect(throws: TokenEndpointError.self) {
            try TokenEndpoint.process(
                response("{\"error\":\"invalid_grant\",\"error_description\":\"code used\",\"error_uri\":\"https://e/x\"}", status: 400),
                now: now)
        }
        #expect(
            error
                == .oauthError(
                    status: 400, OAuthErrorResponse(error: "invalid_grant", errorDescription: "code used", errorURI: "https://e/x")))
        #expect(error?.isInvalidGrant == true)
        #expect(error?.message == "the token endpoint refused (HTTP 400): invalid_grant: code used (see https://e/x)")
    }

    @Test(
        "token-expires-in-invalid: zero, negative and absurd lifetimes are refused",
        arguments: ["0", "-5", "999999999999", "\"soon\"", "true"])
    func invalidExpiresIn(value: String) {
        #expect(throws: TokenEndpointError.invalidExpiresIn) {
            try TokenEndpoint.process(response("{\"access_token\":\"A\",\"token_type\":\"Bearer\",\"expires_in\":\(value)}"), now: now)
        }
    }

    @Test("token-expires-in-missing: an unknown lifetime is kept as unknown")
    func missingExpiresIn() throws {
        let tokens = try TokenEndpoint.process(response("{\"access_token\":\"A\",\"token_type\":\"Bearer\"}"), now: now)
        #expect(tokens.expiresAt == nil)
        #expect(tokens.isFresh(now: 1e12, minimumTTL: 30))
    }

    @Test("a refresh keeps the old refresh token and ID token when the server sends none")
    func merging() {
        let old = TokenSet(accessToken: "A", tokenType: "Bearer", expiresAt: 1, refreshToken: "R", idToken: "I", scope: "s", obtainedAt: 0)
        let new = TokenSet(accessToken: "B", tokenType: "Bearer", expiresAt: 2, refreshToken: nil, idToken: nil, scope: nil, obtainedAt: 1)
        #expect(
            old.merging(new)
                == TokenSet(accessToken: "B", tokenType: "Bearer", expiresAt: 2, refreshToken: "R", idToken: "I", scope: "s", obtainedAt: 1)
        )
        var rotated = new
        rotated.refreshToken = "R2"
        #expect(old.merging(rotated).refreshToken == "R2")
    }

    @Test("freshness honours the minimum TTL")
    func freshness() {
        let tokens = TokenSet(
            accessToken: "A", tokenType: "Bearer", expiresAt: 100, refreshToken: nil, idToken: nil, scope: nil, obtainedAt: 0)
        #expect(tokens.isFresh(now: 69, minimumTTL: 30))
        #expect(!tokens.isFresh(now: 70, minimumTTL: 30))
        #expect(!tokens.isExpired(now: 99) && tokens.isExpired(now: 100))
    }
}
