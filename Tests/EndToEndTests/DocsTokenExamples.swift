import Foundation
import PingEmulator
import Testing

/// docs/usage.md's examples of handing tokens out ("Tokens for scripts", the `--format json` shape, "A token
/// for one API or a smaller scope", "Who am I"), run as written against the emulator.
@Suite("docs examples: tokens")
struct DocsTokenExamples {
    static let raw = "pingcli token --raw # the access token and a newline, nothing else on stdout"
    static let captured = "X=$(pingcli token) # the same: stdout is not a terminal, so only the token is printed"
    static let plain = "pingcli token # on a terminal: profile, subject, expiry, scopes, whether a refresh token is held"
    static let minTTL = "pingcli token --raw --min-ttl 300"
    static let json = "pingcli token --format json # the token with its expiry, in one call (see below)"
    static let idToken = "pingcli token --id-token --raw # the ID token instead of the access token"
    static let jsonShape = #"json block "{" #651da78bd4dd5d92"#
    static let scope = #"pingcli token --scope "orders:read" --raw # only this scope (within the sign-in's)"#
    static let resource = "pingcli token --resource https://orders.example.com --raw # a token for that API only (its aud)"
    static let resourceJSON = "pingcli token --resource https://orders.example.com --scope orders:write --format json"
    static let audience = "pingcli token --audience orders-api --raw # RFC 8693 token exchange, where offered"
    static let invalidScope =
        #"plain block "pingcli: the provider refused scope "orders:admin" (invalid_scope: requested scope exceeds the original grant): the session was granted "openid profile email orders:read orders:write"; ask within it, or run pingcli login --profile default --scope "…" to sign in for more" #5e712ed12145ebef"#
    static let userinfo = "pingcli userinfo # claims as indented JSON"
    static let userinfoRaw = "pingcli userinfo --raw # one line, for jq"

    static let orders = CustomResource(name: "orders-api", audience: "https://orders.example.com", scopes: ["orders:read", "orders:write"])

    func claims(_ token: String) throws -> [String: Any] {
        try TokenFormatTests().claims(token.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("docs-usage-token: the six token commands for scripts print what their comments promise")
    func tokensForScripts() throws {
        let (emulator, sandbox) = try loggedIn()
        let shell = DocsShell(sandbox, emulator: emulator)
        let token = emulator.newestTokenLine
        #expect(try shell.succeeds(Self.raw).stdout == token)
        #expect(try shell.succeeds(Self.captured, then: #"printf '%s\n' "$X""#).stdout == token)
        #expect(try shell.succeeds(Self.plain).stdout == token, "not a terminal: the token alone")
        #expect(try shell.succeeds(Self.minTTL).stdout == token, "an hour left: no refresh")
        let json = try shell.succeeds(Self.json)
        #expect(json.stdout.contains("\"access_token\": \"\(token.dropLast())\"") && json.stdout.contains("\"expires_at\": \""), "\(json)")
        let id = try shell.succeeds(Self.idToken).stdout
        #expect(try claims(id)["nonce"] != nil && id != token, "an ID token: \(id)")
        #expect(emulator.requests(to: .token).count == 1, "no refresh")
    }

    @Test("docs-usage-token-json: the documented --format json object has the members and values token --format json prints")
    func jsonShape() throws {
        let (emulator, sandbox) = try loggedIn()
        let documented = try DocExamples.text(Self.jsonShape).replacingOccurrences(
            of: "https://auth.pingone.com/<environment-id>/as", with: emulator.issuer)
        let real = sandbox.run(["token", "--format", "json"])
        #expect(real.status == 0, "\(real)")
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(documented.utf8)) as? [String: Any])
        let actual = try #require(try JSONSerialization.jsonObject(with: Data(real.stdout.utf8)) as? [String: Any])
        #expect(Set(expected.keys) == Set(actual.keys), "docs \(expected.keys.sorted()), real \(actual.keys.sorted())")
        for name in ["issuer", "profile", "scope", "token_type"] {
            #expect(expected[name] as? String == actual[name] as? String, "\(name)")
        }
        for name in ["expires_at", "auth_time"] {
            let instant = try #require(actual[name] as? String)
            #expect(instant.wholeMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/) != nil, "\(name): \(instant)")
        }
    }

    /// An emulator with the Orders API (RFC 8693 token exchange listed) and a sandbox signed in with its scopes.
    static func ordersSession() throws -> (Emulator, Sandbox) {
        let (emulator, sandbox) = try emulatorAndSandbox {
            $0.layout = .pingFederate
            $0.tokenExchange = true
            $0.clients = [RegisteredClient(clientID: "pingcli-test", allowedScopes: RegisteredClient.defaultScopes + orders.scopes)]
            $0.resources = [.sdkRevokeResource, orders]
        }
        let login = sandbox.login(emulator, ["--scope", "openid profile email orders:read orders:write"])
        #expect(login.status == 0, "\(login)")
        return (emulator, sandbox)
    }

    @Test("docs-usage-token-target: --scope, --resource (also with --format json) and --audience get the narrower tokens promised")
    func narrowerTokens() throws {
        let (emulator, sandbox) = try Self.ordersSession()
        let shell = DocsShell(sandbox, emulator: emulator)
        #expect(try claims(shell.succeeds(Self.scope).stdout)["scope"] as? String == "orders:read")
        #expect(try claims(shell.succeeds(Self.resource).stdout)["aud"] as? String == "https://orders.example.com")
        let json = try shell.succeeds(Self.resourceJSON)
        #expect(json.stdout.contains("\"resource\": \"https://orders.example.com\""), "\(json)")
        #expect(json.stdout.contains("\"scope\": \"orders:write\""), "\(json)")
        let exchanged = try shell.succeeds(Self.audience)
        #expect(try claims(exchanged.stdout)["aud"] as? String == "https://orders.example.com")
        #expect(emulator.requests(to: .token).last?.grantType == "urn:ietf:params:oauth:grant-type:token-exchange")
    }

    @Test("docs-usage-invalid-scope: the documented invalid_scope line is what token --scope orders:admin prints (exit 1)")
    func invalidScopeLine() throws {
        let (_, sandbox) = try Self.ordersSession()
        let browsed = sandbox.browserLaunches
        let run = sandbox.run(["token", "--scope", "orders:admin", "--raw"])
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run)")
        try expectSameTranscript(
            documented: try DocExamples.text(Self.invalidScope), actual: run.stderr,
            placeholders: [(#"\(invalid_scope: [^)]*\)"#, "(invalid_scope: the provider's description)")])
        #expect(sandbox.browserLaunches == browsed, "never a browser")
    }

    @Test("docs-usage-userinfo: userinfo prints indented JSON claims, --raw one line that jq reads")
    func userinfo() throws {
        let (emulator, sandbox) = try loggedIn()
        let shell = DocsShell(sandbox, emulator: emulator)
        let indented = try shell.succeeds(Self.userinfo)
        #expect(indented.stdout.hasPrefix("{\n  \"") && indented.stdout.contains("\"name\": \"Demo User\""), "\(indented)")
        let raw = try shell.succeeds(Self.userinfoRaw, then: "pingcli userinfo --raw | jq -r .name")
        let lines = raw.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines.first?.hasPrefix("{\"") == true && lines.last == "Demo User", "\(raw)")
    }
}
