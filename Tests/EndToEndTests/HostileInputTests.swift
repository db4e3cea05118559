import Foundation
import LoopbackClient
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One named negative test per protocol rule, through the built binary against the emulator's faults.
@Suite("hostile input: discovery, authorization, token, ID token and userinfo rules")
struct HostileResponseTests {
    /// Runs a login against an emulator with `faults`, returning the run and the emulator (stopped).
    func login(_ faults: Faults, _ extra: [String] = [], environment: [String: String] = [:]) throws -> (CLIRun, Emulator, Sandbox) {
        let emulator = try startEmulator()
        emulator.faults = faults
        let sandbox = Sandbox()
        let run = sandbox.login(emulator, extra, environment: environment)
        emulator.stop()
        return (run, emulator, sandbox)
    }

    /// The login fails for `rule` with `status`, in one final `pingcli:` line, caching nothing and showing no token.
    func expectLoginFails(_ faults: Faults, rule: String, status: Int32 = 1, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (run, emulator, sandbox) = try login(faults)
        #expect(run.status == status, "\(run)", sourceLocation: sourceLocation)
        #expect(run.rule == rule, "\(run)", sourceLocation: sourceLocation)
        #expect(run.stdout.isEmpty, sourceLocation: sourceLocation)
        #expect(run.stderr.split(separator: "\n").last?.hasPrefix("pingcli: ") == true, sourceLocation: sourceLocation)
        #expect(
            !FileManager.default.fileExists(atPath: sandbox.stateDirectory + "/tokens.enc"), "nothing cached",
            sourceLocation: sourceLocation)
        for secret in emulator.issuedAccessTokens + emulator.issuedRefreshTokens {
            #expect(!run.stderr.contains(secret), sourceLocation: sourceLocation)
        }
    }

    static let oversized = 2 * 1024 * 1024

    // MARK: Discovery

    @Test("discovery-required-field-missing")
    func discoveryMissingField() throws {
        try expectLoginFails(Faults(discoveryOverrides: ["token_endpoint": .null]), rule: "discovery-missing-field")
    }

    // Discovery and token alike: pages instead of JSON, and bodies over 1 MiB.

    @Test(
        "discovery-not-json, token-not-json: a 200 answer in text/plain is refused",
        arguments: [(EndpointKind.discovery, "issuer=x", "discovery-not-json"), (.token, "access_token=x", "token-not-json")])
    func notJSON(endpoint: EndpointKind, body: String, rule: String) throws {
        try expectLoginFails(
            Faults(responseOverrides: [endpoint: CannedResponse(status: 200, contentType: "text/plain", body: body)]), rule: rule)
    }

    @Test(
        "discovery-html-error-page, token-500-html: an HTML error page is reported by its status",
        arguments: [
            (EndpointKind.discovery, 503, "<h1>down</h1>", "discovery-http-error"), (.token, 500, "<h1>oops</h1>", "token-http-error"),
        ])
    func htmlPage(endpoint: EndpointKind, status: Int, body: String, rule: String) throws {
        try expectLoginFails(
            Faults(responseOverrides: [endpoint: CannedResponse(status: status, contentType: "text/html", body: body)]), rule: rule)
    }

    @Test("discovery-oversized-body, token-oversized-body: a document over 1 MiB is refused", arguments: [EndpointKind.discovery, .token])
    func oversizedBody(endpoint: EndpointKind) throws {
        try expectLoginFails(
            Faults(responseOverrides: [
                endpoint: CannedResponse(status: 200, contentType: "application/json", body: " ", bodyRepeat: Self.oversized)
            ]),
            rule: "response-too-large")
    }

    @Test("discovery-redirect-to-other-host: a redirect is reported, not followed")
    func discoveryRedirect() throws {
        let (run, emulator, _) = try login(
            Faults(responseOverrides: [
                .discovery: CannedResponse(
                    status: 302, contentType: nil, body: "", headers: ["Location": "https://evil.example/.well-known/openid-configuration"])
            ]))
        #expect(run.status == 1)
        #expect(run.stderr.contains("redirects (HTTP 302) to https://evil.example"))
        #expect(run.rule == "discovery-redirect", "\(run)")
        #expect(emulator.requests(to: .discovery).count == 1)
    }

    @Test("discovery-http-issuer-non-loopback: an http issuer on a public host is a usage error before any request")
    func httpIssuer() {
        let run = Sandbox().run(["login", "--issuer", "http://auth.example.com/as", "--client-id", "x"])
        #expect(run.status == 2)
        #expect(run.rule == "issuer-http-non-loopback", "\(run)")
    }

    // MARK: Authorization response

    @Test(
        "invalid-state and missing-state: a callback without our state is ignored, the login keeps waiting, and the page says why",
        arguments: [("forged", "its state does not match"), (nil, "it has no state")] as [(String?, String)])
    func strayStateKeepsWaiting(state: String?, reason: String) throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        emulator.faults = Faults(authorizationResponseOverrides: ["state": state])
        let sandbox = Sandbox()
        let page = sandbox.root + "/page.html"
        let run = sandbox.run(
            ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "3"], environment: ["BROWSER_PAGE": page])
        #expect(run.status == 1)
        #expect(run.stderr.contains("ignored a request to the loopback listener: \(reason)"))
        #expect(run.rule == "login-timeout", "\(run)")
        #expect(emulator.requests(to: .token).isEmpty, "the code was never redeemed")
        let shown = try #require(sandbox.savedPage(page))
        #expect(shown.contains("does not belong to this sign-in") && shown.contains(reason))
    }

    @Test("missing-code: neither code nor error ends the login with exit 1")
    func missingCode() throws {
        try expectLoginFails(Faults(authorizationResponseOverrides: ["code": nil]), rule: "missing-code")
    }

    @Test("callback-delivered-twice: once the login is over the callback address is closed")
    func callbackTwice() throws {
        let (emulator, sandbox) = try loggedIn()
        let callback = try #require(sandbox.browserLog.first { $0.hasPrefix("http://127.0.0.1:") && $0.contains("/callback?") })
        let port = try #require(URLComponents(string: callback)?.port)
        let path = String(callback.dropFirst("http://127.0.0.1:\(port)".count))
        #expect(rawRequest(port: UInt16(port), Array("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) == nil)
        #expect(emulator.requests(to: .token).count == 1)
    }

    // MARK: Token response

    @Test("token-missing-access-token")
    func tokenMissingAccessToken() throws {
        try expectLoginFails(Faults(tokenResponseOverrides: ["access_token": .null]), rule: "token-missing-access-token")
    }

    @Test("token-type-not-bearer")
    func tokenTypeNotBearer() throws {
        try expectLoginFails(Faults(tokenResponseOverrides: ["token_type": .string("mac")]), rule: "token-type-unsupported")
    }

    @Test("token-expires-in-invalid: zero, negative and absurd lifetimes are refused", arguments: [0.0, -60, 1e12])
    func expiresInInvalid(value: Double) throws {
        try expectLoginFails(Faults(tokenResponseOverrides: ["expires_in": .number(value)]), rule: "token-expires-in-invalid")
    }

    @Test("token-expires-in-missing: an unknown lifetime is accepted and shown as unknown")
    func expiresInMissing() throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        emulator.faults = Faults(tokenResponseOverrides: ["expires_in": .null])
        let sandbox = Sandbox()
        #expect(sandbox.login(emulator).status == 0)
        #expect(sandbox.run(["token", "--format", "summary"]).stdout.contains("expires:       unknown"))
    }

    // MARK: ID token

    @Test("id-token-not-three-parts")
    func idTokenNotThreeParts() throws {
        try expectLoginFails(
            Faults(tokenResponseOverrides: ["id_token": .string("abc.def")]), rule: "token-grammar")
    }

    @Test("id-token-bad-base64url")
    func idTokenBadBase64() throws {
        try expectLoginFails(
            Faults(tokenResponseOverrides: ["id_token": .string("eyJhbGciOiJub25lIn0.e30+/.sig")]),
            rule: "token-grammar")
    }

    @Test("id-token-wrong-iss")
    func idTokenWrongIssuer() throws {
        try expectLoginFails(
            Faults(idTokenClaimOverrides: ["iss": .string("https://impostor.example")]), rule: "id-token-iss-mismatch")
    }

    @Test("id-token-multiple-aud-no-azp")
    func idTokenMultipleAudiences() throws {
        try expectLoginFails(
            Faults(idTokenClaimOverrides: ["aud": .array([.string("pingcli-test"), .string("api")]), "azp": .null]),
            rule: "id-token-multiple-aud-no-azp")
    }

    @Test("id-token-wrong-azp")
    func idTokenWrongAzp() throws {
        try expectLoginFails(
            Faults(idTokenClaimOverrides: ["aud": .array([.string("pingcli-test"), .string("api")]), "azp": .string("api")]),
            rule: "id-token-wrong-azp")
    }

    @Test("id-token-expired")
    func idTokenExpired() throws {
        let past = Date().timeIntervalSince1970 - 3600
        try expectLoginFails(Faults(idTokenClaimOverrides: ["exp": .number(past), "iat": .number(past - 60)]), rule: "id-token-expired")
    }

    @Test("id-token-iat-future")
    func idTokenIssuedInFuture() throws {
        try expectLoginFails(
            Faults(idTokenClaimOverrides: ["iat": .number(Date().timeIntervalSince1970 + 86_400)]), rule: "id-token-iat-future")
    }

    @Test("missing-nonce")
    func idTokenMissingNonce() throws {
        try expectLoginFails(Faults(idTokenClaimOverrides: ["nonce": .null]), rule: "missing-nonce")
    }

    // MARK: Userinfo

    @Test("userinfo-not-json")
    func userinfoNotJSON() throws {
        let (emulator, sandbox) = try loggedIn()
        emulator.faults = Faults(responseOverrides: [.userinfo: CannedResponse(status: 200, contentType: "text/html", body: "<h1>hi</h1>")])
        let run = sandbox.run(["userinfo"])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("not a JSON object (got text/html)"))
        #expect(run.rule == "userinfo-not-json", "\(run)")
    }
}

