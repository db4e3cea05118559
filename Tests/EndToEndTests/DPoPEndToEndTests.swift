import Foundation
import PingEmulator
import Testing

/// DPoP (RFC 9449) through the built binary: login, the protected resource through real curl and
/// `pingcli api`, nonces, replay, refresh and revocation.
@Suite("DPoP, end to end")
struct DPoPEndToEndTests {
    /// A sandbox logged in with `--dpop` to an emulator configured by `configure`.
    static func dpopSession(
        _ configure: (inout EmulatorConfiguration) -> Void = { _ in }, extra: [String] = []
    ) throws -> (Emulator, Sandbox) {
        let (emulator, sandbox) = try emulatorAndSandbox(configure)
        let run = sandbox.login(emulator, ["--dpop"] + extra)
        #expect(run.status == 0, "\(run)")
        return (emulator, sandbox)
    }

    /// A DPoP session, the protected resource's URL, and the access token `token --raw` prints for it.
    static func resourceSession() throws -> (Emulator, Sandbox, url: String, token: String) {
        let (emulator, sandbox) = try dpopSession()
        let url = emulator.url(for: .resource) ?? "(no resource endpoint)"
        let token = sandbox.run(["token", "--raw"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return (emulator, sandbox, url, token)
    }

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// The claims of a proof (its payload), decoded.
    static func proofClaims(_ proof: String) -> [String: Any] { jwtPart(proof, 1) }

    /// The header of a proof, decoded.
    static func proofHeader(_ proof: String) -> [String: Any] { jwtPart(proof, 0) }

    private static func jwtPart(_ jwt: String, _ index: Int) -> [String: Any] {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3 else { return [:] }
        var text = parts[index].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
    }

    /// Real curl, as a script would call it.
    static func curl(_ arguments: [String]) -> CLIRun {
        runProcess("/usr/bin/curl", ["-s", "-w", "\n%{http_code}"] + arguments, environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
    }

    @Test(
        "dpop-every-alg: login, refresh and a resource request with each algorithm, ES256 by default",
        arguments: ["", "ES256", "PS256", "RS256", "EdDSA"])
    func everyAlgorithm(_ alg: String) throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let login = sandbox.login(emulator, alg.isEmpty ? ["--dpop"] : ["--dpop", alg])
        #expect(login.status == 0, "\(login)")
        let header = Self.proofHeader(emulator.requests(to: .token).last?.headers["dpop"] ?? "")
        #expect(header["alg"] as? String == (alg.isEmpty ? "ES256" : alg))
        emulator.expireAccessTokens()
        let run = sandbox.run(["api", try #require(emulator.url(for: .resource))])
        #expect(run.status == 0 && Self.json(run.stdout)["token_type"] as? String == "DPoP", "\(run)")
        #expect(emulator.requests(to: .resource).map(\.status) == [401, 200])
    }

    @Test("dpop-login: the token is DPoP-bound, dpop_jkt is sent, token --format json shows the thumbprint")
    func login() throws {
        let (emulator, sandbox) = try Self.dpopSession()
        let json = Self.json(sandbox.run(["token", "--format", "json"]).stdout)
        #expect(json["token_type"] as? String == "DPoP")
        let jkt = try #require(json["jkt"] as? String)
        #expect(jkt.count == 43)
        // PingOne pushes the authorization request (PAR, RFC 9449 §10.1): dpop_jkt travels in it.
        let pushed = try #require(emulator.requests(to: .par).last)
        #expect(pushed.form["dpop_jkt"] == jkt && pushed.headers["dpop"] != nil)
        let plain = Sandbox()
        #expect(plain.login(emulator, ["--dpop", "--no-par"]).status == 0)
        #expect(emulator.requests(to: .authorize).last?.query["dpop_jkt"] != nil)
        let exchange = try #require(emulator.requests(to: .token).last)
        #expect(exchange.status == 200 && exchange.headers["dpop"] != nil)
        let claims = Self.proofClaims(exchange.headers["dpop"] ?? "")
        #expect(claims["htm"] as? String == "POST" && claims["ath"] == nil)
        #expect(claims["htu"] as? String == emulator.url(for: .token))
        // dpop-exec-credential: kubectl cannot make proofs, so a bound access token is not handed to it.
        let exec = sandbox.run(["token", "--format", "exec-credential"])
        #expect(exec.rule == "exec-credential-dpop", "\(exec)")
        #expect(exec.status == 2 && exec.stdout.isEmpty, "\(exec)")
        let profile = try String(contentsOfFile: sandbox.profileDirectory + "/profile.json", encoding: .utf8)
        #expect(profile.contains("\"dpop\" : \"ES256\""))
    }

    @Test("dpop-curl: the resource refuses the token as a bearer token and takes it with a proof from dpop-proof")
    func curlWithProof() throws {
        let (emulator, sandbox, url, token) = try Self.resourceSession()
        let asBearer = Self.curl(["-H", "Authorization: Bearer \(token)", url])
        #expect(asBearer.stdout.hasSuffix("\n401"), "\(asBearer)")
        let proof = sandbox.run(["dpop-proof", "--method", "GET", "--url", url])
        #expect(proof.status == 0, "\(proof)")
        let accepted = Self.curl([
            "-H", "Authorization: DPoP \(token)", "-H", "DPoP: \(proof.stdout.trimmingCharacters(in: .whitespacesAndNewlines))", url,
        ])
        #expect(accepted.stdout.hasSuffix("\n200"), "\(accepted)")
        #expect(accepted.stdout.contains("\"token_type\":\"DPoP\""))
        // dpop-replay: the same proof a second time is refused.
        let replayed = Self.curl([
            "-H", "Authorization: DPoP \(token)", "-H", "DPoP: \(proof.stdout.trimmingCharacters(in: .whitespacesAndNewlines))", url,
        ])
        #expect(replayed.stdout.hasSuffix("\n401"), "\(replayed)")
        #expect(emulator.requests(to: .resource).map(\.status) == [401, 200, 401])
    }

    @Test("dpop-proof-mismatch: a proof for another URL or another method is refused")
    func proofForAnotherRequest() throws {
        let (emulator, sandbox, url, token) = try Self.resourceSession()
        for (method, target) in [("GET", emulator.baseURL + "/api/other"), ("POST", url)] {
            let proof = sandbox.run(["dpop-proof", "--method", method, "--url", target]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let run = Self.curl(["-H", "Authorization: DPoP \(token)", "-H", "DPoP: \(proof)", url])
            #expect(run.stdout.hasSuffix("\n401"), "\(method) \(target): \(run)")
        }
        let bearer = Sandbox()
        #expect(bearer.login(emulator).status == 0)
        let refused = bearer.run(["dpop-proof", "--method", "GET", "--url", url])
        #expect(refused.rule == "dpop-not-bound", "\(refused)")
        #expect(refused.status == 2 && refused.stderr.contains("--dpop"), "\(refused)")
    }

    @Test("dpop-api: pingcli api sends the DPoP token with a proof, and a Bearer profile's token as Bearer")
    func api() throws {
        let (emulator, sandbox) = try Self.dpopSession()
        let url = try #require(emulator.url(for: .resource))
        let run = sandbox.run(["api", url])
        #expect(run.status == 0, "\(run)")
        #expect(Self.json(run.stdout)["token_type"] as? String == "DPoP")
        let request = try #require(emulator.requests(to: .resource).last)
        #expect(request.headers["authorization"]?.hasPrefix("DPoP ") == true)
        #expect(Self.proofClaims(request.headers["dpop"] ?? "")["ath"] != nil)

        let bearer = Sandbox()
        #expect(bearer.login(emulator, ["--api-base", emulator.baseURL + "/api"]).status == 0)
        let plain = bearer.run(["api", "--method", "PUT", "--data", "{\"a\":1}", "/resource"])
        #expect(plain.status == 0, "\(plain)")
        let answer = Self.json(plain.stdout)
        #expect(answer["token_type"] as? String == "Bearer" && answer["method"] as? String == "PUT")
        #expect(answer["body"] as? String == "{\"a\":1}")
        #expect(emulator.requests(to: .resource).last?.headers["dpop"] == nil)
    }

    @Test("dpop-nonce: nonce challenges at the token endpoint and at the resource are each answered with exactly one retry")
    func nonces() throws {
        let (emulator, sandbox) = try Self.dpopSession { $0.dpop.nonces = true }
        let exchanges = emulator.requests(to: .token)
        #expect(exchanges.map(\.status) == [400, 200])
        #expect(Self.proofClaims(exchanges.first?.headers["dpop"] ?? "")["nonce"] == nil)
        #expect(Self.proofClaims(exchanges.last?.headers["dpop"] ?? "")["nonce"] != nil)
        emulator.clearRequests()
        let run = sandbox.run(["api", try #require(emulator.url(for: .resource))])
        #expect(run.status == 0, "\(run)")
        #expect(emulator.requests(to: .resource).map(\.status) == [401, 200])
    }

    @Test("dpop-nonce-once: a resource that keeps asking for the same nonce gets one retry per new nonce, not a loop")
    func nonceNotLooped() throws {
        let (emulator, sandbox) = try Self.dpopSession()
        var faults = Faults()
        faults.responseOverrides = [
            .resource: CannedResponse(
                status: 401, contentType: "application/json", body: "{}",
                headers: ["WWW-Authenticate": "DPoP error=\"use_dpop_nonce\"", "DPoP-Nonce": "n-1"])
        ]
        emulator.faults = faults
        let run = sandbox.run(["api", "--fail", try #require(emulator.url(for: .resource))])
        #expect(run.status == 6, "\(run)")
        // The challenge, its one retry with n-1; then the 401 earns one refresh, whose request with n-1 is not retried again.
        let nonces = emulator.requests(to: .resource).map { Self.proofClaims($0.headers["dpop"] ?? "")["nonce"] as? String }
        #expect(nonces == [nil, "n-1", "n-1"])
        #expect(emulator.requests(to: .token).filter { $0.grantType == "refresh_token" }.count == 1)
    }

    @Test("dpop-device: the device grant's token polls carry proofs and the token is DPoP-bound")
    func deviceGrant() throws {
        let (emulator, sandbox) = try emulatorAndSandbox { $0.deviceInterval = 1 }
        let run = sandbox.login(emulator, ["--device", "--no-browser", "--dpop"])
        #expect(run.status == 0, "\(run)")
        let polls = emulator.requests(to: .token).filter { $0.grantType == "urn:ietf:params:oauth:grant-type:device_code" }
        #expect(!polls.isEmpty && polls.allSatisfy { Self.proofClaims($0.headers["dpop"] ?? "")["htm"] as? String == "POST" })
        #expect(Self.json(sandbox.run(["token", "--format", "json"]).stdout)["token_type"] as? String == "DPoP")
    }

    @Test("dpop-refresh: the refresh carries a proof by the same key and the new token stays DPoP-bound")
    func refresh() throws {
        let (emulator, sandbox) = try Self.dpopSession()
        let before = Self.json(sandbox.run(["token", "--format", "json"]).stdout)
        emulator.expireAccessTokens()
        let run = sandbox.run(["userinfo"])
        #expect(run.status == 0, "\(run)")
        let refresh = try #require(emulator.requests(to: .token).last)
        #expect(refresh.grantType == "refresh_token" && refresh.status == 200 && refresh.headers["dpop"] != nil)
        let after = Self.json(sandbox.run(["token", "--format", "json"]).stdout)
        #expect(after["token_type"] as? String == "DPoP" && after["jkt"] as? String == before["jkt"] as? String)
        #expect(after["access_token"] as? String != before["access_token"] as? String)
    }

    @Test("dpop-revoke: logout --revoke sends proofs, and the emulator revokes the bound tokens")
    func revoke() throws {
        // PingOne revokes only tokens for a custom resource (the default one's scope is `revoke`).
        let (emulator, sandbox) = try Self.dpopSession(extra: ["--scope", "openid profile revoke"])
        let run = sandbox.run(["logout", "--revoke"])
        #expect(run.status == 0, "\(run) \(emulator.requests(to: .revoke).map(\.status))")
        let revocations = emulator.requests(to: .revoke)
        #expect(!revocations.isEmpty && revocations.allSatisfy { $0.status == 200 && $0.headers["dpop"] != nil })
        #expect(!emulator.isActive(token: emulator.issuedRefreshTokens.last ?? ""))
        #expect(!emulator.isActive(token: emulator.issuedAccessTokens.last ?? ""))
    }

    /// dpop-bearer-answer: a provider answering `token_type: Bearer` to a DPoP request is refused;
    /// dpop-unasked: a Bearer login does not silently become DPoP.
    @Test(
        "dpop-token-type: the token_type must match whether a proof was sent",
        arguments: [
            ("Bearer", ["--dpop"], "token_type is Bearer, not DPoP"),
            ("DPoP", [], "token_type is DPoP although the request carried no DPoP proof"),
        ])
    func tokenTypeChecked(answered: String, login: [String], message: String) throws {
        var faults = Faults()
        faults.tokenResponseOverrides = ["token_type": .string(answered)]
        let emulator = try startEmulator()
        defer { emulator.stop() }
        emulator.faults = faults
        let sandbox = Sandbox()
        let run = sandbox.login(emulator, login)
        #expect(run.rule == "dpop-token-type", "\(run)")
        #expect(run.status == 1 && run.stderr.contains(message), "\(run)")
        #expect(sandbox.run(["token", "--raw"]).status == 4)
    }

    @Test("dpop-unannounced: --dpop is refused when discovery has no dpop_signing_alg_values_supported, unless an algorithm is named")
    func unannounced() throws {
        let (emulator, sandbox) = try emulatorAndSandbox { $0.dpop.algorithms = nil }
        let refused = sandbox.login(emulator, ["--dpop"])
        #expect(refused.rule == "dpop-unannounced", "\(refused)")
        #expect(refused.status == 2, "\(refused)")
        #expect(emulator.requests(to: .authorize).isEmpty && emulator.requests(to: .par).isEmpty)
        let insisted = sandbox.login(emulator, ["--dpop", "EdDSA"])
        #expect(insisted.status == 0, "\(insisted)")
        #expect(Self.json(sandbox.run(["token", "--format", "json"]).stdout)["token_type"] as? String == "DPoP")
        let onlyES384 = try startEmulator { $0.dpop.algorithms = ["ES384"] }
        defer { onlyES384.stop() }
        let other = Sandbox().login(onlyES384, ["--dpop"])
        #expect(other.rule == "dpop-algorithm-choice", "\(other)")
        #expect(other.status == 2 && other.stderr.contains("ES384"), "\(other)")
    }
}
