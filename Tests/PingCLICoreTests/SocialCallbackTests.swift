import Testing

@testable import PingAM
@testable import PingBase
@testable import PingHTTP
@testable import PingJourney
@testable import PingRedirect

/// Social sign-in inside a journey (`reference/am-social.md`): the three callbacks through the step
/// gate, the redirect's gate (a loopback `redirect_uri` with a port, one `state`), the journey's cookie
/// jar, and what the listener makes of each request.
@Suite("journeys: social callbacks, the redirect gate, the cookie jar, the provider's answer")
struct SocialCallbackTests {
    func step(_ callback: String) throws -> JourneyStep {
        let body = "{\"authId\":\"eyJ0.eyJv.sig\",\"callbacks\":[\(callback)]}"
        let response = HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(body.utf8))
        guard case .step(let step) = try JourneyResponse.process(response) else { throw JourneyError.malformed("not a step") }
        return step
    }

    func redirect(_ url: String, method: String = "GET") throws -> JourneyCallback.Kind {
        try step(
            "{\"type\":\"RedirectCallback\",\"output\":[{\"name\":\"redirectUrl\",\"value\":\"\(url)\"},{\"name\":\"redirectMethod\",\"value\":\"\(method)\"},{\"name\":\"trackingCookie\",\"value\":true}]}"
        ).callbacks[0].kind
    }

    static let authorize = "https://accounts.example.com/o/oauth2/v2/auth?client_id=am&response_type=code&scope=openid&nonce=n"

    @Test("journey-idp-select: the Android fixture's shape: names, display names from uiConfig, localAuthentication without uiConfig")
    func select() throws {
        let step = try step(
            #"{"type":"SelectIdPCallback","output":[{"name":"providers","value":[{"provider":"google","uiConfig":{"buttonImage":"x.png","buttonDisplayName":"Google","buttonCustomStyle":"background-color: #fff"}},{"provider":"corp_oidc","uiConfig":{"iconClass":"fa-building"}},{"provider":"localAuthentication"}]},{"name":"value","value":""}],"input":[{"name":"IDToken1","value":""}]}"#
        )
        guard case .selectIdP(let providers) = step.callbacks[0].kind else { throw JourneyError.malformed("not a menu") }
        #expect(providers.map(\.name) == ["google", "corp_oidc", "localAuthentication"])
        #expect(providers.map(\.displayName) == ["Google", "corp_oidc", "localAuthentication"])
        #expect(providers.map(\.isLocal) == [false, false, true] && step.unsupported == nil)
        #expect(step.callbacks[0].values(.text("google")) == [.string("google")])
        #expect(throws: JourneyError.self) { try self.step(#"{"type":"SelectIdPCallback","output":[{"name":"providers","value":[]}]}"#) }
        #expect(throws: JourneyError.self) {
            try self.step(#"{"type":"SelectIdPCallback","output":[{"name":"providers","value":[{"uiConfig":{}}]}]}"#)
        }
    }

    @Test("journey-idp-redirect: a loopback redirect_uri with a port is where the listener waits; its path is kept, AM's state read")
    func loopback() throws {
        for (uri, host, path) in [
            ("http%3A%2F%2F127.0.0.1%3A8765%2Fcallback", "127.0.0.1", "/callback"),
            ("http%3A%2F%2F%5B%3A%3A1%5D%3A8765%2Fam", "[::1]", "/am"),
            ("http%3A%2F%2Flocalhost%3A8765", "localhost", "/"),
        ] {
            guard case .socialRedirect(.success(let redirect)) = try redirect(Self.authorize + "&state=s1&redirect_uri=" + uri) else {
                throw JourneyError.malformed("refused \(uri)")
            }
            #expect(redirect.state == "s1" && redirect.listener == LoopbackRedirectAddress(host: host, port: 8765, path: path))
            #expect(redirect.listener.isIPv6 == (host == "[::1]"))
        }
    }

    @Test("journey-idp-redirect: refused: a redirect_uri elsewhere or without a port, no or two states, a POST, plain http to another host")
    func refused() throws {
        let loopback = "&redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Fcallback"
        let cases: [(String, String, SocialRedirect.Refusal)] = [
            (
                Self.authorize + "&state=s&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb", "GET",
                .notLoopback("https://app.example.com/cb")
            ),
            (Self.authorize + "&state=s&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb", "GET", .notLoopback("http://127.0.0.1/cb")),
            (Self.authorize + "&state=s&redirect_uri=http%3A%2F%2F10.0.0.5%3A80%2Fcb", "GET", .notLoopback("http://10.0.0.5:80/cb")),
            (Self.authorize + loopback, "GET", .missing("state")),
            (Self.authorize + "&state=a&state=b" + loopback, "GET", .missing("state")),
            (Self.authorize + "&state=s", "GET", .missing("redirect_uri")),
            (Self.authorize + "&state=s" + loopback, "POST", .method("POST")),
        ]
        for (url, method, refusal) in cases {
            #expect(try redirect(url, method: method) == .socialRedirect(.failure(refusal)), "\(url)")
        }
        guard case .socialRedirect(.failure(.notAURL)) = try redirect("http://idp.example.com/auth?state=s" + loopback) else {
            throw JourneyError.malformed("plain http to a remote provider")
        }
        #expect(SocialRedirect.Refusal.notLoopback("x").message.contains("Redirect URL"))
    }

    @Test("journey-idp-native: an IdPCallback is the NATIVE form, named by its provider")
    func native() throws {
        let step = try step(
            #"{"type":"IdPCallback","output":[{"name":"provider","value":"google"},{"name":"clientId","value":"x.apps.googleusercontent.com"},{"name":"redirectUri","value":"com.example:/oauth2redirect"},{"name":"scopes","value":["openid"]},{"name":"nonce","value":"n"},{"name":"acrValues","value":[]},{"name":"request","value":""},{"name":"requestUri","value":""}],"input":[{"name":"IDToken1token","value":""},{"name":"IDToken1token_type","value":""}]}"#
        )
        #expect(step.callbacks[0].kind == .nativeIdP(NativeIdPRequest(provider: "google")))
    }

    @Test(
        "journey-cookies: kept per host and path, sent back on later requests, deleted by Max-Age=0 or a 1970 expiry, Secure kept to https or loopback"
    )
    func cookies() {
        var jar = JourneyCookies(host: "am.example.com")
        let url = "https://am.example.com/am/json/realms/root/realms/alpha/authenticate?authIndexType=service"
        jar.receive(
            HTTPResponse(
                status: 200,
                setCookies: [
                    "amlbcookie=01; Path=/", "authSocialTracking=t1; Path=/am; HttpOnly; Secure",
                    "elsewhere=x; Domain=other.example.com; Path=/", "bad value=x",
                ]), for: url)
        #expect(jar.header(for: url)?.value == "authSocialTracking=t1; amlbcookie=01")
        #expect(jar.header(for: "http://am.example.com/other")?.value == "amlbcookie=01", "Secure stays on https; the path matches")
        #expect(jar.header(for: "https://evil.example.com/am/json") == nil, "another host is sent nothing")
        jar.receive(
            HTTPResponse(status: 200, setCookies: ["authSocialTracking=; Path=/am; Expires=Thu, 01-Jan-1970 00:00:10 GMT"]), for: url)
        jar.receive(HTTPResponse(status: 200, setCookies: ["amlbcookie=; Path=/; Max-Age=0"]), for: url)
        #expect(jar.header(for: url) == nil)
        var local = JourneyCookies(host: "127.0.0.1")
        local.receive(HTTPResponse(status: 200, setCookies: ["s=1; Secure"]), for: "http://127.0.0.1:8080/am/json/authenticate")
        #expect(local.header(for: "http://127.0.0.1:8080/am/json/authenticate")?.value == "s=1")
        #expect(JourneyCookies.pathMatches("/am/json", "/am") && !JourneyCookies.pathMatches("/amx", "/am"))
    }

    @Test(
        "journey-idp-answer: the listener takes the provider's answer on the redirect URL's path with AM's state; strays are ignored, an error refused"
    )
    func answers() throws {
        guard
            case .socialRedirect(.success(let redirect)) = try redirect(
                Self.authorize + "&state=AMstate&redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Fcallback")
        else { throw JourneyError.malformed("refused") }
        func handle(_ method: String, _ path: String, _ query: String?, form: String? = nil) -> (Int, FederationAnswerer.Answer?) {
            var request = LoopbackRequest(method: method, path: path, query: query)
            request.formBody = form
            let (reply, answer, _) = FederationAnswerer.handle(request, redirect)
            return (reply.status, answer)
        }
        #expect(handle("GET", "/favicon.ico", nil).0 == 404)
        #expect(handle("GET", "/callback", "code=c&state=other") == (400, nil))
        #expect(handle("GET", "/callback", "code=c") == (400, nil))
        #expect(handle("PUT", "/callback", "code=c&state=AMstate").0 == 405)
        #expect(
            handle("GET", "/callback", "code=c&state=AMstate&iss=https%3A%2F%2Fidp").1
                == .parameters([("code", "c"), ("state", "AMstate"), ("iss", "https://idp")]))
        #expect(handle("POST", "/callback", nil, form: "code=c&state=AMstate").1 == .parameters([("code", "c"), ("state", "AMstate")]))
        #expect(
            handle("GET", "/callback", "form_post_entry=e&state=AMstate").1
                == .parameters([("form_post_entry", "e"), ("state", "AMstate")]))
        #expect(handle("GET", "/callback", "error=access_denied&error_description=No&state=AMstate").1 == .refused("access_denied (No)"))
    }

    @Test("loopback-form-post: a small form POST's body is read (waiting for all of it); a large one refused; other POSTs carry none")
    func formPost() {
        let head =
            "POST /callback HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 15\r\n\r\n"
        #expect(LoopbackRequest.parse(Array((head + "code=c&st").utf8)) == .incomplete)
        guard case .complete(let request) = LoopbackRequest.parse(Array((head + "code=c&state=AM").utf8)) else {
            Issue.record("not complete")
            return
        }
        #expect(request.formBody == "code=c&state=AM")
        let large = "POST /callback HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 999999\r\n\r\n"
        #expect(LoopbackRequest.parse(Array(large.utf8)) == .invalid(status: 413, reason: "form body too large"))
        guard
            case .complete(let json) = LoopbackRequest.parse(
                Array("POST /cb HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}".utf8))
        else {
            Issue.record("not complete")
            return
        }
        #expect(json.formBody == nil)
    }
}
