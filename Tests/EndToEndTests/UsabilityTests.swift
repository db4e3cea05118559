import Foundation
import PingEmulator
import Testing

/// Issue 23's smaller findings, each through the built binary.
@Suite("usability: recovery hints, typos, --, network errors naming the endpoint")
struct UsabilityTests {
    @Test("recovery-hint: after logout, token and userinfo name login --profile NAME alone (the settings are kept)")
    func recoveryHintAfterLogout() throws {
        let (emulator, sandbox) = try loggedIn(profile: "k8s")
        defer { emulator.stop() }
        #expect(sandbox.run(["logout", "--profile", "k8s"]).status == 0)
        for command in [["token", "--raw"], ["userinfo"]] {
            let run = sandbox.run(command + ["--profile", "k8s"])
            #expect(run.status == 4, "\(run)")
            #expect(run.stderr == "pingcli: not logged in for profile \"k8s\": run pingcli login --profile k8s\n", "\(run)")
        }
        // The hint works as given: the saved settings sign the profile in again.
        #expect(sandbox.run(["login", "--profile", "k8s", "--timeout", "30"]).status == 0)
        #expect(sandbox.run(["token", "--raw", "--profile", "k8s"]).status == 0)
        // A profile with no saved settings still gets the full form.
        let fresh = sandbox.run(["token", "--raw", "--profile", "other"])
        #expect(fresh.stderr.contains("run pingcli login --profile other --issuer URL --client-id ID"), "\(fresh)")
    }

    @Test(
        "did-you-mean: a mistyped command or option names the nearest one, exit 2",
        arguments: [
            (["logn"], "unknown command \"logn\" (did you mean pingcli login?): see pingcli --help"),
            (["help", "stauts"], "no command \"stauts\" (did you mean pingcli status?): see pingcli --help"),
            (["login", "--isuer", "https://x"], "unknown option --isuer for pingcli login (did you mean --issuer?): see pingcli login --help"),
            (["token", "--rwa"], "unknown option --rwa for pingcli token (did you mean --raw?): see pingcli token --help"),
            (["token", "--frobnicate"], "unknown option --frobnicate for pingcli token: see pingcli token --help"),
        ])
    func didYouMean(arguments: [String], message: String) {
        let run = Sandbox().run(arguments)
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr == "pingcli: \(message)\n", "\(run)")
    }

    @Test("unknown-profile: --profile wrok lists the known profiles and the nearest one, exit 4, nothing created")
    func unknownProfile() throws {
        let (emulator, sandbox) = try loggedIn(profile: "work")
        defer { emulator.stop() }
        #expect(sandbox.login(emulator, ["--profile", "k8s"]).status == 0)
        for command in [["token", "--raw"], ["userinfo"], ["status"]] {
            let run = sandbox.run(command + ["--profile", "wrok"])
            #expect(run.status == 4, "\(run)")
            #expect(
                run.stderr.contains(
                    ": no such profile (did you mean \"work\"? known profiles: k8s, work): run pingcli login --profile wrok --issuer URL --client-id ID"
                ), "\(run)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/config/pingcli/profiles/wrok"))
    }

    @Test("double-dash: `token -- --raw` prints the token as `token --raw` does; a second -- is a usage error")
    func doubleDash() throws {
        let (emulator, sandbox) = try loggedIn()
        defer { emulator.stop() }
        let run = sandbox.run(["token", "--", "--raw"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == emulator.newestTokenLine)
        #expect(sandbox.run(["--profile", "default", "status", "--", "--json"]).stdout.contains("\"logged_in\""))
        let twice = sandbox.run(["token", "--", "--", "--raw"])
        #expect(twice.status == 2 && twice.stderr.contains("-- was given twice"), "\(twice)")
    }

    @Test("client-secret-refused: --client-secret VALUE is refused, pointing at --client-secret-file and PINGCLI_CLIENT_SECRET")
    func clientSecretRefused() {
        for arguments in [["--client-secret", "abc"], ["--client-secret=abc"]] {
            let run = Sandbox().run(["login", "--issuer", "https://idp.example.com/as", "--client-id", "x"] + arguments)
            #expect(run.status == 2, "\(run)")
            #expect(run.stderr.contains("give --client-secret-file PATH (mode 0600) or set PINGCLI_CLIENT_SECRET"), "\(run)")
            #expect(!run.stderr.contains("abc"), "the value is never echoed")
        }
    }

    @Test("network-error-endpoint: unreachable discovery, userinfo and revocation endpoints are named with their host")
    func networkErrorsNameEndpoint() throws {
        let (emulator, sandbox) = try loggedIn()
        let host = "127.0.0.1:\(emulator.port)"
        emulator.stop()
        let userinfo = sandbox.run(["userinfo"])
        #expect(userinfo.status == 3, "\(userinfo)")
        #expect(userinfo.stderr.contains("userinfo failed: could not reach the userinfo endpoint at \(host): Couldn't connect to server"), "\(userinfo)")
        let refresh = sandbox.run(["token", "--raw", "--min-ttl", "86400"])
        #expect(refresh.stderr.contains("could not reach the token endpoint at \(host): Couldn't connect to server"), "\(refresh)")
        let logout = sandbox.run(["logout", "--revoke"])
        #expect(logout.status == 3, "\(logout)")
        #expect(logout.stderr.contains("could not reach the revocation endpoint at \(host): Couldn't connect to server"), "\(logout)")
        let login = Sandbox().login(emulator)
        #expect(login.status == 3, "\(login)")
        #expect(login.stderr.contains("discovery failed: could not reach the discovery endpoint at \(host): Couldn't connect to server"), "\(login)")
    }

    @Test("proxy-blamed: a proxy that answers garbage to CONNECT is blamed on the proxy, exit 3")
    func proxyBlamed() throws {
        let proxy = try RecordingProxy()
        defer { proxy.stop() }
        let run = Sandbox().run(
            ["login", "--issuer", "https://idp.example.com/as", "--client-id", "x", "--timeout", "30"], environment: proxy.environment)
        #expect(run.status == 3, "\(run)")
        #expect(run.stderr.contains("the proxy could not connect to the discovery endpoint at idp.example.com"), "\(run)")
        #expect(run.stderr.contains("the proxy is at fault, not the provider"), "\(run)")
    }
}

