import Foundation
import PingEmulator
import Testing

/// Protocol rules enforced by the built binary against the emulator's fault switches.
@Suite("protocol rules, end to end")
struct NegativeEndToEndTests {
    /// A login against a new emulator with `faults`, which must fail with exit 1 by `rule`: the run, the
    /// emulator (stopped once the login ended) and the sandbox.
    @discardableResult
    func expectRefused(
        _ faults: Faults, rule: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (
        CLIRun, Emulator, Sandbox
    ) {
        let (emulator, sandbox) = try emulatorAndSandbox()
        emulator.faults = faults
        let run = sandbox.login(emulator)
        emulator.stop()
        #expect(run.status == 1, "\(run)", sourceLocation: sourceLocation)
        #expect(run.rule == rule, "\(run)", sourceLocation: sourceLocation)
        return (run, emulator, sandbox)
    }

    @Test("discovery-issuer-mismatch: the binary refuses a provider that names another issuer")
    func discoveryIssuerMismatch() throws {
        let (run, emulator, _) = try expectRefused(
            Faults(discoveryOverrides: ["issuer": .string("https://impostor.example/as")]), rule: "discovery-issuer-mismatch")
        #expect(run.stderr.contains("is for issuer https://impostor.example/as"))
        #expect(emulator.requests(to: .authorize).isEmpty)
    }

    @Test("discovery-s256-unsupported: the binary refuses a provider without S256")
    func discoveryWithoutS256() throws {
        try expectRefused(
            Faults(discoveryOverrides: ["code_challenge_methods_supported": .array([.string("plain")])]), rule: "discovery-s256-unsupported"
        )
    }

    @Test("discovery-insecure-endpoint: an http token endpoint on a public host is refused")
    func insecureEndpoint() throws {
        let (run, _, _) = try expectRefused(
            Faults(discoveryOverrides: ["token_endpoint": .string("http://auth.example.com/as/token")]), rule: "discovery-insecure-endpoint"
        )
        #expect(run.stderr.contains("token_endpoint http://auth.example.com/as/token was refused: it is not https"))
    }

    @Test("invalid-iss: an authorization response from another issuer ends the login (RFC 9207)")
    func wrongIssInResponse() throws {
        let (_, emulator, _) = try expectRefused(
            Faults(authorizationResponseOverrides: ["iss": "https://impostor.example/as"]), rule: "invalid-iss")
        #expect(emulator.requests(to: .token).isEmpty, "the code is never redeemed")
    }

    @Test("missing-iss: no iss although the server advertises it")
    func missingIssInResponse() throws {
        let (_, emulator, _) = try expectRefused(Faults(authorizationResponseOverrides: ["iss": nil]), rule: "missing-iss")
        #expect(emulator.requests(to: .token).isEmpty)
    }

    @Test("access-denied: the server's error and description reach the user, exit 1")
    func accessDenied() throws {
        let (run, _, _) = try expectRefused(
            Faults(authorizationResponseOverrides: ["code": nil, "error": "access_denied", "error_description": "The user said no"]),
            rule: "access-denied")
        #expect(run.stderr.contains("the sign-in was declined at the provider (access_denied: The user said no)"))
    }

    @Test("token-error-object: a token endpoint error shows error, description and uri")
    func tokenError() throws {
        let error = CannedOAuthError(
            status: 400, error: "invalid_client", errorDescription: "Client disabled", errorURI: "https://docs.example/e")
        let (run, _, _) = try expectRefused(Faults(tokenErrors: ["authorization_code": error]), rule: "token-error-object")
        #expect(run.stderr.contains("invalid_client: Client disabled (see https://docs.example/e)"))
    }

    @Test("invalid-nonce: an ID token with another nonce is refused and nothing is cached")
    func wrongNonce() throws {
        let (_, _, sandbox) = try expectRefused(Faults(idTokenClaimOverrides: ["nonce": .string("not-the-one")]), rule: "invalid-nonce")
        #expect(!FileManager.default.fileExists(atPath: sandbox.stateDirectory + "/tokens.enc"))
    }

    @Test("id-token-aud-without-client: an ID token for another client is refused")
    func wrongAudience() throws {
        try expectRefused(Faults(idTokenClaimOverrides: ["aud": .string("someone-else")]), rule: "id-token-aud-without-client")
    }

    @Test("server-unreachable: a closed port exits 3")
    func unreachable() throws {
        let emulator = try startEmulator()
        let issuer = emulator.issuer
        emulator.stop()
        let run = Sandbox().run(["login", "--issuer", issuer, "--client-id", "pingcli-test"])
        #expect(run.status == 3, "\(run)")
        #expect(run.stderr.contains("check your network"))
        #expect(run.rule == "server-unreachable", "\(run)")
    }

    @Test(
        "usage errors exit 2 with one line",
        arguments: [
            (["login", "--bogus"], "unknown option --bogus", "option-unknown"),
            (["login", "--issuer"], "--issuer needs a value", "option-value"),
            (["login", "--issuer", "not a url", "--client-id", "x"], "is not a URL", "issuer-not-a-url"),
            (
                ["login", "--issuer", "https://a.example", "--client-id", "x", "--timeout", "-5"], "--timeout must be a whole number",
                "seconds-gate"
            ),
            (["login", "--issuer", "https://a.example"], "missing --client-id", "login-settings-missing"),
            (["token", "--min-ttl", "soon"], "--min-ttl must be a whole number", "seconds-gate"),
            (["frobnicate"], "unknown command", "command-unknown"),
            (
                ["login", "--issuer", "https://a.example", "--client-id", "x", "--param", "state=1"], "--param cannot set state",
                "param-gate"
            ),
            (
                ["login", "--issuer", "https://a.example", "--client-id", "x", "--logout-port", "70000"],
                "--logout-port must be a number from 0 to 65535", "port-gate"
            ),
            (["logout", "--end-session", "--port", "-1"], "--port must be a number from 0 to 65535", "port-gate"),
        ])
    func usageErrors(arguments: [String], expected: String, rule: String) {
        let run = Sandbox().run(arguments)
        #expect(run.status == 2, "\(run)")
        #expect(run.rule == rule, "\(run)")
        #expect(run.stderr.contains(expected))
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(run.stdout.isEmpty)
    }
}
