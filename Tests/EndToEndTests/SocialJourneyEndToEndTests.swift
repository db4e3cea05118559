import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An emulator pair for social sign-in inside a journey: AM (the PingAM layout) with a social provider
/// configuration `corp` whose client lives at a second emulator in the PingOne layout, the external
/// OpenID provider; its Redirect URL is pingcli's loopback listener on a fixed port. The browser double
/// signs in there as `demo`, whose subject is linked at AM to alice.
struct SocialPair {
    let am: Emulator
    let provider: Emulator
    let sandbox: Sandbox
    let port: UInt16

    static let clientSecret = "am-social-secret-9f3a"

    init(redirectURI: ((UInt16) -> String)? = nil, clientType: String = "BROWSER") throws {
        let port = TLSFront.freePort()
        let uri = redirectURI?(port) ?? "http://127.0.0.1:\(port)/callback"
        let provider = try startEmulator {
            $0.layout = .pingOne
            $0.signInMode = .form
            $0.users = [.demo]
            $0.clients.append(
                RegisteredClient(
                    clientID: "am-social", clientSecret: Self.clientSecret, redirectURIs: RegisteredClient.defaultRedirectURIs + [uri]))
        }
        var settings = SocialProviderSettings(
            name: "corp", displayName: "Corporate SSO", issuer: provider.issuer,
            authorizationEndpoint: provider.url(for: .authorize) ?? "", tokenEndpoint: provider.url(for: .token) ?? "",
            clientID: "am-social", clientSecret: Self.clientSecret, redirectURI: uri)
        settings.clientType = clientType
        var other = settings
        (other.name, other.displayName) = ("google", "Google")
        let am = try AMJourneys.emulator {
            $0.journeys.socialProviders = [settings, other]
            $0.journeys.socialLinks = ["corp-\(User.demo.sub)": "alice"]
        }
        self.am = am
        self.provider = provider
        self.port = port
        sandbox = Sandbox(stopping: am, provider)
    }

    func login(_ tree: String = "Social", _ extra: [String] = []) -> [String] {
        AMJourneys.login(am, tree: tree, ["--timeout", "60"] + extra)
    }

    /// The provider's authorization endpoint, as the lines that print its URL start it.
    private func pair(_ provider: Emulator) -> String { provider.url(for: .authorize) ?? "(none)" }

    /// A `BROWSER` script that first runs `before` (sh, with `$1` the URL), then hands the URL to the double.
    func browser(_ before: String) -> String {
        let path = sandbox.root + "/browser-\(UUID().uuidString).sh"
        let text = "#!/bin/sh\nexec 1>&2\n\(before)\nexec xdg-open \"$1\"\n"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        chmod(path, 0o755)
        return path
    }

    /// What every successful federated sign-in shows: AM exchanged the code at the provider (once), the
    /// journey came back with `code` and `state` in the query and AM's tracking cookie, alice holds the tokens.
    func expectSignedIn(_ run: CLIRun, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 0, "\(run)", sourceLocation: sourceLocation)
        #expect(provider.requests(to: .token).count == 1, "AM exchanged the code itself", sourceLocation: sourceLocation)
        let code = provider.requests(to: .token).first?.form["code"] ?? "(none)"
        let resumed = am.requests(to: .authenticate).filter { $0.query["code"] != nil }
        #expect(resumed.count == 1 && resumed.first?.query["code"] == code, sourceLocation: sourceLocation)
        #expect(
            resumed.first?.headers["cookie"]?.contains(Emulator.socialTrackingCookie) == true, "the journey's cookies went back",
            sourceLocation: sourceLocation)
        #expect(sandbox.run(["token", "--raw"]).stdout == am.newestTokenLine, sourceLocation: sourceLocation)
        let userinfo = sandbox.run(["userinfo"])
        #expect(userinfo.stdout.contains("alice"), "\(userinfo)", sourceLocation: sourceLocation)
        // The code and state never leave the browser, pingcli's memory and AM: not on screen, not in a file.
        let state = resumed.first?.query["state"] ?? "(none)"
        // AM's state is in the provider's URL pingcli prints for a person to open (as login's own is); never elsewhere.
        let shown = (run.stdout + run.stderr).split(separator: "\n").filter { !$0.contains(pair(provider)) }.joined(separator: "\n")
        for secret in [code, state] {
            #expect(!shown.contains(secret), "\(run)", sourceLocation: sourceLocation)
            for file in filesBelow(sandbox.root + "/config") + filesBelow(sandbox.root + "/data") + filesBelow(sandbox.root + "/state") {
                #expect(!(readText(file) ?? "").contains(secret), "\(file)", sourceLocation: sourceLocation)
            }
        }
    }
}

