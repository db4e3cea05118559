import Foundation
import PingEmulator
import Testing

/// ID token signatures through the built binary: each algorithm family verified against the emulator's
/// JWK Set, each broken signature refused with its rule's name and nothing saved, key rotation followed.
@Suite("ID token signatures, end to end")
struct SignatureEndToEndTests {
    /// The one stderr line that names `rule`, the rule the run is expected to have recorded.
    func ruleLine(_ run: CLIRun, _ rule: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        #expect(run.rule == rule, "\(run)", sourceLocation: sourceLocation)
        let lines = run.stderr.split(separator: "\n").filter { $0.contains(rule) }
        return lines.count == 1 ? String(lines[0]) : nil
    }

    /// A login against a new emulator with `faults`, which must fail: the run and the sandbox (which
    /// stops the emulator).
    func failedLogin(_ faults: Faults, sourceLocation: SourceLocation = #_sourceLocation) throws -> (CLIRun, Sandbox) {
        let (emulator, sandbox) = try emulatorAndSandbox()
        emulator.faults = faults
        let run = sandbox.login(emulator)
        #expect(run.status == 1, "\(run)", sourceLocation: sourceLocation)
        return (run, sandbox)
    }

    func nothingSaved(_ sandbox: Sandbox) -> Bool {
        !FileManager.default.fileExists(atPath: sandbox.stateDirectory + "/tokens.enc")
            && !FileManager.default.fileExists(atPath: sandbox.profileDirectory + "/profile.json")
            && !FileManager.default.fileExists(atPath: sandbox.stateDirectory + "/jwks.json")
    }

    @Test(
        "id-token-signature-good: every algorithm family verifies at login and at refresh",
        arguments: [SigningAlgorithm.rs256, .rs512, .ps256, .ps384, .es256, .es384, .es512, .edDSA])
    func goodSignature(algorithm: SigningAlgorithm) throws {
        let emulator = try startEmulator {
            $0.layout = .pingFederate
            $0.signingAlgorithm = algorithm
            $0.accessTokenLifetime = 20
        }
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let login = sandbox.login(emulator)
        #expect(login.status == 0, "\(login)")
        #expect(readText(sandbox.stateDirectory + "/jwks.json")?.contains(#""kty""#) == true)
        emulator.accessTokenLifetime = 3600
        let refreshed = sandbox.run(["token", "--raw"])
        #expect(refreshed.status == 0, "\(refreshed)")
        #expect(refreshed.stdout == emulator.newestTokenLine)
        #expect(emulator.requests(to: .jwks).count == 1, "the refresh used the cached JWK Set")
    }

    @Test("id-token-signature-hs256: a confidential client's ID token signed with its secret verifies")
    func hmacWithSecret() throws {
        let emulator = try startEmulator {
            $0.signingAlgorithm = .hs256
            $0.clients = [RegisteredClient(clientID: "pingcli-test", clientSecret: confidentialSecret, authMethod: "client_secret_basic")]
        }
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let login = sandbox.login(emulator, ["--client-secret-file", sandbox.secretFile(confidentialSecret)])
        #expect(login.status == 0, "\(login)")
        #expect(emulator.requests(to: .jwks).isEmpty, "HMAC needs no provider keys")
    }

    @Test(
        "id-token-signature-refused: forged, stripped, alg none, RS256/HS256 confusion, kid of another key",
        arguments: [
            ("forged", "id-token-bad-signature"), ("stripped", "id-token-signature-missing"), ("none", "id-token-alg-none"),
            ("hs256-public-key", "id-token-hmac-without-secret"), ("foreign-kid", "id-token-bad-signature"),
        ])
    func refused(fault: String, rule: String) throws {
        var faults = Faults()
        faults.idTokenSignature = fault
        // The confusion only reaches the HMAC rule when the provider lists HS256 beside RS256.
        faults.discoveryOverrides = ["id_token_signing_alg_values_supported": ["RS256", "HS256", "none"]]
        let (run, sandbox) = try failedLogin(faults)
        #expect(ruleLine(run, rule)?.contains("login failed") == true, "\(run)")
        #expect(nothingSaved(sandbox))
    }

    @Test("id-token-alg-not-listed: an ID token signed with an algorithm discovery does not list is refused")
    func notListed() throws {
        let (run, sandbox) = try failedLogin(Faults(discoveryOverrides: ["id_token_signing_alg_values_supported": ["ES256"]]))
        #expect(ruleLine(run, "id-token-alg-not-listed")?.contains("RS256") == true, "\(run)")
        #expect(nothingSaved(sandbox))
    }

