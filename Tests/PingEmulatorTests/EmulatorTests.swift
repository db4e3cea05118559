import EmulatorHTTP
import Foundation
import Testing

@testable import PingEmulator

// RFC 7636 Appendix B test vector.
let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
let redirectURI = "http://127.0.0.1:49152/callback"

/// Runs `body` against a started emulator and stops it afterwards.
func withEmulator<T>(_ configuration: EmulatorConfiguration = .init(), _ body: (Emulator) throws -> T) throws -> T {
    let emulator = try Emulator(configuration: configuration)
    emulator.start()
    defer { emulator.stop() }
    return try body(emulator)
}

func endpoint(_ emulator: Emulator, _ kind: EndpointKind) throws -> String {
    try #require(emulator.url(for: kind))
}

func authorize(_ emulator: Emulator, _ params: [(String, String)]) throws -> TestResponse {
    try http("GET", FormEncoding.append(params, to: endpoint(emulator, .authorize)))
}

func standardAuthorizeParams(
    scope: String = "openid profile email offline_access",
    challenge: String = challenge
) -> [(String, String)] {
    [
        ("client_id", "pingcli-test"), ("redirect_uri", redirectURI), ("response_type", "code"),
        ("scope", scope), ("state", "st-1"), ("nonce", "n-1"), ("code_challenge", challenge),
        ("code_challenge_method", "S256"),
    ]
}

/// Runs authorize in approve mode and returns the code.
func obtainCode(_ emulator: Emulator, scope: String = "openid profile email offline_access") throws -> String {
    let response = try authorize(emulator, standardAuthorizeParams(scope: scope))
    #expect(response.status == 302)
    let query = response.locationQuery
    #expect(query["state"] == "st-1")
    // RFC 9207 iss: sent unless the layout (PingFederate) or its switch says otherwise.
    #expect(query["iss"] == (emulator.includesIssuerInAuthorizationResponse ? emulator.issuer : nil))
    return try #require(query["code"])
}

func redeem(_ emulator: Emulator, code: String, verifier: String = verifier) throws -> TestResponse {
    try http(
        "POST", endpoint(emulator, .token),
        form: [
            ("grant_type", "authorization_code"), ("code", code), ("client_id", "pingcli-test"),
            ("redirect_uri", redirectURI), ("code_verifier", verifier),
        ])
}

func refresh(_ emulator: Emulator, _ token: String) throws -> TestResponse {
    try http(
        "POST", endpoint(emulator, .token),
        form: [
            ("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", "pingcli-test"),
        ])
}

@Suite struct EmulatorTests {
    @Test(arguments: Layout.allCases)
    func discovery(layout: Layout) throws {
        try withEmulator(.init(layout: layout, environmentID: "env-123")) { emulator in
            let issuers: [Layout: String] = [
                .pingOne: "\(emulator.baseURL)/env-123/as", .pingFederate: emulator.baseURL,
                .pingAM: "\(emulator.baseURL)/am/oauth2/realms/root/realms/alpha",
            ]
            #expect(emulator.issuer == issuers[layout])
            let response = try http("GET", emulator.issuer + "/.well-known/openid-configuration")
            #expect(response.status == 200)
            #expect(response.headers["cache-control"] == "no-store")
            let doc = try #require(response.json)
            #expect(doc["issuer"]?.stringValue == emulator.issuer)
            let tokens: [Layout: String] = [
                .pingOne: "/env-123/as/token", .pingFederate: "/as/token.oauth2",
                .pingAM: "/am/oauth2/realms/root/realms/alpha/access_token",
            ]
            let token = tokens[layout] ?? "-"
            #expect(doc["token_endpoint"]?.stringValue == emulator.baseURL + token)
            #expect(doc["code_challenge_methods_supported"]?.arrayValue?.contains("S256") == true)
            // RFC 9207: PingFederate's "Include Issuer in Authorization Response" is off by default.
            #expect(doc["authorization_response_iss_parameter_supported"] == (layout == .pingFederate ? nil : true))
            for key in [
                "authorization_endpoint", "userinfo_endpoint", "jwks_uri", "revocation_endpoint",
                "introspection_endpoint", "end_session_endpoint",
            ] {
                let url = try #require(doc[key]?.stringValue)
                #expect(url.hasPrefix(emulator.baseURL + "/"))
            }
            #expect(try http("GET", emulator.baseURL + "/nope").status == 404)
            #expect(emulator.requests(to: .discovery).count == 1)
        }
    }

