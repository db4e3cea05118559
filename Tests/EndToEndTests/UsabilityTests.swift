import Foundation
import PingEmulator
import Testing

/// Issue 23's smaller findings, each through the built binary.
@Suite("usability: recovery hints, typos, --, network errors naming the endpoint")
struct UsabilityTests {
    @Test(
        "recovery-hint: after logout, token and userinfo name login --profile NAME alone, and it signs in again with the profile's scopes and max-age"
    )
    func recoveryHintAfterLogout() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let scope = "openid profile email phone"
        #expect(sandbox.login(emulator, ["--profile", "k8s", "--scope", scope, "--max-age", "3600"]).status == 0)
        #expect(sandbox.run(["logout", "--profile", "k8s"]).status == 0)
        for command in [["token", "--raw"], ["userinfo"]] {
            let run = sandbox.run(command + ["--profile", "k8s"])
            #expect(run.status == 4, "\(run)")
            #expect(run.rule == "not-logged-in", "\(run)")
            #expect(run.stderr == "pingcli: not logged in for profile \"k8s\": run pingcli login --profile k8s\n", "\(run)")
        }
        // The hint works as given on a terminal: login confirms the saved issuer (no cache vouches for the
        // settings after a logout, so it asks) and signs the profile in again.
        let answer = sandbox.root + "/answer"
        _ = FileManager.default.createFile(atPath: answer, contents: Data("y\n".utf8))
        let input = open(answer, O_RDONLY | O_CLOEXEC)
        defer { close(input) }
        var environment = sandbox.environment
        environment["PINGCLI"] = Locations.pingcli
        let again = runProcess(
            "/usr/bin/script", ["-qec", "\"$PINGCLI\" login --profile k8s --timeout 30", "/dev/null"], environment: environment,
            timeout: 90, stdin: input)
        #expect(again.stdout.contains("Logged in to"), "\(again)")
        #expect(sandbox.run(["token", "--raw", "--profile", "k8s"]).status == 0)
        let asked = emulator.authorizationRequestParameters
        #expect(asked.count == 2 && asked.last?["scope"] == scope && asked.last?["max_age"] == "3600", "\(asked)")
        // An empty --max-age forgets the saved one; the scopes stay.
        #expect(sandbox.login(emulator, ["--profile", "k8s", "--max-age", ""]).status == 0)
        let third = emulator.authorizationRequestParameters.last
        #expect(third?["scope"] == scope && third?["max_age"] == nil, "\(String(describing: third))")
        #expect(readText(sandbox.root + "/config/pingcli/profiles/k8s/profile.json")?.contains("max_age") == false)
        // A profile with no saved settings still gets the full form.
        let fresh = sandbox.run(["token", "--raw", "--profile", "other"])
        #expect(fresh.stderr.contains("run pingcli login --profile other --issuer URL --client-id ID"), "\(fresh)")
        #expect(fresh.rule == "not-logged-in", "\(fresh)")
    }

    @Test(
        "did-you-mean: a mistyped command or option names the nearest one, exit 2",
        arguments: [
            (["logn"], "unknown command \"logn\" (did you mean pingcli login?): see pingcli --help"),
            (["help", "stauts"], "no command \"stauts\" (did you mean pingcli status?): see pingcli --help"),
            (
                ["login", "--isuer", "https://x"],
                "unknown option --isuer for pingcli login (did you mean --issuer?): see pingcli login --help"
            ),
            (["token", "--rwa"], "unknown option --rwa for pingcli token (did you mean --raw?): see pingcli token --help"),
            (["token", "--frobnicate"], "unknown option --frobnicate for pingcli token: see pingcli token --help"),
            (["dpop-prof"], "unknown command \"dpop-prof\" (did you mean pingcli dpop-proof?): see pingcli --help"),
            (["kye"], "unknown command \"kye\" (did you mean pingcli key?): see pingcli --help"),
            (
                ["api", "--metod", "GET", "/x"],
                "unknown option --metod for pingcli api (did you mean --method?): see pingcli api --help"
            ),
            (
                ["login", "--dpopp", "--issuer", "https://x"],
                "unknown option --dpopp for pingcli login (did you mean --dpop?): see pingcli login --help"
            ),
        ])
    func didYouMean(arguments: [String], message: String) {
        let run = Sandbox().run(arguments)
        #expect(run.status == 2, "\(run)")
        #expect(run.rule == (message.hasPrefix("unknown option") ? "option-unknown" : "command-unknown"), "\(run)")
        #expect(run.stderr == "pingcli: \(message)\n", "\(run)")
    }

    @Test("unknown-profile: --profile wrok lists the known profiles and the nearest one, exit 4, nothing created")
    func unknownProfile() throws {
        let (emulator, sandbox) = try loggedIn(profile: "work")
        #expect(sandbox.login(emulator, ["--profile", "k8s"]).status == 0)
        for command in [["token", "--raw"], ["userinfo"], ["status"]] {
            let run = sandbox.run(command + ["--profile", "wrok"])
            #expect(run.status == 4, "\(run)")
            #expect(run.rule == (command[0] == "status" ? "status-problem" : "not-logged-in"), "\(command): \(run)")
            #expect(
                run.stderr.contains(
                    ": no such profile (did you mean \"work\"? known profiles: k8s, work): run pingcli login --profile wrok --issuer URL --client-id ID"
                ), "\(run)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/config/pingcli/profiles/wrok"))
    }

    @Test("double-dash: `token -- --raw` prints the token as `token --raw` does; a second -- is a usage error")
    func doubleDash() throws {
        let (emulator, sandbox, run) = try loggedIn(running: ["token", "--", "--raw"])
        #expect(run.stdout == emulator.newestTokenLine)
        #expect(sandbox.run(["--profile", "default", "status", "--", "--json"]).stdout.contains("\"logged_in\""))
        let twice = sandbox.run(["token", "--", "--", "--raw"])
        #expect(twice.rule == "option-repeated", "\(twice)")
        #expect(twice.status == 2 && twice.stderr.contains("-- was given twice"), "\(twice)")
    }

    @Test("client-secret-refused: --client-secret VALUE is refused, pointing at --client-secret-file and PINGCLI_CLIENT_SECRET")
    func clientSecretRefused() {
        for arguments in [["--client-secret", "abc"], ["--client-secret=abc"]] {
            let run = Sandbox().run(["login", "--issuer", "https://idp.example.com/as", "--client-id", "x"] + arguments)
            #expect(run.status == 2, "\(run)")
            #expect(run.stderr.contains("give --client-secret-file PATH (mode 0600) or set PINGCLI_CLIENT_SECRET"), "\(run)")
            #expect(run.rule == "secret-on-command-line", "\(run)")
            #expect(!run.stderr.contains("abc"), "the value is never echoed")
        }
    }

    @Test("network-error-endpoint: unreachable discovery, userinfo, token, API and revocation endpoints are named with their host")
    func networkErrorsNameEndpoint() throws {
        let (emulator, sandbox) = try loggedIn()
        let host = "127.0.0.1:\(emulator.port)"
        emulator.stop()
        let userinfo = sandbox.run(["userinfo"])
        #expect(userinfo.status == 3, "\(userinfo)")
        #expect(userinfo.rule == "server-unreachable", "\(userinfo)")
        #expect(
            userinfo.stderr.contains("userinfo failed: could not reach the userinfo endpoint at \(host): Couldn't connect to server"),
            "\(userinfo)")
        let refresh = sandbox.run(["token", "--raw", "--min-ttl", "86400"])
        #expect(refresh.stderr.contains("could not reach the token endpoint at \(host): Couldn't connect to server"), "\(refresh)")
        let api = sandbox.run(["api", "http://\(host)/api/resource"])
        #expect(api.status == 3, "\(api)")
        #expect(api.stderr.contains("could not reach the API endpoint at \(host): Couldn't connect to server"), "\(api)")
        #expect(api.rule == "server-unreachable", "\(api)")
        let logout = sandbox.run(["logout", "--revoke"])
        #expect(logout.status == 3, "\(logout)")
        #expect(logout.stderr.contains("could not reach the revocation endpoint at \(host): Couldn't connect to server"), "\(logout)")
        #expect(logout.rule == "server-unreachable", "\(logout)")
        let login = Sandbox().login(emulator)
        #expect(login.status == 3, "\(login)")
        #expect(login.rule == "server-unreachable", "\(login)")
        #expect(
            login.stderr.contains("discovery failed: could not reach the discovery endpoint at \(host): Couldn't connect to server"),
            "\(login)")
    }

    @Test("proxy-blamed: a proxy that answers garbage to CONNECT is blamed on the proxy, exit 3")
    func proxyBlamed() throws {
        let (_, run) = try RecordingProxy.run(["login", "--issuer", "https://idp.example.com/as", "--client-id", "x", "--timeout", "30"])
        #expect(run.status == 3, "\(run)")
        #expect(run.stderr.contains("the proxy could not connect to the discovery endpoint at idp.example.com"), "\(run)")
        #expect(run.rule == "proxy-failed", "\(run)")
        #expect(run.stderr.contains("the proxy is at fault, not the provider"), "\(run)")
    }
}

