import Testing

@testable import PingBase
@testable import PingHTTP
@testable import PingOAuth
@testable import PingState
@testable import PingTerminal

/// The gates where provider input enters: each rule with its named negative test.
@Suite("gates: token grammar, URL policy, media types, header values, output escaping")
struct GateTests {
    // MARK: Tokens (RFC 6749 Appendix A, RFC 6750 §2.1, RFC 7515 §7.1)

    @Test("token-grammar-access: b64token only, padding only at the end")
    func accessTokenGrammar() throws {
        for good in ["abc", "a.b-c_d~e+f/g", "YWJj==", "eyJ.eyJ.sig"] { #expect((try? AccessToken(checking: good)) != nil, "\(good)") }
        for bad in ["", "a b", "a\r\nX: y", "a=b", "=", "tok\u{1b}[2J", "caf\u{e9}", "a\"b", "a,b", "a\u{85}"] {
            #expect(throws: TokenGrammarError(field: "access_token", rule: AccessToken.rule), "\(bad)") { try AccessToken(checking: bad) }
        }
        #expect((try? AccessToken(checking: String(repeating: "a", count: maximumTokenLength + 1))) == nil)
    }

    @Test("token-grammar-refresh: printable ASCII and space only (VSCHAR)")
    func refreshTokenGrammar() {
        #expect((try? RefreshToken(checking: "a b~!\"#")) != nil)
        for bad in ["", "a\nb", "a\u{7f}", "a\u{85}", "a\u{202e}b", "\u{1b}]52;c;x\u{07}"] {
            #expect((try? RefreshToken(checking: bad)) == nil, "\(bad.debugDescription)")
        }
    }

    @Test("token-grammar-id-token: JWS compact, three base64url parts, header and payload non-empty")
    func idTokenGrammar() {
        #expect((try? IDToken(checking: "eyJh.eyJz.c2ln")) != nil)
        #expect((try? IDToken(checking: "eyJh.eyJz.")) != nil, "alg none has an empty signature")
        for bad in ["eyJh.eyJz", "eyJh..sig", ".eyJz.sig", "a.b.c.d.e", "eyJ+.eyJ/.sig", "eyJh.eyJz.sig\r\n"] {
            #expect((try? IDToken(checking: bad)) == nil, "\(bad.debugDescription)")
        }
    }

    @Test("token-grammar-cache: a cached token is read back through the same gate")
    func cachedTokenGate() throws {
        let good = try JSONDecoderHelper.decode(AccessToken.self, "\"abc\"")
        #expect(good.value == "abc")
        #expect(throws: (any Error).self) { try JSONDecoderHelper.decode(AccessToken.self, "\"a\\r\\nb\"") }
    }

    @Test("token-description: interpolating a token never shows its value")
    func tokenDescription() throws {
        let token = try AccessToken(checking: "secret-value")
        #expect(!"\(token)".contains("secret"))
    }

    @Test("scope-grammar: NQCHAR tokens separated by spaces")
    func scopeGrammar() {
        #expect(isValidScope("openid profile email"))
        #expect(!isValidScope(""))
        #expect(!isValidScope("openid\nprofile"))
        #expect(!isValidScope("a\"b"))
        #expect(!isValidScope("a\\b"))
    }

    // MARK: URLs (RFC 3986, RFC 8252 §8.3)

    @Test("url-characters: controls, spaces, raw non-ASCII, C1, bidi and stray % are refused")
    func urlCharacters() {
        for bad in [
            "https://a.example/x\u{1b}[2J", "https://a.example/x y", "https://a.example/\u{e9}", "https://a.example/\u{85}",
            "https://a.example/\u{202e}", "https://a.example/%zz", "https://a.example/%4", "https://a.example/x\r\nSet-Cookie: a=b",
        ] {
            #expect(refusal(bad) == .invalidCharacters, "\(bad.debugDescription)")
        }
        #expect(refusal("https://a.example/p%20q?x=%C3%A9") == nil)
    }

    @Test("url-structure: scheme, user information, fragment, port and host are checked")
    func urlStructure() throws {
        #expect(refusal("ftp://a.example/") == .scheme("ftp"))
        #expect(refusal("javascript:alert(1)") == .scheme("javascript"))
        #expect(refusal("https://user:pw@a.example/") == .userInformation)
        #expect(refusal("https://a.example/#x") == .fragment)
        for bad in [
            "https://a.example:0/", "https://a.example:99999/", "https://a.example:/", "https:///x", "https:a.example", "https://[::1/",
        ] {
            #expect(refusal(bad) != nil, "\(bad)")
        }
        let url = try EndpointURL("HTTPS://A.Example:8443/p?q" as String)
        #expect(url.origin == "https://a.example:8443")
    }

    @Test(
        "url-loopback: every spelling of this machine is loopback, and numeric shorthands are refused outright",
        arguments: [
            ("http://127.0.0.1/", true), ("http://127.8.9.10/", true), ("http://0.0.0.0/", true), ("http://localhost/", true),
            ("http://LOCALHOST./", true), ("http://api.localhost/", true), ("http://[::1]/", true), ("http://[0:0:0:0:0:0:0:1]/", true),
            ("http://[::]/", true), ("http://[::ffff:127.0.0.1]/", true), ("http://[::ffff:7f00:1]/", true),
            ("https://auth.pingone.com/", false), ("https://10.0.0.5/", false), ("https://[2001:db8::1]/", false),
            ("https://localhost.example.com/", false),
        ])
    func loopback(url: String, expected: Bool) throws {
        let parsed = try EndpointURL(url)
        #expect(parsed.isLoopback == expected)
    }

    @Test(
        "url-ipv4-shorthand: 127.1, 2130706433, 0x7f.1 and 0177.0.0.1 are not hosts pingcli uses",
        arguments: [
            "http://127.1/", "http://2130706433/", "http://0x7f.1/", "http://0177.0.0.1/", "http://127.0.0.1.2/",
        ])
    func ipv4Shorthand(url: String) {
        #expect(refusal(url) != nil)
    }

    @Test("endpoint-policy: an https issuer's endpoints are https and never loopback; a loopback issuer may use http on loopback")
    func endpointPolicy() throws {
        let remote = try EndpointPolicy.checkIssuer("https://auth.example.com/as")
        #expect((try? EndpointPolicy.check("https://api.example.net/token", issuer: remote)) != nil)
        #expect(throws: URLPolicyError.insecure) { try EndpointPolicy.check("http://127.0.0.1:8080/token", issuer: remote) }
        #expect(throws: URLPolicyError.insecure) { try EndpointPolicy.check("http://auth.example.com/token", issuer: remote) }
        #expect(throws: URLPolicyError.loopbackFromRemoteIssuer) { try EndpointPolicy.check("https://localhost/token", issuer: remote) }
        #expect(throws: URLPolicyError.loopbackFromRemoteIssuer) { try EndpointPolicy.check("https://[::1]/token", issuer: remote) }
        let local = try EndpointPolicy.checkIssuer("http://127.0.0.1:9000/as")
        #expect((try? EndpointPolicy.check("http://localhost:9000/token", issuer: local)) != nil)
        #expect((try? EndpointPolicy.check("https://auth.example.com/token", issuer: local)) != nil)
        #expect(throws: URLPolicyError.insecure) { try EndpointPolicy.check("http://auth.example.com/token", issuer: local) }
        #expect(throws: URLPolicyError.insecure) { try EndpointPolicy.checkIssuer("http://auth.example.com/as") }
    }

    @Test("scheme-downgrade: an https issuer on loopback still gets https endpoints only, on loopback or not")
    func schemeDowngrade() throws {
        for issuer in ["https://127.0.0.1:9443/as", "https://localhost/as", "https://[::1]:8443"] {
            let local = try EndpointPolicy.checkIssuer(issuer)
            for url in ["http://127.0.0.1:8080/token", "http://localhost/token", "http://[::1]/token", "http://auth.example.com/token"] {
                #expect(throws: URLPolicyError.insecure) { try EndpointPolicy.check(url, issuer: local) }
            }
            #expect((try? EndpointPolicy.check("https://127.0.0.1:9443/as/token", issuer: local)) != nil)
            #expect((try? EndpointPolicy.check("https://auth.example.com/token", issuer: local)) != nil)
        }
        #expect(throws: DiscoveryError.self) {
            try ProviderMetadata.process(
                discoveryDocument(issuer: "https://127.0.0.1:9443/as", ["token_endpoint": "\"http://127.0.0.1:9443/as/token\""]),
                expectedIssuer: "https://127.0.0.1:9443/as")
        }
    }