    @Test("jwks-too-large: a JWK Set over 256 KiB is refused")
    func jwksTooLarge() throws {
        let body = #"{"keys":[],"pad":""# + String(repeating: "a", count: 300 * 1024) + #""}"#
        let (run, sandbox) = try failedLogin(
            Faults(responseOverrides: [.jwks: CannedResponse(status: 200, contentType: "application/json", body: body)]))
        #expect(ruleLine(run, "jwks-too-large") != nil, "\(run)")
        #expect(nothingSaved(sandbox))
    }

    /// Marks the cached JWK Set as fetched `age` seconds ago.
    func age(_ sandbox: Sandbox, by age: Double) throws {
        let path = sandbox.stateDirectory + "/jwks.json"
        let text = try #require(readText(path))
        let body = text[text.index(after: text.firstIndex(of: "\n")!)...]
        try Data("\(Int(Date().timeIntervalSince1970 - age))\n\(body)".utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test("id-token-key-rotation: a rotated key is fetched once at refresh, without a new login")
    func rotation() throws {
        let (emulator, sandbox, _) = try expiringSession()
        emulator.rotateKeys()
        try age(sandbox, by: 120)
        let run = sandbox.run(["token", "--raw"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == emulator.newestTokenLine)
        #expect(emulator.requests(to: .jwks).count == 2, "one fetch at login, one for the new kid")
        let idToken = sandbox.run(["token", "--id-token"])
        #expect(idToken.status == 0 && emulator.requests(to: .jwks).count == 2, "\(idToken)")
    }

    @Test("jwks-unreachable-at-refresh: exit 3, the new access and refresh tokens kept, the unchecked ID token not")
    func jwksUnreachableAtRefresh() throws {
        let (emulator, sandbox, _) = try expiringSession()
        emulator.rotateKeys()
        try age(sandbox, by: 120)
        var faults = Faults()
        faults.responseOverrides[.jwks] = CannedResponse(status: 503, contentType: "text/html", body: "down")
        emulator.faults = faults
        let run = sandbox.run(["token", "--raw"])
        #expect(run.status == 3, "\(run)")
        #expect(run.stderr.contains("HTTP 503") && run.stderr.contains("the new access and refresh tokens were"), "\(run)")
        #expect(run.rule == "jwks-unavailable", "\(run)")
        emulator.faults = Faults()
        let refreshes = emulator.requests(to: .token).count
        let after = sandbox.run(["token", "--raw"])
        #expect(after.status == 0, "\(after)")
        #expect(after.stdout == emulator.newestTokenLine, "the access token from the refresh was kept")
        #expect(emulator.requests(to: .token).count == refreshes)
    }

    @Test(
        "id-token-refused-at-refresh-keeps-rotation: a forged ID token at refresh fails (exit 1) serving nothing from it, but the rotated refresh token is kept, so the next refresh works"
    )
    func forgedAtRefreshKeepsRotatedRefreshToken() throws {
        let (emulator, sandbox, old) = try expiringSession()
        var faults = Faults()
        faults.idTokenSignature = "forged"
        emulator.faults = faults
        let run = sandbox.run(["token", "--raw"])
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run)")
        #expect(
            ruleLine(run, "id-token-bad-signature")?.contains("only the rotated refresh token from this refresh was kept") == true, "\(run)"
        )
        let rotated = try #require(emulator.issuedRefreshTokens.last)
        emulator.faults = Faults()
        let after = sandbox.run(["token", "--raw"])
        #expect(after.status == 0 && after.stdout == emulator.newestTokenLine && after.stdout != old, "\(after)")
        #expect(emulator.requests(to: .token).last?.form["refresh_token"] == rotated, "the next refresh used the rotated one")
    }

    @Test(
        "libcrypto-lazy: the binary links neither libcrypto nor libfido2; a login maps libcrypto, token --raw on a cache hit maps neither"
    )
    func libcryptoOnlyWhenNeeded() throws {
        let ldd = runProcess("/usr/bin/ldd", [Locations.pingcli], environment: [:], timeout: 60)
        #expect(ldd.status == 0 && !ldd.stdout.contains("libcrypto") && !ldd.stdout.contains("libfido2"), "\(ldd)")
        let (emulator, sandbox) = try emulatorAndSandbox()
        let login = sandbox.login(emulator, environment: ["LD_DEBUG": "libs"])
        #expect(login.status == 0)
        #expect(login.stderr.contains("libcrypto.so"), "a login verifies the ID token with libcrypto")
        let hit = sandbox.run(["token", "--raw"], environment: ["LD_DEBUG": "libs"])
        #expect(hit.status == 0)
        #expect(hit.stderr.contains("calling init"), "LD_DEBUG=libs reported the libraries it loaded")
        #expect(!hit.stderr.contains("libcrypto") && !hit.stderr.contains("libfido2"), "\(hit.stderr)")
    }
}
