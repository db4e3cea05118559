import Foundation
import PingEmulator
import Testing

/// Pushed authorization requests (RFC 9126): the browser gets only `client_id` and `request_uri`.
@Suite("pushed authorization requests")
struct PushedAuthorizationTests {
    func parEmulator(_ mode: PushedAuthorizationMode = .offered, layout: Layout = .pingOne, secret: String? = nil) throws -> Emulator {
        try startEmulator {
            $0.layout = layout
            $0.pushedAuthorization = mode
            $0.clients = [RegisteredClient(clientID: "pingcli-test", clientSecret: secret)]
        }
    }

    /// The query parameters of the first URL the browser double was given.
    func browserQuery(_ sandbox: Sandbox) throws -> [String: String] {
        let first = try #require(sandbox.browserLog.first)
        let items = try #require(URLComponents(string: first)?.queryItems)
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
    }

    @Test(
        "par-browser-url: the browser URL holds only client_id and request_uri; state, nonce and PKCE travel in the push",
        arguments: Layout.allCases)
    func browserURL(layout: Layout) throws {
        let (emulator, sandbox) = sandboxed(try parEmulator(layout: layout))
        let run = sandbox.login(emulator, ["--login-hint", "demo"])
        #expect(run.status == 0, "\(run)")
        let query = try browserQuery(sandbox)
        #expect(Set(query.keys) == ["client_id", "request_uri"])
        #expect(query["client_id"] == "pingcli-test" && query["request_uri"]?.hasPrefix("urn:ietf:params:oauth:request_uri:") == true)
        let push = try #require(emulator.requests(to: .par).first)
        #expect(push.status == 201 && push.method == "POST")
        for name in ["state", "nonce", "code_challenge", "redirect_uri", "scope", "client_id"] {
            #expect(push.form[name] != nil, "\(name)")
        }
        #expect(push.form["login_hint"] == "demo" && push.form["code_challenge_method"] == "S256")
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
    }

    @Test(
        "par-default-pingone: the PingOne layout advertises PAR unless switched off, as PingOne does, and pingcli pushes; PingFederate and PingAM do not by default",
        arguments: Layout.allCases)
    func defaultLayouts(layout: Layout) throws {
        let (emulator, sandbox) = try emulatorAndSandbox { $0.layout = layout }
        let run = sandbox.login(emulator)
        #expect(run.status == 0 && run.stderr.contains("Logged in to"), "\(run)")
        let pushed = layout == .pingOne
        #expect(emulator.requests(to: .par).map(\.status) == (pushed ? [201] : []))
        let query = try browserQuery(sandbox)
        #expect(pushed ? Set(query.keys) == ["client_id", "request_uri"] : query["state"] != nil)
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
        let off = try startEmulator {
            $0.layout = layout
            $0.pushedAuthorization = .off
        }
        defer { off.stop() }
        let plain = Sandbox()
        #expect(plain.login(off).status == 0)
        let plainQuery = try browserQuery(plain)
        #expect(off.requests(to: .par).isEmpty && plainQuery["state"] != nil)
    }

    @Test("par-request-uri-reuse: a request_uri works once; the same browser URL a second time is refused")
    func reuse() throws {
        let (emulator, sandbox) = sandboxed(try parEmulator())
        #expect(sandbox.login(emulator).status == 0)
        let first = try #require(sandbox.browserLog.first)
        let again = runProcess("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", first], environment: [:], timeout: 30)
        #expect(again.stdout == "400", "\(again)")
        #expect(emulator.requests(to: .authorize).filter { $0.query["request_uri"] != nil }.map(\.status).last == 400)
    }

    @Test("par-confidential: the push authenticates the client like the token endpoint (client_secret_basic)")
    func confidential() throws {
        let (emulator, sandbox) = sandboxed(try parEmulator(secret: confidentialSecret))
        let run = sandbox.login(emulator, environment: ["PINGCLI_CLIENT_SECRET": confidentialSecret])
        #expect(run.status == 0, "\(run)")
        let push = try #require(emulator.requests(to: .par).first)
        #expect(push.headers["authorization"]?.hasPrefix("Basic ") == true && push.form["client_secret"] == nil)
        #expect(push.form["client_id"] == "pingcli-test")
    }

    @Test("par-off: --no-par sends the whole request through the browser when the provider only offers PAR")
    func noPAR() throws {
        let (emulator, sandbox) = sandboxed(try parEmulator())
        #expect(sandbox.login(emulator, ["--no-par"]).status == 0)
        #expect(emulator.requests(to: .par).isEmpty)
        #expect(try browserQuery(sandbox)["state"] != nil)
    }

    @Test("par-required: with require_pushed_authorization_requests, --no-par is refused before the browser; without it the login works")
    func required() throws {
        let (emulator, sandbox) = sandboxed(try parEmulator(.required))
        let refused = sandbox.login(emulator, ["--no-par"])
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.rule == "par-required", "\(refused)")
        #expect(refused.stderr == "pingcli: the provider requires pushed authorization requests (RFC 9126): leave out --no-par\n")
        #expect(sandbox.browserLog.isEmpty)
        #expect(sandbox.login(emulator).status == 0)
    }

    @Test(
        "par-response-gate: a hostile pushed authorization response is refused by name and no browser opens",
        arguments: [
            ("{\"request_uri\":\"urn:x:\\u001b[2J\",\"expires_in\":60}", "request_uri is not a valid absolute URI"),
            ("{\"request_uri\":\"urn:x y\",\"expires_in\":60}", "request_uri is not a valid absolute URI"),
            ("{\"request_uri\":\"no-scheme\",\"expires_in\":60}", "request_uri is not a valid absolute URI"),
            (
                "{\"request_uri\":\"urn:\(String(repeating: "a", count: 2100))\",\"expires_in\":60}",
                "request_uri is not a valid absolute URI"
            ),
            ("{\"expires_in\":60}", "has no request_uri"),
            ("{\"request_uri\":\"urn:ietf:params:oauth:request_uri:abc\",\"expires_in\":\"soon\"}", "expires_in is not a positive number"),
            ("{\"request_uri\":\"urn:ietf:params:oauth:request_uri:abc\"}", "expires_in is not a positive number"),
        ])
    func responseGate(body: String, message: String) throws {
        let emulator = try parEmulator()
        defer { emulator.stop() }
        emulator.faults.responseOverrides = [.par: CannedResponse(status: 201, contentType: "application/json", body: body)]
        let sandbox = Sandbox()
        let run = sandbox.login(emulator)
        #expect(run.status == 1, "\(run)")
        let rule =
            message.hasPrefix("request_uri")
            ? "par-request-uri" : message.hasPrefix("has no") ? "par-request-uri-missing" : "par-expires-in-invalid"
        #expect(run.rule == rule, "\(run)")
        #expect(run.stderr.contains(message), "\(run)")
        #expect(!run.stderr.contains("\u{1B}"))
        #expect(sandbox.browserLog.isEmpty)
    }
}
