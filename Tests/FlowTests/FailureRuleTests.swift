import Foundation
import PingEmulator
import Testing

@testable import PingBase
@testable import PingState

/// Every failure a flow reports carries the rule it enforces (`PingCLIError.rule`): a provider made to
/// break one rule at a time, and the rule asserted, not the message's wording. `FlowRun.rule` is the
/// rule of the error that ended the command.
@Suite("failure rules: discovery, token endpoint, ID token, JWKS, PAR, revocation, userinfo, round trip, key store, DPoP")
struct FailureRuleTests {
    /// A login against a provider with `faults`, and the rule that refused it.
    func loginRule(
        _ extra: [String] = [], configure: (inout EmulatorConfiguration) -> Void = { _ in }, faults: (inout Faults) -> Void
    ) throws -> FlowRun {
        let harness = try FlowHarness(configure)
        faults(&harness.emulator.faults)
        let run = harness.login(extra)
        #expect(run.status != 0, "\(run)")
        #expect(FileManager.default.contents(atPath: harness.profileDirectory + "/profile.json") == nil, "nothing saved")
        return run
    }

    @Test(
        "discovery rules: each refusal of the provider's configuration names its rule",
        arguments: [
            (.discoveryIssuerMismatch, ["issuer": EmulatorJSON.string("https://other.example.com")]),
            (.discoveryMissingField, ["token_endpoint": .null]),
            (.discoveryMalformedField, ["authorization_response_iss_parameter_supported": .string("yes")]),
            (.discoveryS256Unsupported, ["code_challenge_methods_supported": .array([.string("plain")])]),
            (.discoveryInsecureEndpoint, ["userinfo_endpoint": .string("http://example.com/userinfo")]),
        ] as [(Rule, [String: EmulatorJSON])])
    func discovery(rule: Rule, overrides: [String: EmulatorJSON]) throws {
        let run = try loginRule { $0.discoveryOverrides = overrides }
        #expect(run.rule == rule, "\(run)")
    }

    @Test(
        "discovery-http-error, discovery-not-json, discovery-redirect: what answers instead of a configuration",
        arguments: [
            (.discoveryHTTPError, CannedResponse(status: 500, contentType: "text/html", body: "<h1>oops</h1>")),
            (.discoveryNotJSON, CannedResponse(status: 200, contentType: "text/html", body: "<h1>hello</h1>")),
            (.discoveryRedirect, CannedResponse(status: 302, body: "", headers: ["Location": "https://elsewhere.example.com/"])),
        ] as [(Rule, CannedResponse)])
    func discoveryAnswer(rule: Rule, response: CannedResponse) throws {
        let run = try loginRule { $0.responseOverrides = [.discovery: response] }
        #expect(run.rule == rule, "\(run)")
    }

    @Test(
        "token endpoint rules at login: the code exchange's refusals",
        arguments: [
            (.tokenErrorObject, ["error": EmulatorJSON.string("invalid_client")], 400),
            (.tokenMissingAccessToken, ["access_token": .null], 200),
            (.tokenTypeUnsupported, ["token_type": .string("mac")], 200),
            (.tokenExpiresInInvalid, ["expires_in": .number(-1)], 200),
            (.scopeGrammar, ["scope": .string("openid \"profile\"")], 200),
            (.tokenGrammar, ["access_token": .string("not a token")], 200),
        ] as [(Rule, [String: EmulatorJSON], Int)])
    func tokenEndpoint(rule: Rule, overrides: [String: EmulatorJSON], status: Int) throws {
        let run = try loginRule { faults in
            if status == 200 {
                faults.tokenResponseOverrides = overrides
            } else {
                faults.responseOverrides = [
                    .token: CannedResponse(status: status, contentType: "application/json", body: "{\"error\":\"invalid_client\"}")
                ]
            }
        }
        #expect(run.rule == rule, "\(run)")
    }

    @Test("token-not-json, token-http-error: a token endpoint that answers with a page")
    func tokenPages() throws {
        let html = try loginRule { $0.responseOverrides = [.token: CannedResponse(status: 200, contentType: "text/html", body: "<p>")] }
        #expect(html.rule == .tokenNotJSON, "\(html)")
        let gateway = try loginRule { $0.responseOverrides = [.token: CannedResponse(status: 502, contentType: "text/html", body: "<p>")] }
        #expect(gateway.rule == .tokenHTTPError, "\(gateway)")
    }

