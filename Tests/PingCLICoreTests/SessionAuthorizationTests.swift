import Testing

@testable import PingAM
@testable import PingBase
@testable import PingHTTP
@testable import PingOAuth

/// The session turned into a code: both request forms, and the redirect's `Location` judged as a
/// browser's callback is (state, iss, error, code), never followed.
@Suite("journeys: session to authorization code")
struct SessionAuthorizationTests {
    let endpoint: EndpointURL = "https://t.example/am/oauth2/realms/root/realms/alpha/authorize"
    let issuer = "https://t.example/am/oauth2/realms/root/realms/alpha"
    let redirect = "http://127.0.0.1/callback"
    let cookie = AMCookieName("46b42b4229cd7a3")!
    let session = SSOToken(unchecked: "AQIC5w.*AAJTSQ.*")

    var request: AuthorizationRequest {
        AuthorizationRequest(clientID: "cli", redirectURI: redirect, scopes: ["openid", "profile"], state: "st", nonce: "no")
    }

    func redirectTo(_ location: String, status: Int = 302) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["location": location])
    }

    func code(_ response: HTTPResponse, iss: Bool = false) throws(SessionAuthorizationError) -> String {
        try SessionAuthorization.process(response, redirectURI: redirect, expectedState: "st", issuer: issuer, issParameterRequired: iss)
    }

    @Test(
        "journey-session-code: the header form is the browser's request plus the cookie-named header; the form adds csrf and decision=allow"
    )
    func requests() throws {
        let header = SessionAuthorization.headerRequest(request, endpoint: endpoint, cookieName: cookie, session: session)
        #expect(header.method == .get && header.body == nil)
        #expect(header.url.hasPrefix(endpoint.value + "?response_type=code&client_id=cli&redirect_uri="))
        for part in ["state=st", "nonce=no", "code_challenge=", "code_challenge_method=S256", "scope=openid%20profile"] {
            #expect(header.url.contains(part), "\(part)")
        }
        #expect(header.headers.contains { $0.name == "46b42b4229cd7a3" && $0.value == session.value })
        #expect(!header.url.contains("AQIC") && !header.headers.contains { $0.name == "Cookie" })
        let form = SessionAuthorization.consentRequest(request, endpoint: endpoint, cookieName: cookie, session: session)
        #expect(form.method == .post && form.url == endpoint.value)
        #expect(form.headers.contains { $0.name == "Cookie" && $0.value == "46b42b4229cd7a3=AQIC5w.*AAJTSQ.*" })
        let body = try #require(form.body)
        let fields = try #require(FormEncoding.decode(String(decoding: body, as: UTF8.self)))
        #expect(fields.contains { $0 == ("csrf", session.value) } && fields.contains { $0 == ("decision", "allow") })
        #expect(fields.contains { $0 == ("state", "st") } && fields.contains { $0.name == "code_challenge" })
    }

    @Test("journey-session-code: the code comes from the Location's query when state (and iss) match")
    func code() throws {
        #expect(try code(redirectTo(redirect + "?code=abc&state=st&iss=" + FormEncoding.escape(issuer))) == "abc")
        #expect(try code(redirectTo(redirect + "?code=abc&state=st"), iss: false) == "abc")
        #expect(try code(redirectTo(redirect + "?code=abc&state=st&iss=" + FormEncoding.escape(issuer)), iss: true) == "abc")
    }

    @Test("journey-session-code-invalid-state, -invalid-iss, -missing-iss, error-response: the checks a browser's callback gets")
    func refused() {
        #expect(throws: SessionAuthorizationError.authorization(.stateMismatch)) {
            try code(redirectTo(redirect + "?code=abc&state=other"))
        }
        #expect(throws: SessionAuthorizationError.authorization(.stateMissing)) { try code(redirectTo(redirect + "?code=abc")) }
        #expect(throws: SessionAuthorizationError.authorization(.stateMissing)) { try code(redirectTo(redirect)) }
        #expect(throws: SessionAuthorizationError.authorization(.issuerMismatch(received: "https://evil.example"))) {
            try code(redirectTo(redirect + "?code=abc&state=st&iss=https%3A%2F%2Fevil.example"))
        }
        #expect(throws: SessionAuthorizationError.authorization(.issuerMissing)) {
            try code(redirectTo(redirect + "?code=abc&state=st"), iss: true)
        }
        #expect(throws: SessionAuthorizationError.authorization(.errorResponse(OAuthErrorResponse(error: "access_denied")))) {
            try code(redirectTo(redirect + "?error=access_denied&state=st"))
        }
    }

    @Test("journey-consent-required, journey-session-not-accepted: a page, a redirect to sign in, a missing Location")
    func notACode() {
        #expect(throws: SessionAuthorizationError.consentRequired) {
            try code(HTTPResponse(status: 200, headers: ["content-type": "text/html"]))
        }
        #expect(throws: SessionAuthorizationError.sessionNotAccepted) {
            try code(redirectTo("https://t.example/am/XUI/?realm=/alpha&goto=x&code=abc&state=st"))
        }
        #expect(throws: SessionAuthorizationError.sessionNotAccepted) {
            try code(redirectTo("http://127.0.0.1:8080/callback?code=abc&state=st"))
        }
        #expect(throws: SessionAuthorizationError.noLocation) { try code(HTTPResponse(status: 302)) }
        #expect(throws: SessionAuthorizationError.httpStatus(400)) { try code(HTTPResponse(status: 400)) }
        #expect(SessionAuthorizationError.consentRequired.message.contains("implied consent"))
    }
}