    @Test func authorizeRejectsBadRequests() throws {
        try withEmulator { emulator in
            var params = standardAuthorizeParams()
            params.removeAll { $0.0 == "code_challenge_method" }
            params.append(("code_challenge_method", "plain"))
            var response = try authorize(emulator, params)
            #expect(response.status == 302)
            #expect(response.locationQuery["error"] == "invalid_request")
            #expect(response.locationQuery["state"] == "st-1")
            #expect(response.locationQuery["iss"] == emulator.issuer)

            params = standardAuthorizeParams().filter { $0.0 != "code_challenge" }
            response = try authorize(emulator, params)
            #expect(response.locationQuery["error"] == "invalid_request")
            #expect(response.locationQuery["code"] == nil)

            response = try authorize(emulator, standardAuthorizeParams(scope: "openid admin"))
            #expect(response.locationQuery["error"] == "invalid_scope")

            // Unregistered redirect URI: an error page, never a redirect.
            params = standardAuthorizeParams().filter { $0.0 != "redirect_uri" } + [("redirect_uri", "http://evil.example/cb")]
            response = try authorize(emulator, params)
            #expect(response.status == 400)
            #expect(response.headers["location"] == nil)
        }
    }

    @Test func codeFlowWorksOnceAndChecksVerifier() throws {
        try withEmulator { emulator in
            let code = try obtainCode(emulator)
            let first = try redeem(emulator, code: code)
            #expect(first.status == 200)
            let body = try #require(first.json)
            #expect(body["token_type"]?.stringValue == "Bearer")
            #expect(body["access_token"]?.stringValue == emulator.issuedAccessTokens.first)
            #expect(body["id_token"] != nil)
            let second = try redeem(emulator, code: code)
            #expect(second.status == 400)
            #expect(second.json?["error"]?.stringValue == "invalid_grant")

            let other = try obtainCode(emulator)
            let wrong = try redeem(emulator, code: other, verifier: String(repeating: "a", count: 43))
            #expect(wrong.status == 400)
            #expect(wrong.json?["error"]?.stringValue == "invalid_grant")
            #expect(
                emulator.requests(to: .token).map(\.grantType) == [
                    "authorization_code", "authorization_code",
                    "authorization_code",
                ])
        }
    }

    @Test func refreshRotation() throws {
        try withEmulator { emulator in
            let tokens = try #require(redeem(emulator, code: obtainCode(emulator)).json)
            let refreshToken = try #require(tokens["refresh_token"]?.stringValue)
            let rotated = try refresh(emulator, refreshToken)
            #expect(rotated.status == 200)
            let newRefresh = try #require(rotated.json?["refresh_token"]?.stringValue)
            #expect(newRefresh != refreshToken)
            #expect(rotated.json?["id_token"] != nil)
            let replay = try refresh(emulator, refreshToken)
            #expect(replay.status == 400)
            #expect(replay.json?["error"]?.stringValue == "invalid_grant")
            #expect(try refresh(emulator, newRefresh).status == 200)
            #expect(emulator.issuedRefreshTokens.count == 3)
        }
    }

    @Test func userinfoAfterExpiry() throws {
        try withEmulator { emulator in
            let tokens = try #require(redeem(emulator, code: obtainCode(emulator)).json)
            let access = try #require(tokens["access_token"]?.stringValue)
            let userinfo = try endpoint(emulator, .userinfo)
            let ok = try http("GET", userinfo, headers: ["Authorization": "Bearer \(access)"])
            #expect(ok.status == 200)
            #expect(ok.json?["sub"]?.stringValue == User.demo.sub)
            #expect(ok.json?["email"]?.stringValue == "demo@example.com")
            emulator.expireAccessTokens()
            let expired = try http("GET", userinfo, headers: ["Authorization": "Bearer \(access)"])
            #expect(expired.status == 401)
            #expect(expired.headers["www-authenticate"]?.contains("error=\"invalid_token\"") == true)
        }
    }

    @Test("resource-paths: the protected resource answers below /api/resource too (an API's paths), naming the person")
    func resourceBelowItsPath() throws {
        try withEmulator { emulator in
            let tokens = try #require(redeem(emulator, code: obtainCode(emulator)).json)
            let access = try #require(tokens["access_token"]?.stringValue)
            let base = try endpoint(emulator, .resource)
            let below = try http("GET", base + "/v1/me", headers: ["Authorization": "Bearer \(access)"])
            #expect(below.status == 200 && below.json?["name"]?.stringValue == User.demo.name)
            #expect(try http("GET", base + "/v1/me").status == 401, "still a protected resource")
            #expect(try http("GET", emulator.baseURL + "/api/resourceful").status == 404, "only whole path segments")
            #expect(emulator.requests(to: .resource).map(\.path) == ["/api/resource/v1/me", "/api/resource/v1/me"])
        }
    }

    @Test func revokeThenIntrospect() throws {
        try withEmulator { emulator in
            // The revoke scope puts PingOne's custom resource in aud: such a token can be revoked.
            let tokens = try #require(redeem(emulator, code: obtainCode(emulator, scope: "openid revoke")).json)
            let access = try #require(tokens["access_token"]?.stringValue)
            let introspect = { (token: String) throws -> EmulatorJSON? in
                try http("POST", endpoint(emulator, .introspect), form: [("token", token), ("client_id", "pingcli-test")]).json
            }
            #expect(try introspect(access)?["active"] == true)
            let revoked = try http(
                "POST", endpoint(emulator, .revoke),
                form: [
                    ("token", access), ("token_type_hint", "access_token"), ("client_id", "pingcli-test"),
                ])
            #expect(revoked.status == 200)
            #expect(try introspect(access)?["active"] == false)
            #expect(!emulator.isActive(token: access))
            // Unknown tokens are fine per RFC 7009.
            #expect(try http("POST", endpoint(emulator, .revoke), form: [("token", "nope"), ("client_id", "pingcli-test")]).status == 200)
        }
    }

    @Test func faultsOverHTTPAndConcurrency() throws {
        try withEmulator { emulator in
            let faults = #"""
                {"responseOverrides": {"token": {"status": 500, "body": "<html>oops</html>", "times": 1}},
                 "authorizationResponseOverrides": {"iss": null},
                 "discoveryOverrides": {"issuer": "http://other.example", "code_challenge_methods_supported": null}}
                """#
            #expect(try http("PUT", emulator.baseURL + "/__emulator/faults", body: faults).status == 200)
            let doc = try #require(http("GET", try endpoint(emulator, .discovery)).json)
            #expect(doc["issuer"] == "http://other.example")
            #expect(doc["code_challenge_methods_supported"] == nil)
            let redirect = try authorize(emulator, standardAuthorizeParams())
            #expect(redirect.locationQuery["iss"] == nil)
            let code = try #require(redirect.locationQuery["code"])
            let failed = try redeem(emulator, code: code)
            #expect(failed.status == 500)
            #expect(failed.text == "<html>oops</html>")
            #expect(try redeem(emulator, code: code).status == 200)  // the canned answer was used up

            // 50 simultaneous clients.
            let url = try endpoint(emulator, .jwks)
            let statuses = Locked<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 50) { _ in
                let status = (try? http("GET", url).status) ?? -1
                statuses.withLock { $0.append(status) }
            }
            #expect(statuses.withLock { $0 } == Array(repeating: 200, count: 50))
            #expect(try http("GET", emulator.baseURL + "/__emulator/requests").json?.arrayValue?.count == emulator.requests.count)
        }
    }

    @Test func formSignInAndSignoff() throws {
        let client = RegisteredClient(clientID: "pingcli-test", postLogoutRedirectURIs: ["http://127.0.0.1:40000/logout"])
        try withEmulator(.init(layout: .pingFederate, clients: [client], signInMode: .form)) { emulator in
            let page = try authorize(emulator, standardAuthorizeParams())
            #expect(page.status == 200)
            #expect(page.text.contains("id=\"emulator-signin\""))
            let flow = try #require(page.text.firstMatch(of: /name="flow" value="([^"]*)"/)?.1)
            let bad = try http(
                "POST", endpoint(emulator, .authorize),
                form: [("username", "demo"), ("password", "nope"), ("flow", String(flow))])
            #expect(bad.status == 200)
            #expect(bad.text.contains("Invalid username or password"))
            let good = try http(
                "POST", endpoint(emulator, .authorize),
                form: [("username", "demo"), ("password", "demo"), ("flow", String(flow))])
            #expect(good.status == 302)
            let code = try #require(good.locationQuery["code"])
            let idToken = try #require(redeem(emulator, code: code).json?["id_token"]?.stringValue)
            let signoff = try http(
                "GET",
                FormEncoding.append(
                    [
                        ("id_token_hint", idToken), ("post_logout_redirect_uri", "http://127.0.0.1:40000/logout"), ("state", "bye"),
                    ], to: endpoint(emulator, .endSession)))
            #expect(signoff.status == 302)
            #expect(signoff.locationQuery["state"] == "bye")
            #expect(emulator.endedSessions.count == 1)
        }
    }
}

@Suite struct ServerTests {
    @Test func oversizedBodyIs413() throws {
        try withEmulator { emulator in
            let head = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: \(2 << 20)\r\n\r\n"
            let response = try exchange(port: emulator.port, Array(head.utf8) + [UInt8](repeating: 0x61, count: 4096))
            #expect(response.status == 413)
            #expect(response.headers["connection"] == "close")
        }
    }

    @Test func silentClientIsDisconnected() throws {
        try withEmulator(.init(readTimeout: 0.3)) { emulator in
            let fd = try connectLoopback(port: emulator.port)
            defer { close(fd) }
            let started = Date()
            _ = readAll(fd)  // returns once the server gives up on us
            #expect(Date().timeIntervalSince(started) < 5)
        }
    }

    @Test func stopClosesTheListener() throws {
        let emulator = try Emulator()
        emulator.start()
        #expect(try http("GET", emulator.baseURL + "/__emulator/requests").status == 200)
        emulator.stop()
        #expect(throws: TestHTTPError.self) { try connectLoopback(port: emulator.port) }
    }

    @Test func settingsAndExpiryControlEndpoints() throws {
        try withEmulator { emulator in
            #expect(try http("PUT", emulator.baseURL + "/__emulator/settings", body: #"{"accessTokenLifetime": 5}"#).status == 200)
            #expect(emulator.accessTokenLifetime == 5)
            let tokens = try #require(redeem(emulator, code: obtainCode(emulator)).json)
            #expect(tokens["expires_in"] == 5)
            let access = try #require(tokens["access_token"]?.stringValue)
            let introspectURL = emulator.baseURL + "/__emulator/introspect"
            #expect(try http("POST", introspectURL, form: [("token", access)]).json?["active"] == true)
            #expect(try http("POST", emulator.baseURL + "/__emulator/expire-access-tokens").status == 200)
            #expect(try http("POST", introspectURL, form: [("token", access)]).json?["active"] == false)
            #expect(try http("DELETE", emulator.baseURL + "/__emulator/requests").status == 200)
            #expect(emulator.requests.isEmpty)
        }
    }
}
