import Foundation
import PingEmulator
import Testing

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
        let (_, sandbox) = try loggedIn { $0.accessTokenLifetime = 3600 }
        let run = sandbox.run(["status"])
        #expect(run.status == 0, "\(run)")
        let line = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("access token:") }, "\(run)")
        // 3600 s minus the seconds the run took: "expires in 59m 58s (2026-…Z)" (or 1h 0m on a very fast run).
        #expect(line.contains("expires in 59m ") || line.contains("expires in 1h 0m"), "\(line)")
        #expect(line.hasSuffix("Z)"), "\(line)")
    }
}

@Suite("--json on login and logout")
struct LoginLogoutJSONTests {
    func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test("login-json: login --json prints the profile's status as JSON on stdout, never a token; the messages stay on stderr")
    func loginJSON() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
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
        let (emulator, sandbox) = try emulatorAndSandbox()
        #expect(sandbox.login(emulator, ["--scope", "openid profile email revoke"]).status == 0)
        let run = sandbox.run(["logout", "--revoke", "--json"])
        #expect(run.status == 0, "\(run)")
        let json = try object(run.stdout)
        #expect(json["profile"] as? String == "default" && json["removed"] as? Bool == true, "\(run)")
        let revoked = json["revoked"] as? [String: Any]
        #expect(revoked?["refresh_token"] as? Bool == true && revoked?["access_token"] as? Bool == true, "\(run)")
        #expect((revoked?["targeted_access_tokens"] as? [Any])?.isEmpty == true, "\(run)")
        #expect((json["problems"] as? [String]) == [], "\(run)")
    }

    @Test("logout-json-kept: PingOne's 200 for a token it keeps (no custom resource scope) is reported as not revoked, with the problem")
    func logoutJSONKept() throws {
        let (emulator, sandbox) = try loggedIn()
        #expect(sandbox.login(emulator, ["--profile", "other", "--scope", "openid profile email revoke"]).status == 0)
        let run = sandbox.run(["logout", "--revoke", "--all", "--json"])
        #expect(run.status == 1, "\(run)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]], "\(run)")
        let byName = Dictionary(uniqueKeysWithValues: list.map { ($0["profile"] as? String ?? "", $0) })
        func revoked(_ name: String) -> [Bool?] {
            let object = byName[name]?["revoked"] as? [String: Any]
            return [object?["refresh_token"] as? Bool, object?["access_token"] as? Bool]
        }
        #expect(revoked("default") == [false, false], "\(run)")
        #expect((byName["default"]?["problems"] as? [String])?.first?.contains("PingOne did not revoke the tokens") == true, "\(run)")
        #expect(revoked("other") == [true, true], "\(run)")
    }
}