/// The examples of docs/usage.md, run as written (only the issuer and client id point at the emulator).
@Suite("docs examples")
struct DocsExampleTests {
    /// The lines of the first ```sh block in docs/usage.md from the comment starting `marker` to the block's end.
    static func example(_ marker: String) throws -> String {
        let docs = URL(fileURLWithPath: Locations.support).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/usage.md").path
        let text = try #require(readText(docs))
        let start = try #require(text.range(of: marker))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        return String(text[start.lowerBound..<end.lowerBound])
    }

    @Test("docs-secret-file: usage.md's confidential-client example works as written in a home whose ~/.config is 0755")
    func secretFileExample() throws {
        let emulator = try confidentialEmulator(method: "client_secret_basic")
        defer { emulator.stop() }
        let sandbox = Sandbox()
        try FileManager.default.createDirectory(
            atPath: sandbox.root + "/home/.config", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let script = try Self.example("# 4. A confidential client")
            .replacingOccurrences(of: "https://sso.example.com", with: emulator.issuer)
            .replacingOccurrences(of: "pingcli-confidential", with: "pingcli-test")
        var environment = sandbox.environment
        environment["PATH"] = Locations.binDirectory + ":" + (environment["PATH"] ?? "")
        environment["SECRET"] = confidentialSecret
        let run = runProcess("/bin/bash", ["-euo", "pipefail", "-c", script], environment: environment, timeout: 120)
        #expect(run.status == 0, "\(run)")
        #expect(emulator.requests(to: .token).count == 1, "signed in with the secret from the file")
    }
}

@Suite("interrupt")
struct InterruptTests {
    @Test("ctrl-c-130: Ctrl-C (SIGINT) during a login ends it with status 130, as docs/exit-codes.md says, and saves nothing")
    func interruptedLoginExits130() throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        let sandbox = Sandbox()
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
        #expect(!FileManager.default.fileExists(atPath: sandbox.profileDirectory + "/tokens.enc"))
        let docs = URL(fileURLWithPath: Locations.support).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/exit-codes.md").path
        #expect(readText(docs)?.contains("| 130 | interrupted") == true, "exit-codes.md lists 130")
    }
}

@Suite("status and profiles display")
struct StatusDisplayTests {
    /// pingcli with its stdout on a terminal (util-linux `script` gives it a pty); lines without \r.
    func onTerminal(_ sandbox: Sandbox, _ command: String, environment extra: [String: String] = [:]) -> CLIRun {
        var environment = sandbox.environment.merging(extra) { $1 }
        environment["PINGCLI"] = Locations.pingcli
        let run = runProcess("/usr/bin/script", ["-qec", "\"$PINGCLI\" \(command)", "/dev/null"], environment: environment, timeout: 60)
        return CLIRun(status: run.status, stdout: run.stdout.replacingOccurrences(of: "\r", with: ""), stderr: run.stderr)
    }