    @Test(
        "ID token rules at login: claims and signatures",
        arguments: [
            (.invalidNonce, ["nonce": EmulatorJSON.string("someone-else")], nil),
            (.missingNonce, ["nonce": .null], nil),
            (.idTokenAudWithoutClient, ["aud": .string("another-client")], nil),
            (.idTokenIssMismatch, ["iss": .string("https://other.example.com")], nil),
            (.idTokenExpired, ["exp": .number(TestClock.start - 3600)], nil),
            (.idTokenIatFuture, ["iat": .number(TestClock.start + 3600)], nil),
            (.idTokenBadSignature, [:], "forged"),
            (.idTokenAlgNone, [:], "none"),
            (.idTokenSignatureMissing, [:], "stripped"),
            (.idTokenBadSignature, [:], "foreign-kid"),
        ] as [(Rule, [String: EmulatorJSON], String?)])
    func idToken(rule: Rule, claims: [String: EmulatorJSON], signature: String?) throws {
        let run = try loginRule { faults in
            faults.idTokenClaimOverrides = claims
            faults.idTokenSignature = signature
        }
        #expect(run.rule == rule, "\(run)")
    }

    @Test("jwks rules: a key set that is not JSON is the provider's mistake; a 503 is passing")
    func jwks() throws {
        let page = try loginRule { $0.responseOverrides = [.jwks: CannedResponse(status: 200, contentType: "text/html", body: "<p>")] }
        #expect(page.rule == .jwksMediaType, "\(page)")
        #expect(page.status == 1)
        let down = try loginRule { $0.responseOverrides = [.jwks: CannedResponse(status: 503, body: "down")] }
        #expect(down.rule == .jwksUnavailable, "\(down)")
        #expect(down.status == 3)
    }

    @Test("par rules: a refused push and a push answered without request_uri")
    func pushedAuthorization() throws {
        let refused = try loginRule { faults in
            faults.responseOverrides = [
                .par: CannedResponse(status: 400, contentType: "application/json", body: "{\"error\":\"invalid_request\"}")
            ]
        }
        #expect(refused.rule == .parErrorObject, "\(refused)")
        let empty = try loginRule { faults in
            faults.responseOverrides = [.par: CannedResponse(status: 201, contentType: "application/json", body: "{\"expires_in\":60}")]
        }
        #expect(empty.rule == .parRequestURIMissing, "\(empty)")
        let required = try loginRule(["--no-par"], configure: { $0.pushedAuthorization = .required }) { _ in }
        #expect(required.rule == .parRequired, "\(required)")
    }

    @Test(
        "authorization response rules: iss, error and code in the redirect",
        arguments: [
            (.invalidIss, ["iss": String?.some("https://other.example.com")]),
            (.accessDenied, ["error": "access_denied", "code": nil]),
            (.errorResponse, ["error": "server_error", "code": nil]),
            (.missingCode, ["code": nil]),
        ] as [(Rule, [String: String?])])
    func authorizationResponse(rule: Rule, overrides: [String: String?]) throws {
        let run = try loginRule { $0.authorizationResponseOverrides = overrides }
        #expect(run.rule == rule, "\(run)")
    }

    @Test("login-timeout, logout-browser-fails: the browser round trip's ends")
    func roundTrip() throws {
        // A browser that only records: no sign-in arrives, and the --timeout passes on the test's clock.
        let harness = try FlowHarness()
        harness.browser = RecordingBrowser(emulator: harness.emulator, visits: false)
        #expect(harness.login().rule == .loginTimeout)
        harness.browser = RecordingBrowser(emulator: harness.emulator)
        #expect(harness.login().status == 0)
        harness.browser = RecordingBrowser(emulator: harness.emulator, failure: "cannot run xdg-open: No such file or directory")
        #expect(harness.run(["logout", "--end-session", "--port", "\(freePort())"]).rule == .logoutBrowserFails)
    }