/// Every regular file below `directory`.
func filesBelow(_ directory: String) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: directory)
    var files: [String] = []
    while let name = enumerator?.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
            files.append(directory + "/" + name)
        }
    }
    return files
}

@Suite("journeys: sign in through another identity provider, end to end")
struct SocialJourneyEndToEndTests {
    @Test(
        "journey-idp-browser: --idp corp without a terminal: the browser double signs in at the provider, the loopback listener on AM's redirect_uri gets the code, the step goes back to AM, alice is signed in; --idp is saved"
    )
    func idpOption() throws {
        let pair = try SocialPair()
        let run = pair.sandbox.run(pair.login("Social", ["--idp", "corp"]))
        pair.expectSignedIn(run)
        #expect(run.stderr.contains("Opening your browser to sign in at http://127.0.0.1:\(pair.provider.port)"), "\(run)")
        #expect(pair.sandbox.browserLaunches == 1)
        let profile = readText(pair.sandbox.profileDirectory + "/profile.json") ?? ""
        #expect(profile.contains("\"idp\" : \"corp\""), "\(profile)")
        // status tells it: the line of the journey and --json's idp, from the full read and from the index.
        let status = pair.sandbox.run(["status"])
        #expect(status.stdout.contains("; signs in through the identity provider \"corp\" (--idp)"), "\(status)")
        for arguments in [["status", "--json"], ["status", "--all", "--json"]] {
            let json = pair.sandbox.run(arguments).stdout
            #expect(json.contains("\"idp\" : \"corp\"") || json.contains("\"idp\": \"corp\""), "\(arguments): \(json)")
        }
        // The loopback listener is closed once the step is done.
        let again = runProcess(
            "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(pair.port)/callback"],
            environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
        #expect(again.stdout == "000", "nothing listens on the redirect port any more: \(again)")
        // --verbose shows the requests without their query: no code or state.
        let verbose = try SocialPair()
        let traced = verbose.sandbox.run(verbose.login("Social", ["--idp", "corp", "--verbose"]))
        verbose.expectSignedIn(traced)
        #expect(traced.stderr.contains("authenticate?…"), "\(traced)")
    }

    @Test(
        "journey-idp-menu: the providers as a numbered menu of their display names, local sign-in last; choosing one goes through the browser"
    )
    func menu() throws {
        let pair = try SocialPair()
        let terminal = try TerminalSession(pair.sandbox, pair.login())
        #expect(terminal.waitFor("Sign in with"), "\(terminal.screen)")
        #expect(terminal.waitFor("1) Corporate SSO") && terminal.waitFor("2) Google") && terminal.waitFor("3) Sign in here instead"))
        terminal.answer("Choose 1-3: ", "1")
        let run = terminal.finish()
        pair.expectSignedIn(run)
    }

    @Test("journey-idp-local: localAuthentication takes the tree's own sign-in: user name and password, no browser")
    func localAuthentication() throws {
        let pair = try SocialPair()
        let terminal = try TerminalSession(pair.sandbox, pair.login())
        terminal.answer("Choose 1-3: ", "3")
        terminal.answer("User Name: ", "alice")
        terminal.answerSecret("Password: ", AMJourneys.password)
        let run = terminal.finish()
        #expect(run.status == 0, "\(run)")
        #expect(pair.sandbox.browserLaunches == 0 && pair.provider.requests(to: .token).isEmpty)
        #expect(pair.sandbox.run(["token", "--raw"]).stdout == pair.am.newestTokenLine)
    }

    @Test(
        "journey-idp-state: an answer with another state on the listener is ignored (and said so); the provider's real answer then signs in"
    )
    func wrongState() throws {
        let pair = try SocialPair()
        let stray = pair.browser("curl -s -o /dev/null 'http://127.0.0.1:\(pair.port)/callback?code=forged&state=not-ams'")
        let run = pair.sandbox.run(pair.login("Social", ["--idp", "corp"]), environment: ["BROWSER": stray])
        pair.expectSignedIn(run)
        #expect(run.stderr.contains("ignored a request to the loopback listener: its state is not the one the journey sent"), "\(run)")
        #expect(!pair.am.requests(to: .authenticate).contains { $0.query["code"] == "forged" }, "the forged code never reached AM")
    }

    @Test("journey-idp-error: the provider's error comes back in one line with its description; the journey is not resumed")
    func providerError() throws {
        let pair = try SocialPair()
        let refusing = SocialPairScripts.refusing(pair)
        let run = pair.sandbox.run(pair.login("Social", ["--idp", "corp"]), environment: ["BROWSER": refusing])
        #expect(run.status == 1 && run.rule == "journey-idp-error", "\(run)")
        #expect(run.lastErrorLine.contains("access_denied (The user cancelled)"), "\(run)")
        #expect(!pair.am.requests(to: .authenticate).contains { $0.query["code"] != nil || $0.query["error"] != nil })
        #expect(pair.provider.requests(to: .token).isEmpty)
    }