/// A login waiting for the browser, whose "browser" only recorded the URL (so the test decides when the
/// real sign-in happens), and the port of its loopback listener. PAR is off: the tests read state and
/// redirect_uri from the browser's URL, which PAR keeps out of it.
struct WaitingLogin {
    let emulator: Emulator
    let sandbox: Sandbox
    let login: BackgroundRun
    let port: UInt16

    init(timeout: Int) throws {
        (emulator, sandbox) = try emulatorAndSandbox { $0.pushedAuthorization = .off }
        login = BackgroundRun(sandbox, ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "\(timeout)"])
        let redirect = try #require(
            login.parameter("redirect_uri"), "no authorization URL reached the browser; the login printed: \(login.progress)")
        port = UInt16(try #require(URLComponents(string: redirect)?.port))
    }

    /// The real browser (the double) signs in at the recorded URL.
    func signIn(timeout: Double) -> CLIRun {
        runProcess(Locations.support + "/xdg-open", [login.url], environment: sandbox.environment, timeout: timeout)
    }
}

@Suite("hostile input: the loopback listener of the running binary")
struct HostileListenerTests {
    /// Requests a browser never sends, and the status the listener must answer each with.
    static func hostileRequests(state: String, port: UInt16) -> [(String, [UInt8], String)] {
        [
            (
                "oversized head", Array(("GET /callback?state=" + String(repeating: "A", count: 9000) + " HTTP/1.1\r\n\r\n").utf8),
                "HTTP/1.1 431"
            ),
            ("non-HTTP bytes", [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03], "HTTP/1.1 400"),
            ("POST", Array("POST /callback?state=\(state) HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc".utf8), "HTTP/1.1 405"),
            ("HEAD", Array("HEAD /callback?state=\(state) HTTP/1.1\r\n\r\n".utf8), "HTTP/1.1 405"),
            ("absolute-form", Array("GET http://127.0.0.1:\(port)/callback?state=\(state)&code=x HTTP/1.1\r\n\r\n".utf8), "HTTP/1.1 400"),
            ("encoded path", Array("GET /%63allback?state=\(state)&code=x HTTP/1.1\r\n\r\n".utf8), "HTTP/1.1 404"),
            ("state with NUL", Array("GET /callback?state=\(state)%00&code=x HTTP/1.1\r\n\r\n".utf8), "HTTP/1.1 400"),
            ("bad escape", Array("GET /callback?state=%zz&code=x HTTP/1.1\r\n\r\n".utf8), "HTTP/1.1 400"),
            ("doubled state", Array("GET /callback?state=\(state)&state=\(state)&code=x HTTP/1.1\r\n\r\n".utf8), "HTTP/1.1 400"),
            ("favicon", Array("GET /favicon.ico HTTP/1.1\r\n\r\n".utf8), "HTTP/1.1 404"),
        ]
    }