    @Test("discovery-loopback-endpoint-of-https-issuer: the document is refused and names the field")
    func discoveryLoopbackEndpoint() {
        let issuer = "https://auth.pingone.com/env/as"
        for url in ["http://127.0.0.1:8080/token", "https://localhost/token", "http://localhost/token"] {
            #expect(throws: DiscoveryError.self) {
                try ProviderMetadata.process(discoveryDocument(["token_endpoint": "\"\(url)\""]), expectedIssuer: issuer)
            }
        }
    }

    @Test("profile-endpoint-policy: saved metadata goes through the same gate when read back")
    func savedMetadataGate() throws {
        let good = """
            {"issuer":"https://a.example","authorization_endpoint":"https://a.example/a","token_endpoint":"https://a.example/t"}
            """
        func read(_ text: String) throws(SavedProfileError) -> ProviderMetadata {
            guard let members = JSONValue.parseObject(Array(text.utf8)) else { throw .damaged }
            return try ProviderMetadata(saved: SavedObject(members: members))
        }
        #expect(try read(good).tokenEndpoint.value == "https://a.example/t")
        for bad in ["http://evil.example/steal", "http://127.0.0.1:9/steal", "https://a.example/t\\r\\nX: y"] {
            let edited = good.replacing("https://a.example/t\"", with: bad + "\"")
            do {
                _ = try read(edited)
                Issue.record("\(bad) was accepted")
            } catch {
                guard case .refused(let field, _, _) = error else {
                    Issue.record("\(bad): \(error) instead of a refusal")
                    continue
                }
                #expect(field == "token_endpoint", "\(bad)")
            }
        }
        // scheme-downgrade: an https issuer on loopback read back with an http endpoint is refused too.
        let loopback = "{\"issuer\":\"https://127.0.0.1:8443\",\"authorization_endpoint\":\"https://127.0.0.1:8443/a\","
        #expect(throws: SavedProfileError.self) { try read(loopback + "\"token_endpoint\":\"http://127.0.0.1:8443/t\"}") }
        #expect(try read(loopback + "\"token_endpoint\":\"https://127.0.0.1:8443/t\"}").tokenEndpoint.value == "https://127.0.0.1:8443/t")
    }

    // MARK: Media types (RFC 8259 §11, RFC 6839 §3.1)

    @Test(
        "media-type-json: application/json and +json with parameters; nothing else",
        arguments: [
            ("application/json", true), ("Application/JSON; charset=utf-8", true), ("application/jwk-set+json", true),
            ("application/problem+json;x=y", true), ("text/html", false), ("text/json", false), ("application/jsonp", false),
            ("application/+json", false), ("application/json\r\nx", false), ("", false),
        ])
    func mediaTypes(value: String, expected: Bool) {
        #expect(MediaType.isJSON(value) == expected)
    }

    @Test("media-type-not-json: a JSON body under text/html is not read as JSON")
    func jsonBodyUnderHTML() {
        let response = HTTPResponse(status: 200, headers: ["content-type": "text/html"], body: Array("{\"a\":1}".utf8))
        #expect(response.jsonObject == nil)
        #expect(MediaType.isJSON(nil) == false)
    }

    @Test(
        "expires-in-number: a JSON number or plain decimal digits",
        arguments: ["0x10", "1e3", " 60", "60 ", "+60", "-1", "inf", "nan", "", "6.5"])
    func expiresInStrings(text: String) {
        #expect(throws: TokenEndpointError.invalidExpiresIn) { try TokenEndpoint.expiresIn(.string(text)) }
    }

    @Test("expires-in-accepted: numbers and digit strings")
    func expiresInAccepted() throws {
        #expect(try TokenEndpoint.expiresIn(.string("3600")) == 3600)
        #expect(try TokenEndpoint.expiresIn(.number(60.5)) == 60.5)
        #expect(try TokenEndpoint.expiresIn(nil) == nil)
    }

    // MARK: Below the gates

    @Test("request-splitting: the transport refuses header names and values with CR, LF or controls, and URLs outside RFC 3986")
    func requestSplitting() {
        let good = HTTPRequest(method: .get, url: "https://a.example/u", headers: [("Authorization", "Bearer abc")])
        #expect((try? good.checkSafeToSend()) != nil)
        for headers in [[("Authorization", "Bearer a\r\nX-Injected: yes")], [("X\r\nY", "v")], [("A", "b\u{1b}")], [("A", "caf\u{e9}")]] {
            #expect(throws: (any Error).self) {
                try HTTPRequest(method: .get, url: "https://a.example/u", headers: headers).checkSafeToSend()
            }
        }
        #expect(throws: (any Error).self) { try HTTPRequest(method: .get, url: "https://a.example/u\r\nGET /x").checkSafeToSend() }
    }

    @Test("json-escaping: C0, DEL, C1, bidi controls and separators become \\u escapes; the text stays valid JSON")
    func jsonEscaping() {
        let value = JSONValue.object(["n": .string("a\u{1b}\u{7f}\u{85}\u{202e}\u{2066}\u{2028}\u{200b}\"\\\n/é😀"), "x": .number(3600)])
        let text = value.rendered(pretty: false)
        #expect(text == #"{"n":"a\u001b\u007f\u0085\u202e\u2066\u2028\u200b\"\\\n/é😀","x":3600}"#)
        #expect(JSONValue.parseObject(Array(text.utf8)).map(JSONValue.object) == value)
        #expect(JSONValue.object([:]).rendered(pretty: true) == "{}")
        #expect(JSONValue.array([.bool(true), .null]).rendered(pretty: true) == "[\n  true,\n  null\n]")
    }

    @Test("display-safe: one line, no escape sequences, no bidi overrides, bounded")
    func displaySafety() {
        #expect(displaySafe("a\u{1b}[2Jb\r\nc\u{85}d\u{202e}e\u{2028}f") == "a [2Jb  c d e f")
        #expect(displaySafe(String(repeating: "x", count: 10), limit: 4) == "xxxx…")
        #expect(Console.terminalSafe("line one\n\tline\u{1b}]52;c;x\u{07} two") == "line one\n\tline ]52;c;x  two")
    }
}

/// Why the URL gate refuses `text`, or nil when it accepts it.
func refusal(_ text: String) -> URLPolicyError? {
    do {
        _ = try EndpointURL(text)
        return nil
    } catch {
        return error
    }
}

/// JSONDecoder on a string, for the gate tests.
enum JSONDecoderHelper {
    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
