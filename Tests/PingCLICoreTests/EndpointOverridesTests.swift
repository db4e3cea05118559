import Testing

@testable import PingBase
@testable import PingLogin
@testable import PingOAuth
@testable import PingState

/// `login --token-endpoint URL` and the like: every URL through the endpoint policy for the issuer,
/// merged over the saved ones, and enough on their own (authorization + token) without discovery.
@Suite struct EndpointOverridesTests {
    func overrides(_ given: [EndpointField: String], issuer: String) throws(PingCLIError) -> EndpointOverrides {
        let checked: IssuerURL
        do { checked = try IssuerURL(issuer) } catch { throw error.cliError }
        do { return try EndpointOverrides(checking: given, issuer: checked) } catch { throw error.cliError }
    }

    @Test(
        "override-endpoint-policy: an endpoint option the gate refuses is a usage error naming the option, whatever the field",
        arguments: [
            ("https://auth.example.com", "http://auth.example.com/token", "is not https"),
            ("https://auth.example.com", "https://127.0.0.1/token", "points at this machine"),
            ("https://auth.example.com", "https://user:pw@auth.example.com/token", "user information"),
            ("https://auth.example.com", "https://auth.example.com/token#x", "#fragment"),
            ("https://auth.example.com", "https://auth.example.com/to ken", "characters a URL cannot contain"),
            ("https://auth.example.com", "ftp://auth.example.com/token", "is not https"),
            ("http://127.0.0.1:8080", "http://auth.example.com/token", "is not https"),
        ])
    func refused(issuer: String, url: String, reason: String) throws {
        for field in EndpointField.allCases {
            do {
                _ = try overrides([field: url], issuer: issuer)
                Issue.record("\(field) \(url) was accepted for \(issuer)")
            } catch {
                #expect(throws: EndpointOverrides.Failure.self) { try EndpointOverrides(checking: [field: url], issuer: IssuerURL(issuer)) }
                #expect(error.rule == .overrideEndpointPolicy)
                #expect(error.status == .usage)
                #expect(error.message.hasPrefix("--\(field.option) "), "\(error.message)")
                #expect(error.message.contains(reason), "\(error.message)")
            }
        }
    }

    @Test("override-endpoint-allowed: https endpoints on any host for an https issuer; http on loopback for a loopback issuer")
    func allowed() throws {
        let remote = try overrides(
            [.token: "https://gateway.example.net/oauth/token", .jwks: "https://keys.example.org/jwks"], issuer: "https://auth.example.com")
        #expect(remote.names == ["token_endpoint", "jwks_uri"])
        let local = try overrides([.authorization: "http://127.0.0.1:9/a", .token: "http://localhost:9/t"], issuer: "http://127.0.0.1:9")
        #expect(local.names == ["authorization_endpoint", "token_endpoint"])
    }

    @Test("override-standalone: without discovery, the authorization and token endpoints make the metadata; one alone does not")
    func standalone() throws {
        let issuer = try IssuerURL("https://auth.example.com")
        let onlyToken = try overrides([.token: "https://auth.example.com/t"], issuer: issuer.value)
        #expect(onlyToken.standalone(issuer: issuer) == nil)
        let both = try overrides(
            [
                .authorization: "https://auth.example.com/a", .token: "https://auth.example.com/t",
                .revocation: "https://auth.example.com/r",
            ],
            issuer: issuer.value)
        let metadata = try #require(both.standalone(issuer: issuer))
        #expect(metadata.issuer == issuer.value)
        #expect(metadata.authorizationEndpoint.value == "https://auth.example.com/a")
        #expect(metadata.revocationEndpoint?.value == "https://auth.example.com/r")
        #expect(metadata.userinfoEndpoint == nil)
        #expect(!metadata.discovered)
    }

    @Test("override-saved: a profile records its overrides, reads them back through the gate, and binds them to the cache")
    func saved() throws {
        let issuer = try IssuerURL("https://auth.example.com")
        let given = try overrides([.userinfo: "https://api.example.com/me"], issuer: issuer.value)
        var metadata = ProviderMetadata(
            issuer: issuer.value, authorizationEndpoint: EndpointURL("https://auth.example.com/a"),
            tokenEndpoint: EndpointURL("https://auth.example.com/t"))
        given.apply(to: &metadata)
        var profile = Profile(issuer: issuer.value, clientID: "c", scopes: ["openid"], metadata: metadata)
        let before = profile.bindingDigest
        profile.record(given, metadata: metadata)
        #expect(profile.endpointOverrides == ["userinfo_endpoint"])
        #expect(profile.discovery == nil)
        #expect(profile.bindingDigest != before, "the list is bound: an edited profile.json cannot add overrides")
        let json = try JSONValueEncoder.encode(profile).rendered(pretty: false)
        let read = try Profile(savedJSON: Array(json.utf8))
        #expect(read.endpointOverrides == ["userinfo_endpoint"])
        #expect(EndpointOverrides(saved: read) == given)

        // The flags win field by field; an empty value forgets a saved one.
        let flags = try overrides([.token: "https://auth.example.com/t2"], issuer: issuer.value)
        let merged = flags.merged(over: EndpointOverrides(saved: read), forgetting: [])
        #expect(merged.names == ["token_endpoint", "userinfo_endpoint"])
        #expect(flags.merged(over: EndpointOverrides(saved: read), forgetting: [.userinfo]).names == ["token_endpoint"])
    }

    @Test(
        "override-same-issuer: saved endpoints follow the profile to a later login of the same issuer only; flags are checked for the new issuer"
    )
    func sameIssuerOnly() throws {
        let issuer = "https://auth.example.com/env/as"
        var profile = Profile(
            issuer: issuer, clientID: "c", scopes: ["openid"],
            metadata: ProviderMetadata(
                issuer: issuer, authorizationEndpoint: EndpointURL(stringLiteral: issuer + "/authorize"),
                tokenEndpoint: EndpointURL(stringLiteral: "https://gateway.example.com/token")))
        profile.endpointOverrides = ["token_endpoint"]
        let again = try LoginPlan.resolve(.init(), environment: [:], saved: profile, profile: .default)
        #expect(again.endpoints.urls[.token]?.value == "https://gateway.example.com/token")
        let elsewhere = try LoginPlan.resolve(
            .init(issuer: "https://other.example.com"), environment: [:], saved: profile, profile: .default)
        #expect(elsewhere.endpoints.isEmpty)
        #expect(throws: PingCLIError.self) {
            try LoginPlan.resolve(
                .init(issuer: "https://other.example.com", endpoints: [.token: "https://127.0.0.1/token"]), environment: [:],
                saved: profile, profile: .default)
        }
    }
}

@Suite struct EndpointOptionTests {
    @Test("override-options: login has one --OPTION URL per endpoint field, named after its metadata member")
    func optionsMatchFields() {
        #expect(LoginCommand.endpointSpecs.map(\.name) == EndpointField.allCases.map(\.option))
        #expect(LoginCommand.endpointSpecs.allSatisfy { $0.valueName == "URL" })
        for field in EndpointField.allCases {
            #expect(LoginCommand.endpointSpecs.contains { $0.name == field.option && $0.help.contains(field.rawValue) })
        }
    }
}
