import Foundation
import PingEmulator
import Testing

/// `pingcli token --scope / --resource / --audience` through the built binary against the emulator, which
/// issues down-scoped and audience-bound tokens as PingOne does (one resource per token, `aud`,
/// `invalid_scope` outside the grant) and, when told, RFC 8693 token exchange.
@Suite("token for a scope, resource or audience, end to end")
struct TargetedTokenEndToEndTests {
    static let orders = CustomResource(name: "Orders", audience: "https://orders.example.com", scopes: ["orders:read", "orders:write"])

    /// An emulator with the Orders API and a sandbox signed in with its scopes.
    func signedIn(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws -> (Emulator, Sandbox) {
        let (emulator, sandbox) = try emulatorAndSandbox {
            $0.clients = [RegisteredClient(clientID: "pingcli-test", allowedScopes: RegisteredClient.defaultScopes + Self.orders.scopes)]
            $0.resources = [.sdkRevokeResource, Self.orders]
            configure(&$0)
        }
        let run = sandbox.login(emulator, ["--scope", "openid profile email orders:read orders:write"])
        #expect(run.status == 0, "\(run)")
        return (emulator, sandbox)
    }

    /// A JWT's payload claims, as the token-format tests read them.
    func claims(_ token: String) throws -> [String: Any] {
        try TokenFormatTests().claims(token.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func tokenRequests(_ emulator: Emulator) -> [RecordedRequest] { emulator.requests(to: .token) }

    @Test(
        "target-e2e-scope: --scope gets a narrower token, served again from the cache without a request, refreshed on its own expiry; the session's token untouched"
    )
    func narrowerScope() throws {
        let (emulator, sandbox) = try signedIn { $0.accessTokenLifetime = 600 }
        let session = emulator.newestTokenLine
        let first = sandbox.run(["token", "--scope", "orders:read", "--raw"])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first)")
        #expect(try claims(first.stdout)["scope"] as? String == "orders:read")
        #expect(tokenRequests(emulator).last?.form["scope"] == "orders:read")
        let requests = tokenRequests(emulator).count
        #expect(sandbox.run(["token", "--scope", "orders:read", "--raw"]).stdout == first.stdout)
        #expect(tokenRequests(emulator).count == requests, "a cache hit: no request")
        // Its own expiry (ten minutes) comes within --min-ttl 900: refreshed; the session's token is not.
        let renewed = sandbox.run(["token", "--scope", "orders:read", "--raw", "--min-ttl", "900"])
        #expect(renewed.status == 0 && renewed.stdout != first.stdout, "\(renewed)")
        #expect(tokenRequests(emulator).count == requests + 1)
        #expect(sandbox.run(["token", "--raw"]).stdout == session)
        #expect(tokenRequests(emulator).count == requests + 1)
    }

    @Test("target-e2e-resource: --resource gets a token whose aud is that API, with json naming the resource")
    func audienceBound() throws {
        let (emulator, sandbox) = try signedIn()
        let run = sandbox.run(["token", "--resource", "https://orders.example.com", "--format", "json"])
        #expect(run.status == 0, "\(run)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(object["resource"] as? String == "https://orders.example.com")
        let token = try #require(object["access_token"] as? String)
        #expect(try claims(token)["aud"] as? [String] == ["https://orders.example.com"])
        #expect(emulator.introspect(token).audience == .array([.string("https://orders.example.com")]))
        #expect(tokenRequests(emulator).last?.form["resource"] == "https://orders.example.com")
    }

    @Test("target-e2e-invalid-scope: a scope outside the grant is one line, exit 1, no browser; the session still works")
    func invalidScope() throws {
        let (emulator, sandbox) = try signedIn()
        let opened = sandbox.browserLaunches
        let run = sandbox.run(["token", "--scope", "orders:admin", "--raw"])
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == "target-invalid-scope", "\(run)")
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("invalid_scope"), "\(run)")
        #expect(run.stderr.contains("pingcli login --profile default --scope"))
        for secret in emulator.issuedAccessTokens + emulator.issuedRefreshTokens { #expect(!run.stderr.contains(secret)) }
        #expect(sandbox.browserLaunches == opened, "no browser")
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.issuedAccessTokens.first.map { $0 + "\n" })
    }

