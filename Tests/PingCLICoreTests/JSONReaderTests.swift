import Testing

@testable import PingBase
@testable import PingCrypto
@testable import PingOAuth
@testable import PingState

@Suite("JSON reader and saved profiles")
struct JSONReaderTests {
    func parse(_ text: String) -> JSONValue? { JSONReader.parse(Array(text.utf8)) }

    @Test("json-reader-accepts: RFC 8259 values, escapes, surrogate pairs, numbers and whitespace")
    func accepts() {
        #expect(
            parse(#" { "a" : [1, -0.5, 2e3, 1E-2, true, false, null, "x"], "b": {}, "c": [] } "#)
                == .object([
                    "a": .array([.number(1), .number(-0.5), .number(2000), .number(0.01), .bool(true), .bool(false), .null, .string("x")]),
                    "b": .object([:]), "c": .array([]),
                ]))
        #expect(parse(#""\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00 é""#) == .string("\"\\/\u{8}\u{c}\n\r\té😀 é"))
        #expect(parse("\"\(String(repeating: "[", count: 0))\"") == .string(""))
        #expect(parse(String(repeating: "[", count: 512) + String(repeating: "]", count: 512)) != nil)
    }

    @Test(
        "json-reader-refuses: invalid JSON, duplicate names, lone surrogates, control characters, bad UTF-8, too deep",
        arguments: [
            "", "{", "{\"a\":1,}", "[1,]", "{\"a\" 1}", "{a:1}", "01", "1.", ".5", "-", "1e", "+1", "0x10", "1e400", "NaN",
            "tru", "nul", "\"abc", "\"a\u{1}b\"", "\"\\x\"", "\"\\u12\"", "\"\\ud83d\"", "\"\\ud83d\\u0041\"", "\"\\ude00\"",
            "{\"a\":1,\"a\":2}", "{} {}", "[1] x", "'a'",
        ])
    func refuses(text: String) {
        #expect(parse(text) == nil, "\(text)")
    }

    @Test("json-reader-refuses-bytes: invalid UTF-8 in a string, and nesting deeper than 512")
    func refusesBytes() {
        #expect(JSONReader.parse([0x22, 0xC3, 0x28, 0x22]) == nil)
        #expect(JSONReader.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) == nil)  // an encoded surrogate
        #expect(parse(String(repeating: "[", count: 513) + String(repeating: "]", count: 513)) == nil)
        #expect(parse(String(repeating: "[", count: 100_000)) == nil)
    }

    @Test("json-reader-matches-renderer: what pingcli renders reads back the same")
    func matchesRenderer() {
        let value = JSONValue.object([
            "s": .string("a\u{1b}\u{7f}\u{85}\u{202e}\"\\\n/é😀"), "n": .number(-12.5), "i": .number(1_800_000_000),
            "a": .array([.bool(true), .null, .object(["k": .string("")])]),
        ])
        for pretty in [true, false] {
            #expect(parse(value.rendered(pretty: pretty)) == value)
        }
    }

    let profile = Profile(
        issuer: "https://i.example/as", clientID: "client \"1\"", scopes: ["openid", "offline_access"],
        metadata: ProviderMetadata(
            issuer: "https://i.example/as", authorizationEndpoint: "https://i.example/as/authorize",
            tokenEndpoint: "https://i.example/as/token", userinfoEndpoint: "https://i.example/as/userinfo",
            revocationEndpoint: "https://i.example/as/revoke", endSessionEndpoint: "https://i.example/as/signoff",
            introspectionEndpoint: "https://i.example/as/introspect", jwksURI: "https://i.example/as/jwks",
            deviceAuthorizationEndpoint: "https://i.example/as/device", pushedAuthorizationRequestEndpoint: "https://i.example/as/par",
            requirePushedAuthorizationRequests: true, codeChallengeMethodsSupported: ["S256"],
            authorizationResponseIssParameterSupported: false, tokenEndpointAuthMethodsSupported: ["client_secret_basic"],
            revocationEndpointAuthMethodsSupported: []),
        caFile: "/etc/ca é.pem", tokenEndpointAuthMethod: .clientSecretPost, revocationEndpointAuthMethod: .clientSecretBasic,
        grantType: .deviceCode, port: 8765, logoutPort: 8252, maxAge: 300, acrValues: ["urn:strong", "urn:mfa"],
        subject: "user-1")