    @Test(
        "journey-idp-redirect: a redirect_uri that is not loopback is refused in one line saying what AM's administrator must set, before any browser starts"
    )
    func notLoopback() throws {
        let pair = try SocialPair(redirectURI: { _ in "https://app.example.com/social/callback" })
        let run = pair.sandbox.run(pair.login("Social", ["--idp", "corp"]))
        expectOneLineError(
            run, status: 1, rule: "journey-idp-redirect",
            contains: ["https://app.example.com/social/callback", "Redirect URL", "http://127.0.0.1:"],
            secrets: [])
        #expect(pair.sandbox.browserLaunches == 0)
        let noPort = try SocialPair(redirectURI: { _ in "http://127.0.0.1/callback" })
        let portless = noPort.sandbox.run(noPort.login("Social", ["--idp", "corp"]))
        expectOneLineError(portless, status: 1, rule: "journey-idp-redirect", contains: ["fixed port"], secrets: [])
        #expect(noPort.sandbox.browserLaunches == 0)
    }

    @Test("journey-idp-loopback-hosts: a Redirect URL on [::1] or localhost: the listener binds there and the provider's answer arrives")
    func loopbackHosts() throws {
        for host in ["[::1]", "localhost"] {
            let pair = try SocialPair(redirectURI: { "http://\(host):\($0)/cli/done" })
            let run = pair.sandbox.run(pair.login("Social", ["--idp", "corp"]))
            pair.expectSignedIn(run)
            #expect(run.stderr.contains("waits for its answer on http://\(host):\(pair.port)/cli/done"), "\(run)")
        }
    }

    @Test("journey-idp-native: the Social Provider Handler's NATIVE form is refused in one line naming Client Type BROWSER")
    func native() throws {
        let pair = try SocialPair(clientType: "NATIVE")
        let run = pair.sandbox.run(pair.login("Social", ["--idp", "corp"]))
        expectOneLineError(run, status: 1, rule: "journey-idp-native", contains: ["NATIVE", "Client Type BROWSER"], secrets: [])
        #expect(pair.sandbox.browserLaunches == 0)
    }

    @Test("journey-idp-unknown: --idp with a name the step does not list is refused in one line listing the names it does")
    func unknown() throws {
        let pair = try SocialPair()
        let run = pair.sandbox.run(pair.login("Social", ["--idp", "github"]))
        expectOneLineError(
            run, status: 2, rule: "journey-idp-unknown", contains: ["github", "corp, google, localAuthentication"], secrets: [])
        #expect(pair.sandbox.browserLaunches == 0)
        let noTerminal = pair.sandbox.run(pair.login("Social"))
        expectOneLineError(noTerminal, status: 4, rule: "journey-no-answer", contains: ["--idp NAME"], secrets: [])
    }

    @Test(
        "journey-idp-kubectl: after a logout, kubectl on a terminal signs in again through the saved journey and --idp: the browser round trip, no question",
        .enabled(if: DebianTools.kubectl != nil && KubectlSignInTests.hasScript, "Debian's kubectl or script is missing: run make deps"))
    func kubectl() throws {
        let kubectl = try #require(DebianTools.kubectl)
        let pair = try SocialPair()
        #expect(pair.sandbox.run(pair.login("Social", ["--idp", "corp"])).status == 0)
        #expect(pair.sandbox.run(["logout"]).status == 0)
        let api = try KubeAPIStandIn(emulator: pair.am, sandbox: pair.sandbox)
        defer { api.stop() }
        let command = api.getPods(kubectl).replacingOccurrences(of: "\"", with: "\\\"")
        let run = runProcess(
            "/bin/sh", ["-c", "script -qec \"\(command)\" /dev/null </dev/null"], environment: pair.sandbox.environment, timeout: 240)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("\"kind\":\"PodList\""), "\(run)")
        #expect(!run.stdout.contains("Choose"), "no menu: the saved --idp picked the provider")
        #expect(pair.provider.requests(to: .token).count == 2, "the second sign-in went through the provider too")
        #expect(pair.sandbox.browserLaunches == 2)
    }
}

enum SocialPairScripts {
    /// A browser at a provider that refuses: it sends the browser back with `error` and AM's `state`.
    static func refusing(_ pair: SocialPair) -> String {
        pair.browser(
            """
            state=$(printf '%s' "$1" | sed -n 's/.*[?&]state=\\([^&]*\\).*/\\1/p')
            curl -s -o /dev/null "http://127.0.0.1:\(pair.port)/callback?error=access_denied&error_description=The%20user%20cancelled&state=$state"
            exit 0
            """)
    }
}