    @Test("target-e2e-rotation: the refresh token a targeted refresh brings back is kept for the session: its next refresh works")
    func rotationKept() throws {
        let (emulator, sandbox) = try signedIn()
        #expect(sandbox.run(["token", "--scope", "orders:read", "--raw"]).status == 0)
        let rotated = try #require(emulator.issuedRefreshTokens.last)
        let run = sandbox.run(["token", "--raw", "--min-ttl", "7200"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == emulator.newestTokenLine)
        #expect(tokenRequests(emulator).last?.form["refresh_token"] == rotated)
        #expect(sandbox.run(["status"]).stdout.contains("refresh token: held"))
    }

    @Test(
        "target-e2e-convoy: 10 targeted callers and 5 session refreshes at once, refresh tokens rotating: one targeted request, every refresh with the newest refresh token"
    )
    func convoy() throws {
        let (emulator, sandbox) = try signedIn()
        emulator.faults = Faults(delays: [.token: 0.2])  // a slow answer widens the window for a second request
        let (runs, _) = runConcurrently(sandbox, count: 15) { index in
            index < 10 ? ["token", "--scope", "orders:read", "--raw"] : ["token", "--raw", "--min-ttl", "7200"]
        }
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.first { $0.status != 0 }.map(\.description) ?? "")")
        #expect(Set(runs.prefix(10).map(\.stdout)).count == 1, "the targeted callers share one token")
        let all = refreshes(emulator)
        #expect(all.filter { $0.form["scope"] == "orders:read" }.count == 1)
        #expect(all.count == 6 && all.allSatisfy { $0.status == 200 }, "\(all.map(\.status))")
    }

    @Test("target-e2e-exchange: --audience by RFC 8693 token exchange where the provider lists it")
    func exchange() throws {
        let (emulator, sandbox) = try signedIn {
            $0.tokenExchange = true; $0.layout = .pingFederate
        }
        defer { emulator.stop() }
        let run = sandbox.run(["token", "--audience", "https://orders.example.com", "--raw"])
        #expect(run.status == 0, "\(run)")
        let request = try #require(tokenRequests(emulator).last)
        #expect(request.form["grant_type"] == "urn:ietf:params:oauth:grant-type:token-exchange")
        #expect(request.form["subject_token"] == emulator.issuedAccessTokens.first)
        #expect(try claims(run.stdout)["aud"] as? String == "https://orders.example.com")
    }

    @Test(
        "target-e2e-logout-revoke: logout --revoke revokes the narrower tokens too (a token exchange's outlives the refresh token's revocation at PingFederate); --json lists them"
    )
    func logoutRevokesTargeted() throws {
        let (emulator, sandbox) = try signedIn {
            $0.tokenExchange = true; $0.layout = .pingFederate; $0.accessTokenRevocation = true
        }
        defer { emulator.stop() }
        let exchanged = sandbox.run(["token", "--audience", "https://orders.example.com", "--raw"])
        #expect(exchanged.status == 0, "\(exchanged)")
        let token = exchanged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(emulator.introspect(token).active)
        let run = sandbox.run(["logout", "--revoke", "--json"])
        #expect(run.status == 0, "\(run)")
        #expect(!emulator.introspect(token).active, "the exchanged token is revoked at the server")
        #expect(emulator.requests(to: .revoke).contains { $0.form["token"] == token })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let targeted = (object["revoked"] as? [String: Any])?["targeted_access_tokens"] as? [[String: Any]]
        #expect(targeted?.count == 1 && targeted?.first?["audience"] as? String == "https://orders.example.com", "\(run)")
        #expect(targeted?.first?["revoked"] is Bool, "\(run)")
        for secret in emulator.issuedAccessTokens + emulator.issuedRefreshTokens { #expect(!run.stderr.contains(secret)) }
        #expect(!FileManager.default.fileExists(atPath: sandbox.stateDirectory + "/targeted-tokens.enc"))
    }

    @Test("target-e2e-mtls: a certificate-bound machine profile gets a resource token over the mTLS alias, bound to its certificate")
    func mutualTLS() throws {
        let (sandbox, files, emulator) = try MutualTLSTests.setUp()
        defer { emulator.stop() }
        #expect(MutualTLSTests.machineLogin(sandbox, emulator, files).status == 0)
        let run = sandbox.run(["token", "--resource", "https://api.example.com", "--format", "json"])
        #expect(run.status == 0, "\(run)")
        let request = try #require(tokenRequests(emulator).last)
        #expect(request.form["grant_type"] == "client_credentials" && request.form["resource"] == "https://api.example.com")
        #expect(run.stdout.contains("\"x5t#S256\": \"\(MutualTLSFiles.thumbprint(files.clientCertificate))\""), "\(run)")
        #expect(run.stdout.contains("\"scope\": \"revoke\""), "\(run)")
    }
}
