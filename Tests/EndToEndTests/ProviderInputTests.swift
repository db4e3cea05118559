import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Bytes that must never reach a terminal from pingcli: ESC, BEL, CR and the other C0 controls but
/// newline and tab, DEL, C1 controls, and the bidi overrides and isolates.
func terminalActiveCharacters(in text: String) -> [String] {
    text.unicodeScalars.filter { scalar in
        (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
            || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }.map { String(format: "U+%04X", $0.value) }
}

/// An OSC 52 clipboard write, a screen clear, then a header and a whole second request.
let smuggling = "AT\u{1b}]52;c;cHduZWQ=\u{07}\u{1b}[2J\r\nX-Injected: yes\r\n\r\nGET /smuggled HTTP/1.1"

/// Everything a provider sends is checked where it enters (issue 8): through the built binary against a
/// provider that sends exactly what each test scripts, asserting what reached the provider and what
/// reached stdout and stderr.
@Suite("provider input: tokens, URLs, media types and text from a hostile provider")
struct ProviderInputTests {
    func login(_ provider: MaliciousProvider, _ sandbox: Sandbox, _ extra: [String] = []) -> CLIRun {
        sandbox.run(["login", "--issuer", provider.issuer, "--client-id", "pingcli-test", "--timeout", "20"] + extra)
    }

    func expectClean(_ run: CLIRun, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(terminalActiveCharacters(in: run.stdout).isEmpty, "stdout: \(run)", sourceLocation: sourceLocation)
        #expect(terminalActiveCharacters(in: run.stderr).isEmpty, "stderr: \(run)", sourceLocation: sourceLocation)
    }

    @Test(
        "token-grammar: an access_token, refresh_token or id_token outside its grammar is refused by name, never printed, never sent",
        arguments: ["access_token", "refresh_token", "id_token"])
    func tokenGrammar(field: String) throws {
        let provider = try MaliciousProvider()
        defer { provider.stop() }
        provider.script.token[field] = json(smuggling)
        let sandbox = Sandbox()
        let run = login(provider, sandbox)
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("the token response was refused: the \(field) is not a valid"), "\(run)")
        #expect(run.rule == "token-grammar", "\(run)")
        #expect(run.stdout.isEmpty)
        expectClean(run)
        #expect(!run.stderr.contains("X-Injected") && !run.stderr.contains("cHduZWQ"), "the value is never quoted")
        #expect(!FileManager.default.fileExists(atPath: sandbox.stateDirectory + "/tokens.enc"))
        let token = sandbox.run(["token", "--raw"])
        #expect(token.status == 4 && token.stdout.isEmpty, "\(token)")
        // Nothing after the token request: no userinfo, no smuggled request, no injected header anywhere.
        #expect(provider.received(at: "/userinfo").isEmpty)
        for request in provider.received {
            #expect(!request.text.contains("X-Injected") && !request.text.contains("/smuggled"), "\(request.text)")
        }
    }

    @Test("header-injection-on-refresh: a refreshed access_token with CR/LF and escapes never replaces the cached one")
    func refreshInjection() throws {
        let provider = try MaliciousProvider()
        defer { provider.stop() }
        provider.script.token["expires_in"] = "20"  // inside token's 30 s threshold: the next call refreshes
        let sandbox = Sandbox()
        #expect(login(provider, sandbox).status == 0)
        provider.script.token["access_token"] = json(smuggling)
        let run = sandbox.run(["token", "--raw"])
        expectClean(run)
        #expect(run.stderr.contains("the access_token is not a valid bearer token"), "\(run)")
        #expect(run.stdout.isEmpty || run.stdout == "AT-good\n", "only the cached token may be served: \(run)")
        provider.script.token["access_token"] = json("AT-next")
        provider.script.token["expires_in"] = "3600"
        let userinfo = sandbox.run(["userinfo", "--min-ttl", "0"])
        #expect(userinfo.status == 0, "\(userinfo)")
        let sent = try #require(provider.received(at: "/userinfo").last)
        #expect(sent.text.contains("Authorization: Bearer AT-"))
        #expect(!sent.text.contains("X-Injected") && !sent.text.contains("smuggled"))
    }

    @Test(
        "url-gate: discovery URLs with ESC, BEL, CR/LF, C1, DEL, U+202E, spaces or numeric loopback tricks are refused, and nothing raw reaches the terminal",
        arguments: [
            "/authorize\u{1b}[2J\u{07}", "/authorize\r\nX-Injected: yes", "/authorize\u{85}", "/authorize\u{7f}", "/auth\u{202e}ezirohtua",
            "/author ize", "/authorize#fragment",
        ])
    func urlGate(suffix: String) throws {
        let provider = try MaliciousProvider()
        defer { provider.stop() }
        provider.script.discovery["authorization_endpoint"] = json(provider.issuer + suffix)
        for extra in [[], ["--verbose"]] {
            let run = login(provider, Sandbox(), extra)
            #expect(run.status == 1, "\(run)")
            #expect(run.stderr.contains("authorization_endpoint"), "\(run)")
            #expect(run.rule == "discovery-insecure-endpoint", "\(run)")
            expectClean(run)
        }
        #expect(provider.received(at: "/authorize").isEmpty)
    }

    @Test("url-gate-userinfo: a userinfo_endpoint with user information or an IPv4 shorthand for loopback is refused")
    func urlGateHosts() throws {
        for url in [
            "http://user:pass@127.0.0.1:1/userinfo", "http://2130706433/userinfo", "http://0x7f.1/userinfo", "http://127.1/userinfo",
        ] {
            let provider = try MaliciousProvider()
            defer { provider.stop() }
            provider.script.discovery["userinfo_endpoint"] = json(url)
            let run = login(provider, Sandbox())
            #expect(run.status == 1, "\(url): \(run)")
            #expect(run.stderr.contains("userinfo_endpoint"), "\(run)")
            #expect(run.rule == "discovery-insecure-endpoint", "\(run)")
        }
    }

    @Test("response-splitting: an end_session_endpoint with CR/LF never reaches a Location header")
    func endSessionSplitting() throws {
        let provider = try MaliciousProvider()
        defer { provider.stop() }
        provider.script.discovery["end_session_endpoint"] = json(
            provider.issuer + "/end\r\nSet-Cookie: pwned=1\r\nRefresh: 0;url=https://phish.example")
        let sandbox = Sandbox()
        let run = login(provider, sandbox)
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("end_session_endpoint"))
        #expect(run.rule == "discovery-insecure-endpoint", "\(run)")
        expectClean(run)
        #expect(!FileManager.default.fileExists(atPath: sandbox.profileDirectory + "/profile.json"), "nothing saved")
    }

    @Test("json-output-escapes: userinfo and status --json escape C1, DEL and bidi controls; text output blanks them")
    func jsonEscapes() throws {
        let provider = try MaliciousProvider()
        defer { provider.stop() }
        let hostile = "Eve\u{85}\u{7f}\u{9b}31m\u{202e}\u{2066}\u{1b}[2J"
        provider.script.userinfoClaims = ["name": json(hostile)]
        let sandbox = Sandbox()
        #expect(login(provider, sandbox).status == 0)
        let userinfo = sandbox.run(["userinfo"])
        #expect(userinfo.status == 0, "\(userinfo)")
        expectClean(userinfo)
        for escape in ["\\u0085", "\\u007f", "\\u009b", "\\u202e", "\\u2066", "\\u001b"] {
            #expect(userinfo.stdout.contains(escape), "\(escape) in \(userinfo.stdout)")
        }
        let decoded = try JSONSerialization.jsonObject(with: Data(userinfo.stdout.utf8)) as? [String: Any]
        #expect(decoded?["name"] as? String == hostile, "the JSON still decodes to the server's value")

        // The ID token's name reaches status: escaped in JSON, blanked in text.
        provider.script.idTokenName = hostile
        let other = Sandbox()
        let run = login(provider, other)
        #expect(run.status == 0, "\(run)")
        expectClean(run)
        let status = other.run(["status", "--json"])
        expectClean(status)
        #expect(status.stdout.contains("Eve\\u0085\\u007f\\u009b31m\\u202e\\u2066\\u001b[2J"), "\(status)")
        let text = other.run(["status"])
        expectClean(text)
        #expect(text.stdout.contains("(Eve  "), "\(text)")
    }

    @Test("media-type: a token response of 200 text/html is not read as JSON, even when its body is JSON")
    func mediaType() throws {
        let provider = try MaliciousProvider()
        defer { provider.stop() }
        provider.script.tokenContentType = "text/html"
        let run = login(provider, Sandbox())
        #expect(run.status == 1)
        #expect(run.stderr.contains("is not a JSON object (got text/html)"), "\(run)")
        #expect(run.rule == "token-not-json", "\(run)")
    }

    @Test(
        "expires-in-digits: expires_in is a JSON number or plain digits, nothing a parser might guess at",
        arguments: ["0x10", "1e3", " 60", "+60", "inf"])
    func expiresInDigits(text: String) throws {
        let provider = try MaliciousProvider()
        defer { provider.stop() }
        provider.script.token["expires_in"] = json(text)
        let run = login(provider, Sandbox())
        #expect(run.status == 1, "\(run)")
        #expect(run.rule == "token-expires-in-invalid", "\(run)")
    }

    @Test(
        "access-denied-without-iss: an error response without the promised iss reports the server's error and the way to retry, without an RFC 9207 note (declining is no mix-up)"
    )
    func accessDeniedWithoutIss() throws {
        let provider = try MaliciousProvider()
        defer { provider.stop() }
        provider.script.authorizationResponse = ["code": nil, "iss": nil, "error": "access_denied", "error_description": "User cancelled"]
        let run = login(provider, Sandbox())
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("the sign-in was declined at the provider (access_denied: User cancelled)"), "\(run)")
        #expect(run.rule == "access-denied", "\(run)")
        #expect(!run.stderr.contains("RFC 9207") && run.stderr.contains("run pingcli login again to retry"), "\(run)")
        #expect(!run.stderr.contains("report it if it repeats"))
        #expect(provider.received(at: "/token").isEmpty)
    }

    @Test("missing-iss-success: a code without the promised iss is still refused (RFC 9207 §2.4)")
    func successWithoutIss() throws {
        let provider = try MaliciousProvider()
        defer { provider.stop() }
        provider.script.authorizationResponse = ["iss": nil]
        let run = login(provider, Sandbox())
        #expect(run.status == 1)
        #expect(run.rule == "missing-iss", "\(run)")
        #expect(provider.received(at: "/token").isEmpty)
    }
}