    /// profile.json as `saveProfile` writes it.
    func saved(_ profile: Profile) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(profile))
    }

    @Test("profile-json-round-trip: every member written by JSONEncoder reads back; unknown members are ignored")
    func profileRoundTrip() throws {
        #expect(try Profile(savedJSON: try saved(profile)) == profile)
        let minimal = Profile(
            issuer: "http://127.0.0.1:9/as", clientID: "c", scopes: [],
            metadata: ProviderMetadata(
                issuer: "http://127.0.0.1:9/as", authorizationEndpoint: "http://127.0.0.1:9/a", tokenEndpoint: "http://127.0.0.1:9/t"))
        #expect(try Profile(savedJSON: try saved(minimal)) == minimal)
        var text = String(decoding: try saved(minimal), as: UTF8.self)
        text = text.replacing("\"scopes\"", with: "\"x_unknown\" : 9000, \"future\" : {\"x\" : [null]}, \"ca_file\" : null, \"scopes\"")
        #expect(try Profile(savedJSON: Array(text.utf8)) == minimal)
    }

    @Test(
        "profile-json-damaged: a known member of the wrong type, a missing member or an unknown method makes the file damaged",
        arguments: [
            ("\"port\" : 8765", "\"port\" : \"8765\""), ("\"port\" : 8765", "\"port\" : 70000"), ("\"port\" : 8765", "\"port\" : 1.5"),
            ("\"logout_port\" : 8252", "\"logout_port\" : \"8252\""), ("\"logout_port\" : 8252", "\"logout_port\" : -1"),
            ("\"grant_type\" : \"urn:ietf:params:oauth:grant-type:device_code\"", "\"grant_type\" : \"password\""),
            ("\"token_endpoint_auth_method\" : \"client_secret_post\"", "\"token_endpoint_auth_method\" : \"client_secret_jwt\""),
            ("\"client_id\" : \"client \\\"1\\\"\"", "\"client_id\" : 1"), ("\"client_id\" : \"client \\\"1\\\"\"", "\"x\" : 1"),
            ("\"require_pushed_authorization_requests\" : true", "\"require_pushed_authorization_requests\" : \"yes\""),
            ("\"S256\"", "256"), ("\"token_endpoint\" : \"https://i.example/as/token\"", "\"token_endpoint\" : null"),
            ("\"ca_file\" : \"/etc/ca é.pem\"", "\"ca_file\" : [\"/etc/ca.pem\"]"),
            ("\"max_age\" : 300", "\"max_age\" : 1.5"), ("\"max_age\" : 300", "\"max_age\" : -1"),
            ("\"max_age\" : 300", "\"max_age\" : \"300\""), ("\"subject\" : \"user-1\"", "\"subject\" : 1"),
        ])
    func damaged(member: String, replacement: String) throws {
        let text = String(decoding: try saved(profile), as: UTF8.self)
        #expect(text.contains(member), "the fixture has \(member)")
        #expect(throws: SavedProfileError.damaged) { try Profile(savedJSON: Array(text.replacing(member, with: replacement).utf8)) }
    }

    @Test("profile-json-refused: an endpoint the URL gate refuses names its member")
    func refused() throws {
        let text = String(decoding: try saved(profile), as: UTF8.self)
            .replacing("https://i.example/as/revoke", with: "http://evil.example/revoke")
        do {
            _ = try Profile(savedJSON: Array(text.utf8))
            Issue.record("the edited revocation endpoint was accepted")
        } catch {
            guard case .refused(let field, let url, _) = error else { return #expect(Bool(false), "\(error)") }
            #expect(field == "revocation_endpoint" && url == "http://evil.example/revoke")
        }
    }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("JSON writing without Foundation")
struct JSONValueEncoderTests {
    let profile = JSONReaderTests().profile

    @Test("json-writer-matches-jsonencoder: profile.json, the refresh record and the old cache JSON equal JSONEncoder's")
    func matchesJSONEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let tokens = TokenSet(
            accessToken: "a", tokenType: "Bearer", expiresAt: 1_900_000_000.5, refreshToken: "r", idToken: "h.p.", scope: "openid",
            obtainedAt: 1_800_000_000, clientSecret: try ClientSecret(checking: "s"))
        let failure = RefreshFailure(
            failedAt: 1_800_000_001.25, retryAfter: 1_800_000_011, attempts: 2, status: 3, message: "it failed: \"x\"",
            obtainedAt: 1_800_000_000, transient: true)
        func parsed(_ data: Data) -> JSONValue? { JSONReader.parse(Array(data)) }
        #expect(try JSONValueEncoder.encode(profile) == parsed(try encoder.encode(profile)))
        #expect(try JSONValueEncoder.encode(tokens) == parsed(try encoder.encode(tokens)))
        #expect(try JSONValueEncoder.encode(failure) == parsed(try encoder.encode(failure)))
        // profile.json keeps its layout, byte for byte, for a profile as logins write them.
        var plain = profile
        plain.metadata.revocationEndpointAuthMethodsSupported = ["client_secret_basic"]
        plain.caFile = "/etc/ca.pem"
        plain.clientID = "client-1"
        let written = try JSONValueEncoder.encode(plain).rendered(pretty: true, spaceBeforeColon: true)
        #expect(written == String(decoding: try encoder.encode(plain), as: UTF8.self))
    }

    @Test("base64-standard: Basic authentication's alphabet and padding (RFC 4648 §4 test vectors)")
    func base64Standard() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (text, expected) in vectors { #expect(Base64URL.encodeStandard(Array(text.utf8)) == expected) }
        #expect(Base64URL.encodeStandard([0xFB, 0xFF, 0xBF]) == "+/+/")
        #expect(Base64URL.encodeStandard([0xFB, 0xFF, 0xBF]) == Data([0xFB, 0xFF, 0xBF]).base64EncodedString())
    }
}
