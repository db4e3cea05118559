import Testing

@testable import PingBase
@testable import PingOAuth
@testable import PingRedirect

@Suite("authorization response (RFC 6749 §4.1.2, RFC 9207)")
struct AuthorizationResponseTests {
    let issuer = "https://auth.pingone.com/env/as"

    func validate(_ query: String, required: Bool = true) throws(AuthorizationResponseError) -> String {
        try validateAuthorizationResponse(
            FormEncoding.decode(query)!, expectedState: "S", issuer: issuer, issParameterRequired: required)
    }

    var iss: String { "iss=" + FormEncoding.escape(issuer) }

    @Test("a response with the right iss and state gives its code")
    func valid() throws {
        #expect(try validate("code=C&state=S&\(iss)") == "C")
    }

    @Test("invalid-iss: an iss from another issuer is refused (mix-up, RFC 9207 §2.4)")
    func wrongIssuer() {
        #expect(throws: AuthorizationResponseError.issuerMismatch(received: "https://evil.example")) {
            try validate("code=C&state=S&iss=https%3A%2F%2Fevil.example")
        }
    }

    @Test("missing-iss: no iss when the server advertises authorization_response_iss_parameter_supported")
    func missingIssuer() {
        #expect(throws: AuthorizationResponseError.issuerMissing) { try validate("code=C&state=S") }
        #expect((try? validate("code=C&state=S", required: false)) == "C")
    }

    @Test("iss is checked before state")
    func issuerBeforeState() {
        #expect(throws: AuthorizationResponseError.issuerMismatch(received: "x")) { try validate("code=C&state=wrong&iss=x") }
    }

    @Test("missing-state: a response without state is refused")
    func missingState() {
        #expect(throws: AuthorizationResponseError.stateMissing) { try validate("code=C&\(iss)") }
    }

    @Test("invalid-state: a response with another state is refused")
    func wrongState() {
        #expect(throws: AuthorizationResponseError.stateMismatch) { try validate("code=C&state=T&\(iss)") }
    }

    @Test("error-response: the server's error, description and uri are kept")
    func errorResponse() {
        let expected = OAuthErrorResponse(error: "access_denied", errorDescription: "user said no", errorURI: "https://e/x")
        #expect(throws: AuthorizationResponseError.errorResponse(expected)) {
            try validate("error=access_denied&error_description=user+said+no&error_uri=https%3A%2F%2Fe%2Fx&state=S&\(iss)")
        }
    }

    @Test("missing-code: neither code nor error")
    func missingCode() {
        #expect(throws: AuthorizationResponseError.codeMissing) { try validate("state=S&\(iss)") }
    }

    @Test("repeated-parameter: a repeated code or state is refused (RFC 6749 §3.1)")
    func repeated() {
        #expect(throws: AuthorizationResponseError.repeatedParameter("code")) { try validate("code=C&code=D&state=S&\(iss)") }
    }

    @Test("the authorization URL carries PKCE S256, state, nonce and extra parameters, escaped")
    func authorizationURL() throws {
        let pkce = try #require(PKCE(codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
        let request = AuthorizationRequest(
            clientID: "cli", redirectURI: "http://127.0.0.1:5000/callback", scopes: ["openid", "email"], state: "st",
            nonce: "no", pkce: pkce, extraParameters: [("login_hint", "a+b@example.com")])
        #expect(
            request.url(authorizationEndpoint: "https://a.example/as/authorize")
                == "https://a.example/as/authorize?response_type=code&client_id=cli&redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcallback&scope=openid%20email&state=st&nonce=no&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&login_hint=a%2Bb%40example.com"
        )
        let plainOAuth = AuthorizationRequest(clientID: "c", redirectURI: "r", scopes: ["api"], pkce: pkce)
        #expect(plainOAuth.nonce == nil)
    }
}

@Suite("loopback redirect receiver (RFC 8252 §7.3, §8.3)")
struct RedirectReceiverTests {
    let issuer = "http://127.0.0.1:9/env/as"

    func receiver() -> RedirectReceiver { RedirectReceiver(expectedState: "S", issuer: issuer, issParameterRequired: true) }