    /// A client that sends one byte a second (eight of them) on `descriptor`, on a thread; `wait()` it.
    static func slowClient(_ descriptor: Int32) -> DispatchGroup {
        let done = DispatchGroup()
        done.enter()
        Thread {
            defer { done.leave() }
            for byte in Array("GET /callback?state=x HTTP/1.1\r\n".utf8).prefix(8) {
                _ = withUnsafePointer(to: byte) { send(descriptor, $0, 1, Int32(MSG_NOSIGNAL)) }
                sleep(1)
            }
        }.start()
        return done
    }

    /// `count` connections at once, each sending a stray request; how many got the listener's 404.
    static func strayRequests(port: UInt16, count: Int) -> Int {
        let answered = Locked(0)
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                if let answer = rawRequest(port: port, Array("GET /stray\(index) HTTP/1.1\r\n\r\n".utf8), readTimeoutMilliseconds: 20_000),
                    answer.hasPrefix("HTTP/1.1 404")
                {
                    answered.withLock { $0 += 1 }
                }
                group.leave()
            }.start()
        }
        group.wait()
        return answered.withLock { $0 }
    }

    @Test(
        "listener-abuse: oversized heads, silent and slow clients, 200 connections, junk, POST, HEAD, absolute-form and encoding tricks neither crash, hang nor end the login"
    )
    func abuse() throws {
        let waiting = try WaitingLogin(timeout: 60)
        let (login, port) = (waiting.login, waiting.port)
        let state = try #require(login.parameter("state"))

        // listener-loopback-only: the kernel shows the socket bound to 127.0.0.1, never 0.0.0.0.
        let tcp = try String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)
        let hexPort = String(format: "%04X", port)
        #expect(tcp.contains("0100007F:\(hexPort) 00000000:0000 0A"))
        #expect(!tcp.contains("00000000:\(hexPort) 00000000:0000 0A"))

        // A silent client and a one-byte-a-second client hold connections open meanwhile.
        let silent = openConnection(port: port)
        let slow = openConnection(port: port)
        let slowDone = Self.slowClient(slow)

        for (name, bytes, expected) in Self.hostileRequests(state: state, port: port) {
            let answer = rawRequest(port: port, bytes) ?? "refused"
            #expect(answer.hasPrefix(expected), "\(name): \(answer.prefix(80))")
        }
        #expect(Self.strayRequests(port: port, count: 200) == 200)
        #expect(login.ended == nil, "still waiting for the real sign-in")

        // Now the real browser signs in, and the login completes.
        let browser = waiting.signIn(timeout: 30)
        #expect(browser.status == 0, "\(browser)")
        let run = login.wait()
        slowDone.wait()
        close(silent)
        close(slow)
        #expect(run.status == 0, "\(run)")
        #expect(waiting.sandbox.run(["token", "--raw"]).stdout == waiting.emulator.newestTokenLine)
    }
}