@Suite("interrupt")
struct InterruptTests {
    @Test("ctrl-c-130: Ctrl-C (SIGINT) during a login ends it with status 130, as docs/exit-codes.md says, and saves nothing")
    func interruptedLoginExits130() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        var environment = sandbox.environment
        environment["PINGCLI_BROWSER"] = Locations.support + "/record-url"
        environment["RECORD_URL_FILE"] = sandbox.root + "/url"
        let output = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(output) }
        // SIGINT at its default action, as in a terminal (a test runner may ignore it).
        let (pid, error) = spawnProcess(
            Locations.pingcli, ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "120"],
            environment: environment, stdout: output, stderr: output, defaultSignals: true)
        try #require(error == 0)
        for _ in 0..<1200 where (readText(sandbox.root + "/url") ?? "").isEmpty { usleep(100_000) }
        kill(pid, SIGINT)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(shellStatus(status) == 130, "status \(status)")
        #expect(readText(sandbox.root + "/url")?.isEmpty == false, "the login was waiting for the browser")
        #expect(!FileManager.default.fileExists(atPath: sandbox.stateDirectory + "/tokens.enc"))
        let docs = URL(fileURLWithPath: Locations.support).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/exit-codes.md").path
        #expect(readText(docs)?.contains("| 130 | interrupted") == true, "exit-codes.md lists 130")
    }
}
