import Testing

@testable import PingBase
@testable import PingCrypto
@testable import PingHTTP
@testable import PingOAuth
@testable import PingPlatform
@testable import PingState

/// The gate of `token --scope`, `--resource`, `--audience`, the requests they make, and their cache file.
@Suite("token targets: gate, requests, cache format")
struct TokenTargetTests {
    func rule(_ scope: String?, _ resource: String?, _ audience: String?) -> Rule? {
        do {
            _ = try TokenTarget(scope: scope, resource: resource, audience: audience)
            return nil
        } catch {
            #expect(error.cliError.status == .usage && !error.cliError.message.contains("\n"))
            return error.rule
        }
    }

    @Test("target-scope-grammar: --scope must be RFC 6749 §3.3 scope tokens; duplicates dropped, order kept")
    func scopeGrammar() throws {
        for bad in ["", "   ", "a\"b", "a\\b", "caf\u{E9}", "a\tb", "a\nb"] {
            #expect(rule(bad, nil, nil) == .targetScopeGrammar, "\(bad)")
        }
        let target = try TokenTarget(scope: "orders:write orders:read orders:write", resource: nil, audience: nil)
        #expect(target.scope == "orders:write orders:read")
        #expect(target.cacheKey == (try TokenTarget(scope: "orders:read  orders:write", resource: nil, audience: nil)).cacheKey)
    }

    @Test("target-resource-uri: --resource must be an absolute URI without a fragment (RFC 8707 §2); urn: and a query pass")
    func resourceURI() {
        for bad in [
            "orders", "/orders", "//orders.example.com", "https://orders.example.com/#x", "https:", "1http://x", "https://a b", ":x",
        ] {
            #expect(rule(nil, bad, nil) == .targetResourceURI, "\(bad)")
        }
        for good in ["https://orders.example.com", "urn:example:orders", "https://api.example.com/v1?tenant=a", "http://127.0.0.1:8080/x"] {
            #expect(rule(nil, good, nil) == nil, "\(good)")
        }
        #expect(rule(nil, "https://x/" + String(repeating: "a", count: 2048), nil) == .targetResourceURI)
    }

    @Test("target-audience-grammar: --audience is 1-2048 visible ASCII characters")
    func audienceGrammar() {
        for bad in ["", "a b", "a\u{7F}", "\u{E9}", String(repeating: "a", count: 2049)] {
            #expect(rule(nil, nil, bad) == .targetAudienceGrammar)
        }
        #expect(rule(nil, nil, "Orders") == nil && rule(nil, nil, "https://orders.example.com") == nil)
    }

    @Test("target-requests: refresh (RFC 6749 §6, RFC 8707 §2.2), token exchange (RFC 8693 §2.1) and client credentials carry the target")
    func requests() throws {
        let endpoint: EndpointURL = "https://i/t"
        let client = ClientCredentials(clientID: "c", secret: nil, method: nil)
        let target = try TokenTarget(scope: "a b", resource: "https://r", audience: "Orders")
        func form(_ request: HTTPRequest) -> [String: String] {
            Dictionary(
                (FormEncoding.decode(String(decoding: request.body ?? [], as: UTF8.self)) ?? []).map { ($0.0, $0.1) },
                uniquingKeysWith: { $1 })
        }
        let refresh = form(TokenEndpoint.refreshRequest(endpoint: endpoint, refreshToken: "rt", client: client, target: target))
        #expect(refresh["grant_type"] == "refresh_token" && refresh["refresh_token"] == "rt")
        #expect(refresh["scope"] == "a b" && refresh["resource"] == "https://r" && refresh["audience"] == nil)
        let exchange = form(TokenEndpoint.tokenExchangeRequest(endpoint: endpoint, subjectToken: "at", client: client, target: target))
        #expect(exchange["grant_type"] == "urn:ietf:params:oauth:grant-type:token-exchange")
        #expect(exchange["subject_token"] == "at" && exchange["subject_token_type"] == "urn:ietf:params:oauth:token-type:access_token")
        #expect(exchange["requested_token_type"] == "urn:ietf:params:oauth:token-type:access_token")
        #expect(exchange["audience"] == "Orders" && exchange["resource"] == "https://r" && exchange["scope"] == "a b")
        let machine = form(
            TokenEndpoint.clientCredentialsRequest(
                endpoint: endpoint, client: client, target: try TokenTarget(scope: nil, resource: "https://r", audience: nil)))
        #expect(machine["grant_type"] == "client_credentials" && machine["scope"] == nil && machine["resource"] == "https://r")
    }

