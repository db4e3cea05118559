import Testing

@testable import PingCLICore

/// The gates for what other tools hand pingcli (kubectl's KUBERNETES_EXEC_INFO, git's credential
/// request), login's own checks, and the page text cleaning, as pure functions.
@Suite("gates: tool inputs, login options, page text")
struct ToolInputTests {
    @Test("exec-info-gate: absent or empty means v1; v1 and v1beta1 requests are accepted")
    func execInfoAccepted() throws {
        #expect(try ExecCredential.requestedVersion(nil) == ExecCredential.v1)
        #expect(try ExecCredential.requestedVersion("") == ExecCredential.v1)
        for version in [ExecCredential.v1, ExecCredential.v1beta1] {
            let info = #"{"kind":"ExecCredential","apiVersion":""# + version + #"","spec":{"interactive":false}}"#
            #expect(try ExecCredential.requestedVersion(info) == version)
        }
    }

    @Test("exec-info-gate: anything else is a usage error that never quotes more than a safe, short apiVersion")
    func execInfoRefused() {
        let refused = [
            "{", "null", "[]", #"{"apiVersion":"client.authentication.k8s.io/v1"}"#,
            #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v2"}"#,
            #"{"kind":"ExecCredential","apiVersion":"x\u001b]0;title\u0007"}"#,
            #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","x":""# + String(repeating: "a", count: 70_000)
                + "\"}",
        ]
        for info in refused {
            do {
                _ = try ExecCredential.requestedVersion(info)
                Issue.record("accepted \(info.prefix(80))")
            } catch {
                #expect(error.status == .usage)
                #expect(!error.message.unicodeScalars.contains { isTerminalActive($0) } && error.message.count < 300)
            }
        }
    }

    @Test("exec-credential: the object kubectl reads, with the expiry in RFC 3339 UTC or without one")
    func execCredentialObject() {
        let object = ExecCredential.object(version: ExecCredential.v1beta1, token: "abc", expiresAt: 0)
        #expect(
            object.rendered(pretty: false)
                == #"{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","spec":{},"status":{"expirationTimestamp":"1970-01-01T00:00:00Z","token":"abc"}}"#
        )
        #expect(
            !ExecCredential.object(version: ExecCredential.v1, token: "t", expiresAt: nil).rendered(pretty: false).contains("expiration"))
    }

    @Test("git-credential-gate: key=value lines up to the blank line; the last value of a key wins")
    func gitRequestParsed() throws {
        let request = try GitCredential.parse(Array("protocol=https\nhost=h:8443\nwwwauth[]=Basic realm=\"x\"\nhost=g\n\nignored=1\n".utf8))
        #expect(request == ["protocol": "https", "host": "g", "wwwauth[]": "Basic realm=\"x\""])
        #expect(try GitCredential.parse([]) == [:])
    }

    @Test("git-credential-gate: no key, upper case, controls, DEL, invalid UTF-8 and long keys are refused")
    func gitRequestRefused() {
        let refused: [[UInt8]] = [
            Array("noequals\n".utf8), Array("=v\n".utf8), Array("Host=h\n".utf8), Array("host=a\u{1b}b\n".utf8),
            Array("host=a\rb\n".utf8), Array("host=\u{7f}\n".utf8), Array("host=".utf8) + [0xFF, 10],
            Array((String(repeating: "k", count: 65) + "=v\n").utf8), Array("ho st=h\n".utf8), Array("host=a\u{0}b\n".utf8),
        ]
        for bytes in refused {
            #expect(throws: PingCLIError.self, "\(bytes)") { try GitCredential.parse(bytes) }
        }
    }

    @Test("git-credential-plain-http: https anywhere, http only to this machine")
    func gitTransport() {
        for good in [("https", "git.example.com"), ("http", "127.0.0.1:8080"), ("http", "localhost"), ("http", "[::1]:80")] {
            #expect((try? GitCredential.checkTransport(["protocol": good.0, "host": good.1])) != nil, "\(good)")
        }
        for bad in [("http", "git.example.com"), ("http", "127.0.0.1.nip.io"), ("http", "localhost.evil"), ("ftp", "h"), ("", "h")] {
            #expect(throws: PingCLIError.self, "\(bad)") { try GitCredential.checkTransport(["protocol": bad.0, "host": bad.1]) }
        }
    }

    @Test("prompt-values: OIDC Core §3.1.2.1's values, several once each, none alone")
    func promptValues() throws {
        #expect(try LoginInputChecks.prompt("login") == "login")
        #expect(try LoginInputChecks.prompt("consent  select_account") == "consent select_account")
        for bad in ["", " ", "bogus", "none login", "login login", "LOGIN", "login\nconsent"] {
            #expect(
                throws: PingCLIError.usage(
                    "--prompt \"\(displaySafe(bad, limit: 60))\" is not an OpenID Connect prompt: use none, login, consent or select_account (several separated by spaces; none alone)"
                )
            ) {
                try LoginInputChecks.prompt(bad)
            }
        }
    }

    @Test("page-text: markup, entities and escape remnants from a server become plain text; sentences get a capital and a stop")
    func pageText() {
        #expect(RedirectPage.plainText("&lt;b&gt;no&lt;/b&gt; <i>way</i>") == "no way")
        #expect(RedirectPage.plainText(#"line\none \"quoted\" \u0041x"#) == "line one \"quoted\" x")
        #expect(RedirectPage.plainText("a\u{1b}[31mb") == "a [31mb")
        #expect(RedirectPage.sentence("the provider said no") == "The provider said no.")
        #expect(RedirectPage.sentence("Done!") == "Done!")
        let page = RedirectPage.failed("x <script>alert(1)</script> &lt;img src=x onerror=alert(1)&gt;")
        #expect(!page.contains("<script") && !page.contains("<img"))
        #expect(
            RedirectPage.signedIn(profile: "work", provider: "https://auth.pingone.com/env/as").contains(
                "<strong>auth.pingone.com</strong>"))
    }
}