    @Test("profiles-terminal: on a terminal, profiles has a header and aligned columns and marks the profile in effect")
    func profilesOnTerminal() throws {
        let (emulator, sandbox) = try loggedIn(profile: "work")
        defer { emulator.stop() }
        #expect(sandbox.login(emulator, ["--profile", "k8s-prod"]).status == 0)
        #expect(sandbox.run(["profiles", "use", "work"]).status == 0)
        let issuer = emulator.issuer
        let pad = String(repeating: " ", count: issuer.count - "ISSUER".count + 2)
        let run = onTerminal(sandbox, "profiles")
        #expect(run.status == 0, "\(run)")
        #expect(
            run.stdout == """
                  PROFILE   ISSUER\(pad)CLIENT ID     STATE
                  k8s-prod  \(issuer)  pingcli-test  logged in
                * work      \(issuer)  pingcli-test  logged in

                """, "\(run)")
        // PINGCLI_PROFILE decides which profile is in effect, so it gets the mark.
        let overridden = onTerminal(sandbox, "profiles", environment: ["PINGCLI_PROFILE": "k8s-prod"])
        #expect(overridden.stdout.contains("* k8s-prod ") && overridden.stdout.contains("\n  work "), "\(overridden)")
        // A pipe still gets the tab-separated lines without a header.
        #expect(sandbox.run(["profiles"]).stdout.hasPrefix("  k8s-prod\t"))
    }

    @Test("status-relative: status shows the access token's expiry relative first, then the instant")
    func statusRelativeExpiry() throws {
        let (emulator, sandbox) = try loggedIn { $0.accessTokenLifetime = 3600 }
        defer { emulator.stop() }
        let run = sandbox.run(["status"])
        #expect(run.status == 0, "\(run)")
        let line = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("access token:") }, "\(run)")
        // 3600 s minus the seconds the run took: "expires in 59m 58s (2026-…Z)" (or 1h 0m on a very fast run).
        #expect(line.contains("expires in 59m ") || line.contains("expires in 1h 0m"), "\(line)")
        #expect(line.hasSuffix("Z)"), "\(line)")
    }
}

/// A proxy on loopback that records the first line of each request (the `CONNECT host:port`) and answers
/// garbage: it shows where pingcli would have gone without anything leaving the machine.
final class RecordingProxy: Sendable {
    private let acceptor: LoopbackAcceptor
    private let lines = Locked<[String]>([])
    var environment: [String: String] { ["HTTPS_PROXY": "http://127.0.0.1:\(acceptor.port)"] }
    var requestLines: [String] { lines.withLock { $0 } }

    init() throws {
        acceptor = try LoopbackAcceptor()
        acceptor.start { [lines] connection in
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(connection, &buffer, buffer.count)
            let head = String(decoding: buffer[..<max(count, 0)], as: UTF8.self)
            lines.withLock { $0.append(String(head.prefix { $0 != "\r\n" && $0 != "\n" })) }  // "\r\n" is one Character
            let garbage = Array("garbage garbage\r\n\r\n".utf8)
            _ = write(connection, garbage, garbage.count)
            close(connection)
        }
    }

    func stop() { acceptor.stop() }
}

@Suite("PingOne shortcut")
struct PingOneShortcutTests {
    static let environmentID = "9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b"

    @Test(
        "pingone-region: --pingone ENV_ID --region builds https://auth.pingone.<tld>/ENV_ID/as, prints it first and asks that host",
        arguments: [
            (nil, "auth.pingone.com"), ("na", "auth.pingone.com"), ("eu", "auth.pingone.eu"), ("ca", "auth.pingone.ca"),
            ("ap", "auth.pingone.asia"), ("au", "auth.pingone.com.au"), ("sg", "auth.pingone.sg"),
        ] as [(String?, String)])
    func region(region: String?, host: String) throws {
        let proxy = try RecordingProxy()
        defer { proxy.stop() }
        let arguments = ["login", "--pingone", Self.environmentID, "--client-id", "x", "--timeout", "5"] + (region.map { ["--region", $0] } ?? [])
        let run = Sandbox().run(arguments, environment: proxy.environment)
        let issuer = "https://\(host)/\(Self.environmentID)/as"
        #expect(run.stderr.hasPrefix("PingOne environment \(Self.environmentID) in region \(region ?? "na"): issuer \(issuer)\n"), "\(run)")
        #expect(proxy.requestLines.first == "CONNECT \(host):443 HTTP/1.1", "\(proxy.requestLines)")
        #expect(run.stderr.contains("the discovery endpoint at \(host)"), "\(run)")
    }