    func request(_ target: String, method: String = "GET") -> LoopbackRequest {
        guard case .complete(let parsed) = LoopbackRequest.parse(Array("\(method) \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        else { fatalError("test request did not parse") }
        return parsed
    }

    @Test("stray-favicon: other paths are answered 404 and do not end the login")
    func favicon() {
        let (reply, outcome) = receiver().handle(request("/favicon.ico"))
        #expect(reply.status == 404 && !reply.finishes && outcome == nil)
    }

    @Test("stray-wrong-state: a callback with another state is answered and ignored")
    func wrongState() {
        let (reply, outcome) = receiver().handle(request("/callback?code=C&state=T"))
        #expect(reply.status == 400 && !reply.finishes && outcome == nil)
        #expect(reply.html.contains("does not belong to this sign-in"))
    }

    @Test("stray-forged-error: an error without our state cannot end the login")
    func forgedError() {
        let (reply, outcome) = receiver().handle(request("/callback?error=access_denied&iss=evil"))
        #expect(!reply.finishes && outcome == nil)
    }

    @Test("stray-post: POST and HEAD to the callback are refused without ending the login")
    func otherMethods() {
        for method in ["POST", "HEAD"] {
            let (reply, outcome) = receiver().handle(request("/callback?state=S", method: method))
            #expect(reply.status == 405 && !reply.finishes && outcome == nil)
        }
    }

    @Test("the right callback ends the login with its code and a signed-in page")
    func valid() throws {
        let (reply, outcome) = receiver().handle(
            request("/callback?code=C&state=S&iss=" + FormEncoding.escape(issuer)))
        #expect(reply.status == 200 && reply.finishes && reply.html.contains("Signed in"))
        #expect(try outcome?.get() == "C")
    }

    @Test("access-denied: a bound error ends the login, and the page shows the server's words without their markup")
    func accessDenied() {
        let (reply, outcome) = receiver().handle(
            request("/callback?error=access_denied&error_description=%3Cb%3Eno%3C%2Fb%3E&state=S&iss=" + FormEncoding.escape(issuer)))
        #expect(reply.finishes)
        #expect(
            reply.html.contains("access_denied") && reply.html.contains(" no") && !reply.html.contains("<b>")
                && !reply.html.contains("&lt;b"))
        guard case .failure(let error) = outcome else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.status == .failure && error.message.contains("access_denied: <b>no</b>"))
    }

    @Test("bound-wrong-iss: a callback with our state but another issuer ends the login as a mix-up")
    func mixUp() {
        let (reply, outcome) = receiver().handle(request("/callback?code=C&state=S&iss=https%3A%2F%2Fevil"))
        #expect(reply.finishes)
        if case .failure(let error) = outcome { #expect(error.message.contains("RFC 9207")) } else { Issue.record("expected failure") }
    }
}

@Suite("loopback request parser")
struct LoopbackRequestTests {
    @Test("a GET with a query parses into path and raw query")
    func valid() {
        #expect(
            LoopbackRequest.parse(Array("GET /callback?a=b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
                == .complete(LoopbackRequest(method: "GET", path: "/callback", query: "a=b")))
    }

    @Test("an unfinished head asks for more bytes")
    func incomplete() {
        #expect(LoopbackRequest.parse(Array("GET /callback HTTP/1.1\r\nHost".utf8)) == .incomplete)
    }

    @Test("listener-oversized-head: a head over 8 KiB is refused with 431")
    func oversized() {
        let bytes = Array(("GET /callback?" + String(repeating: "a", count: 9000)).utf8)
        #expect(LoopbackRequest.parse(bytes) == .invalid(status: 431, reason: "request header too large"))
    }

    @Test("listener-non-http: binary junk is refused at once")
    func junk() {
        guard case .invalid(400, _) = LoopbackRequest.parse([0x16, 0x03, 0x01, 0x00]) else {
            Issue.record("expected a 400")
            return
        }
    }

    @Test("listener-absolute-form: absolute-form targets are refused")
    func absoluteForm() {
        guard case .invalid(400, _) = LoopbackRequest.parse(Array("GET http://127.0.0.1/callback HTTP/1.1\r\n\r\n".utf8)) else {
            Issue.record("expected a 400")
            return
        }
    }
}
