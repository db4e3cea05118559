import Testing

@testable import PingBase
@testable import PingHTTP
@testable import PingOAuth

/// The gates of the device authorization response (RFC 8628 §3.2), the pushed authorization response
/// (RFC 9126 §2.2) and the discovery fields that announce them.
@Suite("gates: device authorization, pushed authorization, their discovery fields")
struct DeviceAndPARTests {
    let issuer: EndpointURL = "https://auth.pingone.com/env/as"

    func json(_ body: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["content-type": "application/json"], body: Array(body.utf8))
    }

    func device(_ members: String) throws(DeviceAuthorizationError) -> DeviceAuthorization {
        try DeviceAuthorization.process(
            json(
                "{\"device_code\":\"dc\",\"user_code\":\"WDJB-MJHT\",\"verification_uri\":\"https://auth.pingone.com/env/device\",\"expires_in\":1800\(members)}"
            ), issuer: issuer)
    }

    @Test("device-response: the fields are kept; interval defaults to 5 s")
    func deviceValid() throws {
        let parsed = try device("")
        #expect(parsed.userCode.value == "WDJB-MJHT" && parsed.deviceCode.value == "dc")
        #expect(parsed.interval == 5 && parsed.expiresIn == 1800 && parsed.verificationURIComplete == nil)
        #expect(try device(",\"interval\":\"2\"").interval == 2)
        #expect(try device(",\"verification_uri_complete\":\"https://auth.pingone.com/env/device?c=1\"").verificationURIComplete != nil)
    }

    @Test("device-response-gate: each field's rule, by name")
    func deviceGate() {
        #expect(throws: DeviceAuthorizationError.invalidNumber("interval")) { try device(",\"interval\":\"0x10\"") }
        #expect(throws: DeviceAuthorizationError.invalidNumber("interval")) { try device(",\"interval\":601") }
        #expect(throws: DeviceAuthorizationError.invalidNumber("interval")) { try device(",\"interval\":0") }
        #expect(throws: DeviceAuthorizationError.refusedURL(field: "verification_uri_complete", .insecure)) {
            try device(",\"verification_uri_complete\":\"http://auth.pingone.com/device\"")
        }
        #expect(throws: DeviceAuthorizationError.refusedURL(field: "verification_uri_complete", .loopbackFromRemoteIssuer)) {
            try device(",\"verification_uri_complete\":\"https://127.0.0.1/device\"")
        }
        for bad in ["\"\"", "\"   \"", "\"a\\u001b[2Jb\"", "\"\(String(repeating: "A", count: 65))\"", "\"caf\\u00e9\""] {
            #expect(throws: DeviceAuthorizationError.invalidToken(TokenGrammarError(field: "user_code", rule: UserCode.rule)), "\(bad)") {
                try DeviceAuthorization.process(
                    json(
                        "{\"device_code\":\"dc\",\"user_code\":\(bad),\"verification_uri\":\"https://auth.pingone.com/d\",\"expires_in\":60}"
                    ),
                    issuer: issuer)
            }
        }
        #expect(throws: DeviceAuthorizationError.missing("expires_in")) {
            try DeviceAuthorization.process(
                json("{\"device_code\":\"dc\",\"user_code\":\"A\",\"verification_uri\":\"https://auth.pingone.com/d\"}"), issuer: issuer)
        }
        #expect(throws: DeviceAuthorizationError.invalidNumber("expires_in")) {
            try DeviceAuthorization.process(
                json(
                    "{\"device_code\":\"dc\",\"user_code\":\"A\",\"verification_uri\":\"https://auth.pingone.com/d\",\"expires_in\":90000}"),
                issuer: issuer)
        }
        #expect(throws: DeviceAuthorizationError.oauthError(status: 400, OAuthErrorResponse(error: "unauthorized_client"))) {
            try DeviceAuthorization.process(json("{\"error\":\"unauthorized_client\"}", status: 400), issuer: issuer)
        }
    }

    @Test("par-request-uri: an absolute URI of RFC 3986 characters, at most 2048 bytes")
    func requestURIGrammar() {
        for good in ["urn:ietf:params:oauth:request_uri:6esc_11ACC5bwc014ltc14eY22c", "https://as.example/r/1?x=%20"] {
            #expect((try? RequestURI(checking: good)) != nil, "\(good)")
        }
        for bad in [
            "", "no-scheme", ":x", "1urn:x", "urn:", "urn:a b", "urn:a\r\nb", "urn:\u{1b}[2J", "urn:caf\u{e9}", "urn:a\"b",
            "urn:" + String(repeating: "a", count: 2045),
        ] {
            #expect((try? RequestURI(checking: bad)) == nil, "\(bad.debugDescription)")
        }
    }

    @Test("par-response: 201 with request_uri and expires_in; errors and bad values refused by name")
    func pushedResponse() throws {
        let pushed = try PushedAuthorization.process(
            json("{\"request_uri\":\"urn:ietf:params:oauth:request_uri:x\",\"expires_in\":60}", status: 201))
        #expect(pushed.requestURI.value == "urn:ietf:params:oauth:request_uri:x" && pushed.expiresIn == 60)
        #expect(throws: PushedAuthorizationError.missingRequestURI) {
            try PushedAuthorization.process(json("{\"expires_in\":60}", status: 201))
        }
        #expect(throws: PushedAuthorizationError.invalidExpiresIn) {
            try PushedAuthorization.process(json("{\"request_uri\":\"urn:x:y\",\"expires_in\":7200}", status: 201))
        }
        #expect(throws: PushedAuthorizationError.oauthError(status: 400, OAuthErrorResponse(error: "invalid_request"))) {
            try PushedAuthorization.process(json("{\"error\":\"invalid_request\"}", status: 400))
        }
        #expect(throws: PushedAuthorizationError.httpStatus(302, contentType: "application/json")) {
            try PushedAuthorization.process(json("{}", status: 302))
        }
    }

    @Test("par-push-body: every authorization parameter in the body, and the browser URL only client_id and request_uri")
    func pushBody() throws {
        let request = AuthorizationRequest(
            clientID: "app", redirectURI: "http://127.0.0.1:1/callback", scopes: ["openid"], extraParameters: [("login_hint", "a b")])
        let push = request.pushRequest(endpoint: "https://as.example/par", client: ClientCredentials(clientID: "app"))
        let body = FormEncoding.decode(String(decoding: push.body ?? [], as: UTF8.self)) ?? []
        #expect(Set(body.map(\.name)) == Set(request.parameters.map(\.name)))
        #expect(body.filter { $0.name == "client_id" }.count == 1)
        let url = request.url(
            authorizationEndpoint: "https://as.example/authorize", requestURI: try RequestURI(checking: "urn:x:1"))
        #expect(url == "https://as.example/authorize?client_id=app&request_uri=urn%3Ax%3A1")
    }

    @Test("discovery-new-fields: the device and PAR endpoints pass the endpoint policy; a non-boolean PAR requirement is malformed")
    func discoveryFields() throws {
        let issuer = "https://auth.pingone.com/env/as"
        let metadata = try ProviderMetadata.process(
            discoveryDocument([
                "device_authorization_endpoint": "\"\(issuer)/device_authorization\"",
                "pushed_authorization_request_endpoint": "\"\(issuer)/par\"",
                "require_pushed_authorization_requests": "true", "token_endpoint_auth_methods_supported": "[\"client_secret_post\"]",
            ]), expectedIssuer: issuer)
        #expect(metadata.deviceAuthorizationEndpoint?.value == issuer + "/device_authorization")
        #expect(metadata.pushedAuthorizationRequestEndpoint?.value == issuer + "/par")
        #expect(metadata.requirePushedAuthorizationRequests == true && metadata.tokenEndpointAuthMethodsSupported == ["client_secret_post"])
        #expect(throws: DiscoveryError.wrongType("require_pushed_authorization_requests")) {
            try ProviderMetadata.process(discoveryDocument(["require_pushed_authorization_requests": "\"yes\""]), expectedIssuer: issuer)
        }
        #expect(throws: DiscoveryError.wrongType("token_endpoint_auth_methods_supported")) {
            try ProviderMetadata.process(
                discoveryDocument(["token_endpoint_auth_methods_supported": "\"client_secret_basic\""]), expectedIssuer: issuer)
        }
        #expect(
            throws: DiscoveryError.refusedEndpoint(
                field: "pushed_authorization_request_endpoint", url: "http://auth.pingone.com/par", .insecure)
        ) {
            try ProviderMetadata.process(
                discoveryDocument(["pushed_authorization_request_endpoint": "\"http://auth.pingone.com/par\""]), expectedIssuer: issuer)
        }
    }
}