    @Test("pingone-domain: --pingone-domain DOMAIN builds https://DOMAIN/as")
    func customDomain() throws {
        let proxy = try RecordingProxy()
        defer { proxy.stop() }
        let run = Sandbox().run(
            ["login", "--pingone-domain", "SSO.Example.com", "--client-id", "x", "--timeout", "5"], environment: proxy.environment)
        #expect(run.stderr.hasPrefix("PingOne custom domain sso.example.com: issuer https://sso.example.com/as\n"), "\(run)")
        #expect(proxy.requestLines.first == "CONNECT sso.example.com:443 HTTP/1.1", "\(proxy.requestLines)")
    }

    @Test(
        "pingone-usage: conflicts and malformed PingOne coordinates are usage errors before any network",
        arguments: [
            (["--pingone", environmentID, "--issuer", "https://x.example/as"], "--issuer cannot be combined with --pingone"),
            (["--pingone-domain", "a.example", "--issuer", "https://x.example/as"], "--issuer cannot be combined with --pingone-domain"),
            (["--pingone", environmentID, "--pingone-domain", "a.example"], "--pingone and --pingone-domain cannot be combined"),
            (["--region", "eu", "--issuer", "https://x.example/as"], "--region goes with --pingone ENV_ID"),
            (["--pingone-domain", "a.example", "--region", "eu"], "--region goes with --pingone, not --pingone-domain"),
            (["--pingone", "not-a-uuid"], "--pingone needs the environment's id, a UUID"),
            (["--pingone", environmentID + "0"], "--pingone needs the environment's id, a UUID"),
            (["--pingone", environmentID, "--region", "us"], "--region must be one of na, eu, ca, ap, au, sg, not \"us\""),
            (["--pingone-domain", "https://a.example/as"], "--pingone-domain must be a host name"),
            (["--pingone-domain", "a.example:8443"], "--pingone-domain must be a host name"),
            (["--pingone-domain", "localhost"], "--pingone-domain must be a host name"),
        ] as [([String], String)])
    func usage(arguments: [String], message: String) throws {
        let proxy = try RecordingProxy()
        defer { proxy.stop() }
        let run = Sandbox().run(["login", "--client-id", "x"] + arguments, environment: proxy.environment)
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.contains(message), "\(run)")
        #expect(proxy.requestLines.isEmpty, "no network")
    }
}

@Suite("--json on login and logout")
struct LoginLogoutJSONTests {
    func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test("login-json: login --json prints the profile's status as JSON on stdout, never a token; the messages stay on stderr")
    func loginJSON() throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let run = sandbox.login(emulator, ["--json"])
        #expect(run.status == 0, "\(run)")
        let json = try object(run.stdout)
        #expect(json["logged_in"] as? Bool == true && json["issuer"] as? String == emulator.issuer, "\(run)")
        #expect(json["profile"] as? String == "default" && json["refresh_token"] as? Bool == true)
        #expect(run.stderr.contains("Logged in to"))
        for token in emulator.issuedAccessTokens { #expect(!run.stdout.contains(token)) }
    }

    @Test("logout-json: logout --revoke --json says what was removed and which tokens the server revoked")
    func logoutJSON() throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        let sandbox = Sandbox()
        #expect(sandbox.login(emulator, ["--scope", "openid profile email revoke"]).status == 0)
        let run = sandbox.run(["logout", "--revoke", "--json"])
        #expect(run.status == 0, "\(run)")
        let json = try object(run.stdout)
        #expect(json["profile"] as? String == "default" && json["removed"] as? Bool == true, "\(run)")
        #expect(json["revoked"] as? [String: Bool] == ["refresh_token": true, "access_token": true], "\(run)")
        #expect(json["problems"] == nil)
    }

    @Test("logout-json-kept: PingOne's 200 for a token it keeps (no custom resource scope) is reported as not revoked, with the problem")
    func logoutJSONKept() throws {
        let (emulator, sandbox) = try loggedIn()
        defer { emulator.stop() }
        #expect(sandbox.login(emulator, ["--profile", "other", "--scope", "openid profile email revoke"]).status == 0)
        let run = sandbox.run(["logout", "--revoke", "--all", "--json"])
        #expect(run.status == 1, "\(run)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]], "\(run)")
        let byName = Dictionary(uniqueKeysWithValues: list.map { ($0["profile"] as? String ?? "", $0) })
        #expect(byName["default"]?["revoked"] as? [String: Bool] == ["refresh_token": false, "access_token": false], "\(run)")
        #expect((byName["default"]?["problems"] as? [String])?.first?.contains("PingOne did not revoke the tokens") == true, "\(run)")
        #expect(byName["other"]?["revoked"] as? [String: Bool] == ["refresh_token": true, "access_token": true], "\(run)")
    }
}
