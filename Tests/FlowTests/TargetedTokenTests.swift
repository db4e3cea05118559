import Foundation
import PingEmulator
import Testing

@testable import PingBase
@testable import PingLogin
@testable import PingOAuth
@testable import PingSession

/// `token --scope`, `--resource`, `--audience`: narrower tokens from the session's refresh token (RFC 6749
/// §6, RFC 8707 §2.2) or by token exchange (RFC 8693), cached beside the session, in-process on the test's clock.
@Suite("token for a scope, resource or audience, in-process")
struct TargetedTokenTests {
    static let orders = CustomResource(name: "Orders", audience: "https://orders.example.com", scopes: ["orders:read", "orders:write"])
    static let loginScope = "openid profile email orders:read orders:write"

    /// Signed in with the Orders API's scopes; every access token lives `lifetime` seconds.
    func signedIn(lifetime: Int = 3600, _ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws -> FlowHarness {
        let harness = try FlowHarness {
            $0.clients = [
                RegisteredClient(clientID: "pingcli-test", allowedScopes: RegisteredClient.defaultScopes + Self.orders.scopes)
            ]
            $0.resources = [.sdkRevokeResource, Self.orders]
            $0.accessTokenLifetime = lifetime
            configure(&$0)
        }
        let run = harness.login(["--scope", Self.loginScope])
        try #require(run.status == 0, "\(run)")
        return harness
    }

    /// A JWT's payload claims (the emulator signed it).
    func claims(_ token: String) throws -> [String: Any] {
        let parts = token.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
        try #require(parts.count == 3)
        var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        let data = try #require(Data(base64Encoded: payload))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The rule of the failure `token` reports for `target`, called as the command calls the flow.
    func rule(_ harness: FlowHarness, _ target: TokenTarget) throws -> Rule? {
        let (context, _) = try harness.context()
        do {
            _ = try TargetedTokenProvider(base: TokenProvider(profile: .default, context: context.forSession), target: target).fresh(
                minimumTTL: 30)
            return nil
        } catch {
            return error.rule
        }
    }

    @Test(
        "target-scope: --scope refreshes with just that scope; the token carries it, the session's token stays, a second call is a cache hit"
    )
    func narrowerScope() throws {
        let harness = try signedIn()
        let session = harness.emulator.newestTokenLine
        let run = harness.run(["token", "--scope", "orders:read", "--raw"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        let refresh = try #require(harness.emulator.refreshes.last)
        #expect(harness.emulator.refreshes.count == 1)
        #expect(refresh.form["scope"] == "orders:read" && refresh.form["resource"] == nil, "\(refresh.form)")
        #expect(try claims(run.stdout)["scope"] as? String == "orders:read")
        #expect(run.stdout != session)
        #expect(harness.run(["token", "--raw"]).stdout == session, "the session's own token is not replaced")
        #expect(harness.run(["token", "--scope", "orders:read", "--raw"]).stdout == run.stdout)
        #expect(harness.emulator.refreshes.count == 1, "the cached targeted token is reused without a request")
        #expect(
            harness.run(["token", "--scope", "orders:read orders:read", "--raw"]).stdout == run.stdout, "the same scope is the same record")
    }

    @Test("target-own-expiry: a targeted token is refreshed on its own expiry, the session's token on its own")
    func ownExpiry() throws {
        let harness = try signedIn()
        harness.emulator.accessTokenLifetime = 100
        let first = harness.run(["token", "--scope", "orders:read", "--raw"])
        #expect(first.status == 0, "\(first)")
        harness.clock.advance(by: 60)
        #expect(harness.run(["token", "--scope", "orders:read", "--raw"]).stdout == first.stdout, "40 s left: still served")
        #expect(harness.emulator.refreshes.count == 1)
        harness.clock.advance(by: 15)
        let second = harness.run(["token", "--scope", "orders:read", "--raw"])
        #expect(second.status == 0 && second.stdout != first.stdout, "within --min-ttl of its expiry: refreshed")
        #expect(harness.emulator.refreshes.count == 2)
        #expect(harness.run(["token", "--raw"]).status == 0)
        #expect(harness.emulator.refreshes.count == 2, "the session's token (an hour) needed no refresh")
    }

    @Test("target-resource: --resource gets a token bound to that API (aud) with the grant's scopes of it, as PingOne issues")
    func resource() throws {
        let harness = try signedIn()
        let run = harness.run(["token", "--resource", "https://orders.example.com", "--format", "json"])
        #expect(run.status == 0, "\(run)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(object["resource"] as? String == "https://orders.example.com")
        #expect(object["scope"] as? String == "orders:read orders:write")
        let token = try #require(object["access_token"] as? String)
        #expect(try claims(token)["aud"] as? [String] == ["https://orders.example.com"])
        #expect(harness.emulator.refreshes.last?.form["resource"] == "https://orders.example.com")
        #expect(harness.emulator.refreshes.last?.form["scope"] == nil)
        let both = harness.run(["token", "--resource", "https://orders.example.com", "--scope", "orders:write", "--raw"])
        #expect(try claims(both.stdout)["scope"] as? String == "orders:write", "\(both)")
        #expect(harness.emulator.refreshes.count == 2, "another scope for the same resource is another record")
    }

    @Test("target-invalid-scope: a scope outside the grant is one line with the server's error, exit 1, no browser, the session kept")
    func invalidScope() throws {
        let harness = try signedIn()
        let session = harness.emulator.newestTokenLine
        let opened = harness.browser.opened.count
        let run = harness.run(["token", "--scope", "orders:admin", "--raw"])
        expectOneLineError(
            run, status: 1, contains: ["scope \"orders:admin\"", "invalid_scope", "pingcli login --profile default --scope"],
            secrets: harness.emulator.issuedAccessTokens + harness.emulator.issuedRefreshTokens)
        #expect(harness.browser.opened.count == opened, "never a browser")
        #expect(try rule(harness, TokenTarget(scope: "orders:admin", resource: nil, audience: nil)) == .targetInvalidScope)
        #expect(harness.run(["token", "--raw"]).stdout == session)
    }

    @Test("target-invalid-target: a resource the provider does not know is one line naming --resource, exit 1")
    func invalidTarget() throws {
        let harness = try signedIn()
        expectOneLineError(
            harness.run(["token", "--resource", "https://unknown.example.com", "--raw"]), status: 1,
            contains: ["resource https://unknown.example.com", "invalid_target", "--resource"], secrets: [])
        #expect(
            try rule(harness, TokenTarget(scope: nil, resource: "https://unknown.example.com", audience: nil)) == .targetInvalidTarget)
    }

    @Test("target-rotation: the refresh token a targeted refresh returns becomes the session's, so the session still refreshes")
    func rotationKept() throws {
        let harness = try signedIn()
        let original = try #require(harness.emulator.issuedRefreshTokens.last)
        #expect(harness.run(["token", "--scope", "orders:read", "--raw"]).status == 0)
        let rotated = try #require(harness.emulator.issuedRefreshTokens.last)
        #expect(rotated != original)
        harness.clock.advance(by: 3600)
        let run = harness.run(["token", "--raw"])
        #expect(run.status == 0, "\(run)")
        #expect(harness.emulator.refreshes.last?.form["refresh_token"] == rotated, "the newest refresh token was kept")
        #expect(harness.emulator.refreshes.last?.status == 200)
    }

    @Test("target-no-rotation: a provider that keeps refresh tokens answers without one; the session keeps its own")
    func withoutRotation() throws {
        let harness = try signedIn { $0.rotateRefreshTokens = false }
        let original = try #require(harness.emulator.issuedRefreshTokens.last)
        #expect(harness.run(["token", "--scope", "orders:read", "--raw"]).status == 0)
        #expect(harness.run(["token", "--resource", "https://orders.example.com", "--raw"]).status == 0)
        harness.clock.advance(by: 3600)
        #expect(harness.run(["token", "--raw"]).status == 0)
        #expect(harness.emulator.refreshes.map { $0.form["refresh_token"] } == [original, original, original])
        #expect(harness.emulator.refreshes.allSatisfy { $0.status == 200 })
    }

    @Test(
        "target-exchange: --audience uses RFC 8693 token exchange where discovery lists it: the session's access token is the subject"
    )
    func tokenExchange() throws {
        let harness = try signedIn { $0.tokenExchange = true }
        let session = try #require(harness.emulator.issuedAccessTokens.last)
        let run = harness.run(["token", "--audience", "Orders", "--scope", "orders:read", "--format", "json"])
        #expect(run.status == 0, "\(run)")
        let exchange = try #require(harness.emulator.requests(to: .token).last)
        #expect(exchange.form["grant_type"] == TokenEndpoint.tokenExchangeGrantType)
        #expect(exchange.form["subject_token"] == session && exchange.form["audience"] == "Orders")
        #expect(exchange.form["subject_token_type"] == TokenEndpoint.accessTokenTypeIdentifier)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(object["audience"] as? String == "Orders" && object["scope"] as? String == "orders:read")
        #expect(try claims(try #require(object["access_token"] as? String))["aud"] as? [String] == ["https://orders.example.com"])
        #expect(harness.run(["token", "--audience", "Orders", "--scope", "orders:read", "--raw"]).status == 0)
        #expect(harness.emulator.requests(to: .token).count == 2, "login and one exchange: the second call is a cache hit")
    }

    @Test(
        "target-no-exchange: without token exchange, a URI --audience is sent as resource; a name is a usage error naming --resource"
    )
    func audienceWithoutExchange() throws {
        let harness = try signedIn()
        let run = harness.run(["token", "--audience", "https://orders.example.com", "--raw"])
        #expect(run.status == 0, "\(run)")
        #expect(harness.emulator.refreshes.last?.form["resource"] == "https://orders.example.com")
        #expect(harness.emulator.refreshes.last?.form["audience"] == nil)
        expectOneLineError(
            harness.run(["token", "--audience", "Orders", "--raw"]), status: 2, contains: ["token exchange", "--resource URI"], secrets: [])
        #expect(try rule(harness, TokenTarget(scope: nil, resource: nil, audience: "Orders")) == .targetNoExchange)
        #expect(harness.emulator.refreshes.count == 1)
    }

    @Test("target-dpop: a DPoP-bound profile's targeted refresh carries a proof and gets a DPoP-bound token of the same key")
    func dpop() throws {
        let harness = try FlowHarness {
            $0.clients = [
                RegisteredClient(clientID: "pingcli-test", allowedScopes: RegisteredClient.defaultScopes + Self.orders.scopes)
            ]
            $0.resources = [.sdkRevokeResource, Self.orders]
        }
        try #require(harness.login(["--scope", Self.loginScope, "--dpop"]).status == 0)
        let session = try #require(
            try JSONSerialization.jsonObject(with: Data(harness.run(["token", "--format", "json"]).stdout.utf8)) as? [String: Any])
        let run = harness.run(["token", "--scope", "orders:read", "--format", "json"])
        #expect(run.status == 0, "\(run)")
        #expect(harness.emulator.refreshes.last?.headers["dpop"] != nil, "the refresh carried a proof")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(object["token_type"] as? String == "DPoP" && object["jkt"] as? String == session["jkt"] as? String)
        let cnf = try claims(try #require(object["access_token"] as? String))["cnf"] as? [String: Any]
        #expect(cnf?["jkt"] as? String == session["jkt"] as? String)
        expectOneLineError(
            harness.run(["token", "--scope", "orders:read", "--format", "exec-credential"]), status: 2, contains: ["DPoP-bound"],
            secrets: [])
    }

    @Test("target-formats: raw, json, exec-credential and summary all carry the targeted token; the summary no secret")
    func formats() throws {
        let harness = try signedIn()
        let raw = harness.run(["token", "--scope", "orders:read", "--raw"]).stdout
        let token = raw.trimmingCharacters(in: .newlines)
        let credential = harness.run(["token", "--scope", "orders:read", "--format", "exec-credential"], environment: [:])
        #expect(credential.status == 0 && credential.stdout.contains(token), "\(credential)")
        let summary = harness.run(["token", "--scope", "orders:read", "--format", "summary"])
        #expect(summary.stdout.contains("scopes:        orders:read") && !summary.stdout.contains(token), "\(summary)")
        #expect(!summary.stdout.contains("refresh token:"), "the targeted token has none of its own")
        #expect(harness.emulator.refreshes.count == 1)
    }

    @Test(
        "target-cache-file: targeted tokens are encrypted beside the session (0600), listed by status without the token, removed by logout and by a new login"
    )
    func cacheFile() throws {
        let harness = try signedIn()
        let token = harness.run(["token", "--scope", "orders:read", "--raw"]).stdout.trimmingCharacters(in: .newlines)
        let path = harness.stateDirectory + "/targeted-tokens.enc"
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(bytes.prefix(4) == Data("PCLT".utf8))
        #expect(!String(decoding: bytes, as: UTF8.self).contains(token.prefix(40)), "no plaintext token")
        #expect(!String(decoding: bytes, as: UTF8.self).contains("orders:read"), "no plaintext scope")
        #expect(fileMode(path) == 0o600)
        let status = harness.run(["status"])
        #expect(status.stdout.contains("narrower:      scope \"orders:read\" (expires in 1h"), "\(status)")
        #expect(!status.stdout.contains(token))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(harness.run(["status", "--json"]).stdout.utf8)) as? [String: Any])
        let listed = try #require(json["targeted_tokens"] as? [[String: Any]])
        #expect(listed.count == 1 && listed.first?["scope"] as? String == "orders:read" && listed.first?["expires_at"] is String)
        #expect(harness.login(["--scope", Self.loginScope]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: path), "a new session starts without the last one's tokens")
        #expect(harness.run(["token", "--scope", "orders:read", "--raw"]).status == 0)
        #expect(harness.run(["logout"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test(
        "target-cache-of-earlier-session: narrower tokens restored from before a logout and a new login (a ~/.config writer, a backup) are never served: the new session obtains its own; while logged out nothing is served"
    )
    func earlierSessionRestored() throws {
        let harness = try signedIn()
        let path = harness.stateDirectory + "/targeted-tokens.enc"
        let earlier = harness.run(["token", "--scope", "orders:read", "--raw"])
        #expect(earlier.status == 0, "\(earlier)")
        let copy = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(harness.run(["logout"]).status == 0)
        try copy.write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        #expect(harness.run(["token", "--scope", "orders:read", "--raw"]).status == 4, "logged out: nothing served")
        let login = harness.login(["--scope", Self.loginScope])
        #expect(login.status == 0, "\(login)")
        try copy.write(to: URL(fileURLWithPath: path))  // put back after the new login too
        chmod(path, 0o600)
        let refreshes = harness.emulator.refreshes.count
        let run = harness.run(["token", "--scope", "orders:read", "--raw"])
        #expect(run.status == 0 && run.stdout != earlier.stdout, "the earlier session's narrower token was served: \(run)")
        #expect(harness.emulator.refreshes.count == refreshes + 1, "the new session obtained its own")
        #expect(harness.run(["token", "--scope", "orders:read", "--raw"]).stdout == run.stdout, "and caches it")
    }

    @Test("target-damaged-cache: a targeted cache that does not decrypt costs one request, never the session")
    func damagedCache() throws {
        let harness = try signedIn()
        #expect(harness.run(["token", "--scope", "orders:read", "--raw"]).status == 0)
        let path = harness.stateDirectory + "/targeted-tokens.enc"
        var bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        bytes[bytes.count - 1] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let run = harness.run(["token", "--scope", "orders:read", "--raw"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        #expect(harness.emulator.refreshes.count == 2)
    }

    @Test("target-unreachable: a network failure while the targeted token is still valid serves it with a warning")
    func unreachable() throws {
        let harness = try signedIn()
        harness.emulator.accessTokenLifetime = 100
        let first = harness.run(["token", "--scope", "orders:read", "--raw"])
        harness.clock.advance(by: 80)
        harness.networkDown(true)
        let run = harness.run(["token", "--scope", "orders:read", "--raw"])
        #expect(run.status == 0 && run.stdout == first.stdout, "\(run)")
        #expect(run.stderr.hasPrefix("pingcli: warning:") && run.stderr.contains("cached token for scope \"orders:read\""), "\(run)")
        harness.clock.advance(by: 30)
        #expect(harness.run(["token", "--scope", "orders:read", "--raw"]).status == 3, "expired: the failure itself")
        let (context, _) = try harness.context()
        #expect(throws: PingCLIError.self) {
            try TargetedTokenProvider(
                base: TokenProvider(profile: .default, context: context.forSession),
                target: TokenTarget(scope: "orders:read", resource: nil, audience: nil)
            ).fresh(minimumTTL: 30)
        }
        #expect(try rule(harness, TokenTarget(scope: "orders:read", resource: nil, audience: nil)) == .targetUnreachable)
    }

    @Test("target-dead-refresh: invalid_grant on a targeted refresh ends the session as a refresh does (exit 4), never a browser")
    func deadRefreshToken() throws {
        let harness = try signedIn()
        harness.emulator.faults = Faults(failNextRefreshes: 1)
        let opened = harness.browser.opened.count
        expectOneLineError(
            harness.run(["token", "--scope", "orders:read", "--raw"]), status: 4,
            contains: ["session expired", "pingcli login --profile default"],
            secrets: harness.emulator.issuedRefreshTokens)
        #expect(harness.browser.opened.count == opened, "never a browser")
        #expect(harness.run(["status"]).stdout.contains("refresh token: none"))
    }

    @Test("target-api: api --resource sends a token for that API; a 401 obtains a new one for the target, not the session's")
    func api() throws {
        let harness = try signedIn()
        let url = try #require(harness.emulator.url(for: .resource))
        func audience(_ run: FlowRun) throws -> [String]? {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run)")
            return object["aud"] as? [String]
        }
        let run = harness.run(["api", "--resource", "https://orders.example.com", url])
        #expect(run.status == 0, "\(run)")
        #expect(try audience(run) == ["https://orders.example.com"])
        #expect(harness.emulator.refreshes.count == 1)
        harness.emulator.expireAccessTokens()
        let retried = harness.run(["api", "--resource", "https://orders.example.com", url])
        #expect(retried.status == 0 && retried.stderr.contains("answered 401"), "\(retried)")
        #expect(try audience(retried) == ["https://orders.example.com"])
        #expect(harness.emulator.refreshes.count == 2)
        #expect(harness.emulator.refreshes.last?.form["resource"] == "https://orders.example.com")
    }
}
