import Testing

@testable import PingBase
@testable import PingHTTP
@testable import PingOAuth

/// A discovery document for `issuer`, with changes.
func discoveryDocument(issuer: String = "https://auth.pingone.com/env/as", _ changes: [String: String?] = [:]) -> HTTPResponse {
    var fields: [String: String] = [
        "issuer": "\"\(issuer)\"",
        "authorization_endpoint": "\"\(issuer)/authorize\"",
        "token_endpoint": "\"\(issuer)/token\"",
        "userinfo_endpoint": "\"\(issuer)/userinfo\"",
        "code_challenge_methods_supported": "[\"S256\"]",
        "authorization_response_iss_parameter_supported": "true",
    ]
    for (key, value) in changes { fields[key] = value }
    let body = "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    return HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(body.utf8))
}

@Suite("discovery (OpenID Discovery §4, RFC 8414 §3.3)")
struct DiscoveryTests {
    let issuer = "https://auth.pingone.com/env/as"

    @Test("a valid document is accepted and its endpoints kept")
    func valid() throws {
        let metadata = try ProviderMetadata.process(discoveryDocument(), expectedIssuer: issuer)
        #expect(metadata.tokenEndpoint.value == issuer + "/token")
        #expect(metadata.authorizationResponseIssParameterSupported == true)
    }

    @Test("discovery-issuer-mismatch: a document for another issuer is refused")
    func issuerMismatch() {
        #expect(throws: DiscoveryError.issuerMismatch(expected: issuer, actual: "https://evil.example/as")) {
            try ProviderMetadata.process(discoveryDocument(issuer: "https://evil.example/as"), expectedIssuer: issuer)
        }
    }

    @Test("discovery-issuer-trailing-slash: issuers compare exactly, and the message names the right one")
    func trailingSlash() {
        let error = #expect(throws: DiscoveryError.self) {
            try ProviderMetadata.process(discoveryDocument(issuer: issuer + "/"), expectedIssuer: issuer)
        }
        #expect(error?.message(url: "u").contains("use --issuer \(issuer)/") == true)
    }

    @Test("discovery-insecure-endpoint: an http endpoint on a non-loopback host is refused")
    func insecureEndpoint() {
        #expect(
            throws: DiscoveryError.refusedEndpoint(field: "token_endpoint", url: "http://auth.example/token", .insecure)
        ) {
            try ProviderMetadata.process(
                discoveryDocument(["token_endpoint": "\"http://auth.example/token\""]), expectedIssuer: issuer)
        }
    }

    @Test("discovery-loopback-http-allowed: http on 127.0.0.1, [::1] and localhost is allowed when the issuer is loopback too")
    func loopbackAllowed() {
        let local = "http://127.0.0.1:8080/as"
        #expect(EndpointPolicy.isAllowed("http://127.0.0.1:8080/as/token", issuer: local))
        #expect(EndpointPolicy.isAllowed("http://[::1]:8080/token", issuer: local))
        #expect(EndpointPolicy.isAllowed("http://localhost/token", issuer: local))
        #expect(!EndpointPolicy.isAllowed("http://127.0.0.1.nip.io/token", issuer: local))
        #expect(!EndpointPolicy.isAllowed("ftp://127.0.0.1/token", issuer: local))
    }

    @Test("discovery-missing-field: a document without token_endpoint is refused")
    func missingField() {
        #expect(throws: DiscoveryError.missingField("token_endpoint")) {
            try ProviderMetadata.process(discoveryDocument(["token_endpoint": nil]), expectedIssuer: issuer)
        }
    }

    @Test("discovery-s256-unsupported: a server that lists PKCE methods without S256 is refused")
    func s256Unsupported() {
        #expect(throws: DiscoveryError.s256Unsupported(advertised: ["plain"])) {
            try ProviderMetadata.process(
                discoveryDocument(["code_challenge_methods_supported": "[\"plain\"]"]), expectedIssuer: issuer)
        }
    }

    @Test("discovery-s256-unlisted: a server that lists no PKCE methods still gets S256")
    func s256Unlisted() throws {
        let metadata = try ProviderMetadata.process(
            discoveryDocument(["code_challenge_methods_supported": nil]), expectedIssuer: issuer)
        #expect(metadata.codeChallengeMethodsSupported == nil)
    }

    @Test("discovery-not-json: an HTML page is refused with its content type")
    func notJSON() {
        let html = HTTPResponse(status: 200, headers: ["content-type": "text/html"], body: Array("<html>".utf8))
        #expect(throws: DiscoveryError.notJSON(contentType: "text/html")) {
            try ProviderMetadata.process(html, expectedIssuer: issuer)
        }
    }

    @Test("discovery-http-error: a 404 is refused with its status")
    func httpError() {
        #expect(throws: DiscoveryError.httpStatus(404, contentType: nil)) {
            try ProviderMetadata.process(HTTPResponse(status: 404), expectedIssuer: issuer)
        }
    }

    @Test("discovery-redirect: a redirect is not followed")
    func redirect() {
        let response = HTTPResponse(status: 302, headers: ["location": "https://other.example/"])
        #expect(throws: DiscoveryError.redirected(status: 302, location: "https://other.example/")) {
            try ProviderMetadata.process(response, expectedIssuer: issuer)
        }
    }
}