    @Test(
        "target-cache-format: records round-trip under the key and session; another key, profile, binding, session or tokens.enc's format read as nothing"
    )
    func cacheFormat() throws {
        let key = Sodium.randomBytes(32)
        let sessionID = Sodium.randomBytes(16)
        let profile = Profile(
            issuer: "https://i", clientID: "c", scopes: ["openid"],
            metadata: ProviderMetadata(issuer: "https://i", authorizationEndpoint: "https://i/a", tokenEndpoint: "https://i/t"))
        let record = TokenSet(
            accessToken: "narrow-secret", tokenType: "Bearer", expiresAt: 1_900_000_100, refreshToken: nil, idToken: nil,
            scope: "orders:read", obtainedAt: 1_900_000_000)
        let records = ["scope=orders:read\nresource=\naudience=": record]
        let bytes = TargetedTokenFile.encode(records, key: key, name: .default, profile: profile, session: sessionID)
        #expect(Array(bytes.prefix(4)) == Array("PCLT".utf8))
        #expect(TargetedTokenFile.decode(bytes, key: key, name: .default, profile: profile, session: sessionID) == records)
        #expect(TargetedTokenFile.decode(bytes, key: Sodium.randomBytes(32), name: .default, profile: profile, session: sessionID) == nil)
        #expect(TargetedTokenFile.decode(bytes, key: key, name: try ProfileName("other"), profile: profile, session: sessionID) == nil)
        var changed = profile
        changed.clientID = "d"
        #expect(TargetedTokenFile.decode(bytes, key: key, name: .default, profile: changed, session: sessionID) == nil)
        let session = EncryptedTokenFile.encode(record, key: key, name: .default, profile: profile)
        #expect(TargetedTokenFile.decode(session, key: key, name: .default, profile: profile, session: sessionID) == nil)
        for other in [nil, Sodium.randomBytes(16)] {
            #expect(TargetedTokenFile.decode(bytes, key: key, name: .default, profile: profile, session: other) == nil)
        }
        #expect((try? EncryptedTokenFile.decode(bytes, key: key, name: .default, profile: profile)) == nil)
        for cut in [0, 10, 63, bytes.count - 1] {
            #expect(
                TargetedTokenFile.decode(Array(bytes.prefix(cut)), key: key, name: .default, profile: profile, session: sessionID) == nil)
        }
    }

    @Test("target-discovery: grant_types_supported is read from discovery and kept in profile.json")
    func grantTypesSaved() throws {
        var metadata = ProviderMetadata(issuer: "https://i", authorizationEndpoint: "https://i/a", tokenEndpoint: "https://i/t")
        metadata.grantTypesSupported = ["refresh_token", TokenEndpoint.tokenExchangeGrantType]
        let profile = Profile(issuer: "https://i", clientID: "c", scopes: ["openid"], metadata: metadata)
        let json = try JSONValueEncoder.encode(profile).rendered(pretty: false)
        let read = try Profile(savedJSON: Array(json.utf8))
        #expect(read.metadata.grantTypesSupported == metadata.grantTypesSupported)
    }

    @Test("target-issued-type: a token exchange's answer must say it issued an access token (RFC 8693 §2.2.1)")
    func issuedTokenType() {
        func answer(_ members: String) -> HTTPResponse {
            HTTPResponse(
                status: 200, headers: ["content-type": "application/json"], body: Array("{\"access_token\":\"abc\"\(members)}".utf8))
        }
        #expect(
            TokenEndpoint.unusableIssuedTokenType(answer(",\"issued_token_type\":\"urn:ietf:params:oauth:token-type:access_token\"")) == nil
        )
        #expect(
            TokenEndpoint.unusableIssuedTokenType(answer(",\"issued_token_type\":\"urn:ietf:params:oauth:token-type:id_token\""))
                == "urn:ietf:params:oauth:token-type:id_token")
        #expect(TokenEndpoint.unusableIssuedTokenType(answer("")) == "(missing)")
    }
}
