import Testing

@testable import PingBase
@testable import PingCommands
@testable import PingIntegrations
@testable import PingLogin
@testable import PingPlatform
@testable import PingRedirect
@testable import PingState

#if canImport(Glibc)
    import Glibc
#endif

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

    @Test("git-credential-plain-http: https, http only to this machine, for a configured host alone")
    func gitTransport() throws {
        for good in [("https", "git.example.com"), ("http", "127.0.0.1:8080"), ("http", "localhost"), ("http", "[::1]:80")] {
            let host = try GitHost(checking: good.1)
            #expect(host.matches(protocol: good.0, host: good.1, path: nil), "\(good)")
        }
        for bad in [("http", "git.example.com"), ("http", "127.0.0.1.nip.io"), ("http", "localhost.evil"), ("ftp", "h"), ("", "h")] {
            let host = try GitHost(checking: bad.1)
            #expect(!host.matches(protocol: bad.0, host: bad.1, path: nil), "\(bad)")
        }
    }

    @Test("git-host-match: host case-insensitive, default port only unless named, path prefix by whole segments, no . or ..")
    func gitHostMatch() throws {
        let plain = try GitHost(checking: "Git.Example.com")
        #expect(plain.description == "git.example.com")
        #expect(plain.matches(protocol: "https", host: "git.example.com:443", path: "a/b"))
        #expect(!plain.matches(protocol: "https", host: "git.example.com:444", path: nil))
        #expect(!plain.matches(protocol: "https", host: "xgit.example.com", path: nil))
        #expect(!plain.matches(protocol: "https", host: nil, path: nil))
        let team = try GitHost(checking: "https://git.example.com:8443/team/")
        #expect(team.description == "git.example.com:8443/team")
        #expect(team.matches(protocol: "https", host: "git.example.com:8443", path: "team/repo.git"))
        #expect(team.matches(protocol: "https", host: "git.example.com:8443", path: "/team"))
        #expect(!team.matches(protocol: "https", host: "git.example.com:8443", path: "teams/repo.git"))
        #expect(!team.matches(protocol: "https", host: "git.example.com:8443", path: nil))
        #expect(!team.matches(protocol: "https", host: "git.example.com:8443", path: "team/../x"))
        #expect(!team.matches(protocol: "https", host: "git.example.com", path: "team/repo.git"))
        let v6 = try GitHost(checking: "[::1]:8080")
        #expect(v6.matches(protocol: "http", host: "[::1]:8080", path: nil))
        for bad in ["", "*", "a b", "http://h", "u@h", "h:0", "h:65536", "h:", "h/..", "[zz]", "h?q", "h#f", "é.example", "a..b", ".h"] {
            #expect(throws: PingCLIError.self, "\(bad)") { try GitHost(checking: bad) }
        }
    }

    @Test("git-credential-configure: configure is the first argument that is not an option or an option's value")
    func configureOperation() {
        #expect(GitCredentialCommand.isConfigure(["configure", "git.example.com"]))
        #expect(GitCredentialCommand.isConfigure(["--profile", "work", "configure", "--remove", "h"]))
        #expect(!GitCredentialCommand.isConfigure(["--profile", "configure", "get"]))
        #expect(!GitCredentialCommand.isConfigure(["get"]))
    }

    @Test("prompt-values: OIDC Core §3.1.2.1's values, several once each, none alone")
    func promptValues() throws {
        #expect(try LoginInputChecks.prompt("login") == "login")
        #expect(try LoginInputChecks.prompt("consent  select_account") == "consent select_account")
        for bad in ["", " ", "bogus", "none login", "login login", "LOGIN", "login\nconsent"] {
            #expect(
                throws: PingCLIError.usage(
                    "--prompt \"\(displaySafe(bad, limit: 60))\" is not an OpenID Connect prompt: use none, login, consent or select_account (several separated by spaces; none alone)",
                    rule: .promptGate
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

@Suite("WSL probe")
struct WSLProbeTests {
    @Test(
        "wsl-probe: WSL 1 and 2 kernels are recognised from osrelease or /proc/version; other kernels are not",
        arguments: [
            ("5.15.153.1-microsoft-standard-WSL2", nil, true), ("4.4.0-19041-Microsoft", nil, true),
            (nil, "Linux version 5.10.16.3-microsoft-standard-WSL2 (oe-user@oe-host)", true),
            ("6.1.0-18-amd64", "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)", false), (nil, nil, false),
        ] as [(String?, String?, Bool)])
    func probe(osrelease: String?, version: String?, expected: Bool) {
        let files = ["/proc/sys/kernel/osrelease": osrelease, "/proc/version": version]
        #expect(WindowsBrowser.isWSL { files[$0] ?? nil } == expected)
    }

    @Test("wsl-no-cmd: with cmd.exe and rundll32.exe on PATH, rundll32.exe is chosen; with cmd.exe alone, no Windows launcher")
    func noCmd() throws {
        let directory = makeTemporaryDirectory("wsl")
        defer {
            for name in ["cmd.exe", "rundll32.exe"] { unlink(directory + "/" + name) }
            rmdir(directory)
        }
        close(creat(directory + "/cmd.exe", 0o755))
        #expect(WindowsBrowser.command(path: directory) == nil)
        close(creat(directory + "/rundll32.exe", 0o755))
        #expect(WindowsBrowser.command(path: directory)?.words == [directory + "/rundll32.exe", "url.dll,FileProtocolHandler"])
    }

    @Test("wsl-launcher-choice: PINGCLI_BROWSER and BROWSER win over WSL; on WSL without any launcher, xdg-open")
    func launcherChoice() {
        let wsl = SpawnBrowserLauncher(environment: ["PINGCLI_BROWSER": "firefox", "PATH": "/nonexistent"], isWSL: { true })
        #expect(wsl.command().words == ["firefox"])
        #expect(SpawnBrowserLauncher(environment: ["BROWSER": "lynx"], isWSL: { true }).command().words == ["lynx"])
        #expect(SpawnBrowserLauncher(environment: ["PATH": "/nonexistent"], isWSL: { true }).command().words == ["xdg-open"])
    }
}