    @Test("logout-no-revocation-endpoint and logout-revocation-refused: tokens that could not be revoked")
    func revocation() throws {
        let bare = try FlowHarness()
        bare.emulator.faults.discoveryOverrides = ["revocation_endpoint": .null]
        #expect(bare.login().status == 0)
        #expect(bare.run(["logout", "--revoke"]).rule == .logoutNoRevocationEndpoint)
        let refusing = try FlowHarness { $0.publicClientsMayRevoke = false }
        #expect(refusing.login(["--scope", "openid profile email revoke"]).status == 0)
        #expect(refusing.run(["logout", "--revoke"]).rule == .logoutRevocationRefused)
    }

    @Test("userinfo rules: a server error, an answer about someone else, no endpoint")
    func userinfo() throws {
        let harness = try loggedIn()
        harness.emulator.faults.responseOverrides = [.userinfo: CannedResponse(status: 500, contentType: "text/html", body: "<p>")]
        #expect(harness.run(["userinfo"]).rule == .userinfoHTTPError)
        harness.emulator.faults.responseOverrides = [
            .userinfo: CannedResponse(status: 200, contentType: "application/json", body: "{\"sub\":\"someone-else\"}")
        ]
        #expect(harness.run(["userinfo"]).rule == .userinfoSubMismatch)
        let none = try FlowHarness()
        none.emulator.faults.discoveryOverrides = ["userinfo_endpoint": .null]
        #expect(none.login().status == 0)
        #expect(none.run(["userinfo"]).rule == .userinfoNoEndpoint)
    }

    /// The key command's rules are in `KeyStoreTests`: nothing in this tier starts a process, since a child
    /// holds the descriptors of the locks other tests hold until it calls exec, and a lock waited for on the
    /// test's clock gives up at once.
    @Test("key store rules: the setting and a damaged key file")
    func keyStore() throws {
        let harness = try FlowHarness()
        func rule(_ environment: [String: String]) -> Rule? {
            do throws(KeySource.SettingRefused) {
                _ = try KeySource(paths: harness.paths, environment: Environment(environment))
                return nil
            } catch {
                return error.cliError.rule
            }
        }
        #expect(rule(["PINGCLI_KEY_STORE": "vault"]) == .keyStoreEnv)
        #expect(rule(["PINGCLI_KEY_STORE": "command"]) == .keyStoreEnv)
        #expect(rule(["PINGCLI_KEY_COMMAND": "true", "PINGCLI_KEY_COMMAND_TIMEOUT": "-1"]) == .keyStoreEnv)
        #expect(harness.login().status == 0)
        let keyFile = harness.paths.keyFile
        #expect(FileManager.default.createFile(atPath: keyFile, contents: Data([1, 2, 3]), attributes: [.posixPermissions: 0o600]))
        #expect(harness.run(["token", "--raw"]).rule == .keyFileDamaged)
    }

    @Test("dpop rules: a provider that does not announce DPoP, an algorithm it does not list, a token it did not bind")
    func dpop() throws {
        let unannounced = try loginRule(["--dpop"]) { $0.discoveryOverrides = ["dpop_signing_alg_values_supported": .null] }
        #expect(unannounced.rule == .dpopUnannounced, "\(unannounced)")
        let unlisted = try loginRule(["--dpop", "EdDSA"]) { faults in
            faults.discoveryOverrides = ["dpop_signing_alg_values_supported": .array([.string("ES256")])]
        }
        #expect(unlisted.rule == .dpopAlgorithmChoice, "\(unlisted)")
        let bearer = try loginRule(["--dpop"]) { $0.tokenResponseOverrides = ["token_type": .string("Bearer")] }
        #expect(bearer.rule == .dpopTokenType, "\(bearer)")
    }

    @Test("server-unreachable: a provider that cannot be reached, at discovery and at refresh")
    func unreachable() throws {
        let harness = try FlowHarness()
        harness.networkDown(true)
        #expect(harness.login().rule == .serverUnreachable)
        harness.networkDown(false)
        #expect(harness.login().status == 0)
        harness.clock.advance(by: 7200)
        harness.networkDown(true)
        #expect(harness.run(["token", "--raw"]).rule == .refreshUnreachable)
    }
}