@Suite("issuer input")
struct IssuerURLTests {
    @Test("issuer-is-discovery-url: a pasted discovery URL is named and the issuer suggested")
    func discoveryURLPasted() {
        #expect(throws: IssuerURL.Failure.discoveryURL(issuer: "https://auth.pingone.com/env/as")) {
            try IssuerURL("https://auth.pingone.com/env/as/.well-known/openid-configuration")
        }
        #expect(IssuerURL.Failure.discoveryURL(issuer: "x").rule == .issuerIsDiscoveryUrl)
    }

    @Test("issuer-pingone-without-as: a PingOne environment URL gets its issuer suggested")
    func pingOneWithoutAs() {
        #expect(throws: IssuerURL.Failure.pingOneEnvironment("https://auth.pingone.eu/env", issuer: "https://auth.pingone.eu/env/as")) {
            try IssuerURL("https://auth.pingone.eu/env")
        }
        #expect(IssuerURL.Failure.pingOneEnvironment("a", issuer: "b").rule == .issuerPingoneWithoutAs)
        #expect((try? IssuerURL("https://auth.pingone.eu/env/as"))?.value == "https://auth.pingone.eu/env/as")
    }

    @Test("issuer-http-non-loopback: plain http is refused except on loopback hosts")
    func plainHTTP() {
        #expect(throws: IssuerURL.Failure.plainHTTP(suggestion: "https://auth.example.com")) { try IssuerURL("http://auth.example.com") }
        #expect(IssuerURL.Failure.plainHTTP(suggestion: "x").rule == .issuerHttpNonLoopback)
        #expect((try? IssuerURL("http://127.0.0.1:9000/env/as")) != nil)
    }

    @Test("issuer-not-a-url: text that is not an absolute URL is refused with the gate's reason")
    func notAURL() {
        #expect(throws: IssuerURL.Failure.notAURL("auth.pingone.com", .malformed("no scheme"))) { try IssuerURL("auth.pingone.com") }
        #expect(IssuerURL.Failure.notAURL("a", .malformed("no scheme")).rule == .issuerNotAUrl)
    }

    @Test("issuer-gate: another scheme, a query or a fragment is refused")
    func gate() {
        #expect(throws: IssuerURL.Failure.scheme("ftp")) { try IssuerURL("ftp://auth.example.com") }
        #expect(throws: IssuerURL.Failure.queryOrFragment) { try IssuerURL("https://auth.example.com/as?x=1") }
        #expect(throws: IssuerURL.Failure.queryOrFragment) { try IssuerURL("https://auth.example.com/as#x") }
        #expect(IssuerURL.Failure.queryOrFragment.rule == .issuerGate && IssuerURL.Failure.scheme("ftp").rule == .issuerGate)
    }

    @Test("the discovery URL is the issuer plus /.well-known/openid-configuration")
    func discoveryURL() throws {
        #expect(try IssuerURL("https://a.example/x").discoveryURL == "https://a.example/x/.well-known/openid-configuration")
        #expect(try IssuerURL("https://a.example/").discoveryURL == "https://a.example/.well-known/openid-configuration")
    }
}
