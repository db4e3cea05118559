import Foundation
import PingEmulator
import Testing

/// userinfo, logout, status and profiles through the built binary.
@Suite("the rest of the lifecycle, end to end")
struct SessionEndToEndTests {
    @Test("userinfo prints the claims as pretty JSON, or compact with --raw", arguments: Layout.allCases)
    func userinfo(layout: Layout) throws {
        let (emulator, sandbox) = try emulatorAndSandbox { $0.layout = layout }
        #expect(sandbox.login(emulator).status == 0)
        let pretty = sandbox.run(["userinfo"])
        #expect(pretty.status == 0, "\(pretty)")
        let claims = try JSONSerialization.jsonObject(with: Data(pretty.stdout.utf8)) as? [String: Any]
        #expect(claims?["email"] as? String == "demo@example.com")
        #expect(pretty.stdout.contains("\n  \"email\""))
        let raw = sandbox.run(["userinfo", "--raw"])
        #expect(raw.stdout.split(separator: "\n").count == 1 && raw.stdout.contains("\"email\":\"demo@example.com\""))
        let request = try #require(emulator.requests(to: .userinfo).last)
        #expect(request.headers["authorization"] == "Bearer " + (emulator.issuedAccessTokens.last ?? "?"))
    }

    @Test("userinfo-401-retry: a rejected access token is refreshed once and the call retried")
    func userinfoRetriesOnce() throws {
        let (emulator, sandbox) = try loggedIn()
        emulator.expireAccessTokens()  // the server no longer accepts it, though pingcli thinks it fresh
        let run = sandbox.run(["userinfo", "--raw"])
        #expect(run.status == 0, "\(run)")
        #expect(emulator.requests(to: .userinfo).map(\.status) == [401, 200])
        #expect(emulator.requests(to: .token).filter { $0.form["grant_type"] == "refresh_token" }.count == 1)
    }

    @Test("userinfo-401-twice: still rejected after the refresh gives exit 4")
    func userinfoGivesUp() throws {
        let (emulator, sandbox) = try loggedIn(
            answering: .userinfo,
            with: CannedResponse(
                status: 401, contentType: "application/json", body: "{}", headers: ["WWW-Authenticate": "Bearer error=\"invalid_token\""]))
        defer { emulator.stop() }
        let run = sandbox.run(["userinfo"])
        #expect(run.status == 4, "\(run)")
        #expect(emulator.requests(to: .userinfo).count == 2)
        #expect(run.rule == "userinfo-401-twice", "\(run)")
    }

    @Test("userinfo-sub-mismatch: claims about another subject are an error, not output")
    func userinfoSubjectMismatch() throws {
        let (emulator, sandbox) = try loggedIn(
            answering: .userinfo,
            with: CannedResponse(
                status: 200, contentType: "application/json", body: "{\"sub\":\"someone-else\",\"email\":\"x@example.com\"}"))
        defer { emulator.stop() }
        let run = sandbox.run(["userinfo"])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.rule == "userinfo-sub-mismatch", "\(run)")
    }

    @Test("status reports the session without any token, --json for programs, exit 4 when logged out")
    func status() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let before = sandbox.run(["status"])
        #expect(before.status == 4)
        #expect(sandbox.login(emulator).status == 0)
        let text = sandbox.run(["status"])
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.contains("issuer:        \(emulator.issuer)"))
        #expect(text.stdout.contains("client id:     pingcli-test"))
        #expect(text.stdout.contains("(Demo User)"))
        #expect(text.stdout.contains("refresh token: held"))
        let json = sandbox.run(["status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["logged_in"] as? Bool == true)
        #expect(object?["refresh_token"] as? Bool == true)
        #expect(object?["client_id"] as? String == "pingcli-test")
        for secret in emulator.issuedAccessTokens + emulator.issuedRefreshTokens {
            #expect(!text.stdout.contains(secret) && !json.stdout.contains(secret))
        }
        #expect(sandbox.run(["logout"]).status == 0)
        #expect(sandbox.run(["status", "--json"]).status == 4)
    }

    @Test("two profiles against two issuers stay independent")
    func twoProfiles() throws {
        let pingOne = try startEmulator()
        let pingFederate = try startEmulator { $0.layout = .pingFederate }
        defer {
            pingOne.stop()
            pingFederate.stop()
        }
        let sandbox = Sandbox()
        // The revoke scope puts a custom resource in aud, so PingOne revokes profile one's tokens below.
        #expect(sandbox.login(pingOne, ["--profile", "one", "--scope", "openid profile email revoke"]).status == 0)
        #expect(sandbox.login(pingFederate, ["--profile", "two"]).status == 0)
        #expect(sandbox.run(["token", "--raw", "--profile", "one"]).stdout == pingOne.newestTokenLine)
        #expect(sandbox.run(["token", "--raw", "--profile", "two"]).stdout == pingFederate.newestTokenLine)
        let profiles = sandbox.run(["profiles"])
        #expect(
            profiles.stdout == "  one\t\(pingOne.issuer)\tpingcli-test\tlogged in\n  two\t\(pingFederate.issuer)\tpingcli-test\tlogged in\n"
        )
        #expect(sandbox.run(["logout", "--revoke", "--profile", "one"]).status == 0)
        #expect(sandbox.run(["token", "--raw", "--profile", "one"]).status == 4)
        #expect(sandbox.run(["token", "--raw", "--profile", "two"]).status == 0)
        #expect(pingFederate.requests(to: .revoke).isEmpty)
        let all = sandbox.run(["status", "--all", "--json"])
        #expect(all.status == 4, "profile one is logged out")
        #expect(sandbox.run(["logout", "--all"]).status == 0)
        #expect(sandbox.run(["token", "--raw", "--profile", "two"]).status == 4)
    }

    @Test("a new issuer on an existing profile replaces its tokens with --force (issuer-switch-e2e has the rest)")
    func reloginElsewhere() throws {
        let (_, second, sandbox) = try signedInBeforeSwitch()
        #expect(sandbox.login(second, ["--force"]).status == 0)
        #expect(sandbox.run(["token", "--raw"]).stdout == second.newestTokenLine)
        #expect(sandbox.run(["status"]).stdout.contains(second.issuer))
    }

    @Test(
        "every command has --help, and --version answers",
        arguments: ["login", "token", "userinfo", "status", "logout", "profiles", "git-credential", "completion"])
    func help(command: String) {
        let run = Sandbox().run([command, "--help"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("Usage: pingcli \(command)"))
        #expect(Sandbox().run(["--version"]).stdout.hasPrefix("pingcli "))
    }

    @Test("logout-empty: logout --all --revoke on a profile without tokens says only that nothing was cached")
    func logoutEmptyProfile() throws {
        let (emulator, sandbox) = try loggedIn()
        #expect(sandbox.run(["logout"]).stderr.contains("Removed the cached tokens of profile \"default\"."))
        let run = sandbox.run(["logout", "--all", "--revoke"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr == "No tokens were cached for profile \"default\": nothing to remove or revoke.\n", "\(run)")
        #expect(emulator.requests(to: .revoke).isEmpty)
    }

    @Test("status-all-json-empty: status --all --json without profiles prints [] and exits 4")
    func statusAllJSONEmpty() {
        let run = Sandbox().run(["status", "--all", "--json"])
        #expect(run.stdout == "[]\n", "\(run)")
        #expect(run.rule == "not-logged-in", "\(run)")
        #expect(run.status == 4 && run.stderr == "pingcli: no profiles: run pingcli login --issuer URL --client-id ID\n", "\(run)")
        let text = Sandbox().run(["status", "--all"])
        #expect(text.stdout.isEmpty && text.status == 4, "\(text)")
    }

    @Test("key-command-status: a failing key command gives the same exit status (1) from status as from token")
    func keyCommandExitStatus() throws {
        let (_, sandbox) = try loggedIn()
        let failing = ["PINGCLI_KEY_COMMAND": "exit 3"]
        let token = sandbox.run(["token", "--raw"], environment: failing)
        let status = sandbox.run(["status"], environment: failing)
        #expect(token.status == 1, "\(token)")
        #expect(status.status == 1, "\(status)")
        #expect(status.rule == "status-problem", "\(status)")
        #expect(token.stderr.contains("PINGCLI_KEY_COMMAND") && status.stderr.contains("PINGCLI_KEY_COMMAND"), "\(token)\(status)")
        #expect(token.rule == "key-command-status", "\(token)")
        #expect(sandbox.run(["status", "--all"], environment: failing).status == 1)
        #expect(sandbox.run(["status"]).status == 0, "the key file still works")
    }

    @Test(
        "status-all-summary-fallback: status --all reports a damaged cache from its status summary's fallback, and a tampered summary changes nothing"
    )
    func statusAllSummaryFallback() throws {
        let (emulator, sandbox) = try loggedIn()
        #expect(sandbox.login(emulator, ["--profile", "work"]).status == 0)
        let before = sandbox.run(["status", "--all"])
        #expect(before.status == 0, "\(before)")
        func flipLastByte(_ path: String) throws {
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            bytes[bytes.count - 1] ^= 1
            try bytes.write(to: URL(fileURLWithPath: path))
        }
        // A tampered summary is not trusted: the files are read instead, and say the same.
        try flipLastByte(sandbox.profileDirectory + "/status.enc")
        let tampered = sandbox.run(["status", "--all"])
        // (The lines up to the relative expiry, whose seconds move between two runs.)
        func columns(_ text: String) -> [String] { text.split(separator: "\n").map { String($0.split(separator: "expires")[0]) } }
        #expect(tampered.status == 0 && columns(tampered.stdout) == columns(before.stdout), "\(tampered)\n\(before)")
        // A damaged cache is reported as before, though its summary is intact.
        let work = sandbox.root + "/config/pingcli/profiles/work"
        try flipLastByte(work + "/tokens.enc")
        let damaged = sandbox.run(["status", "--all"])
        #expect(damaged.rule == "status-problem", "\(damaged)")
        #expect(damaged.status == 4 && damaged.stderr == "pingcli: not every profile is logged in\n", "\(damaged)")
        let line = damaged.stdout.split(separator: "\n").first { $0.hasPrefix("  work ") }
        #expect(line?.contains("problem: see pingcli status --profile work") == true, "\(damaged.stdout)")
        #expect(damaged.stdout.contains("\n* default ") && damaged.stdout.contains(" logged in "), "\(damaged.stdout)")
        #expect(sandbox.run(["status", "--profile", "work"]).stdout.contains(work + "/tokens.enc"))
    }

    @Test(
        "status-all-index: status --all and profiles keep a sealed index once the files have settled, print the same from it, and report a cache edited in place after it"
    )
    func statusAllIndex() throws {
        let (emulator, sandbox) = try loggedIn()
        #expect(sandbox.login(emulator, ["--profile", "work"]).status == 0)
        let index = sandbox.root + "/data/pingcli/status-index"
        // Files changed within the last three seconds are not entered: right after a login there is none.
        let fresh = sandbox.run(["status", "--all"])
        #expect(fresh.status == 0 && !FileManager.default.fileExists(atPath: index), "\(fresh)")
        Thread.sleep(forTimeInterval: 3.2)
        let first = sandbox.run(["status", "--all"])
        #expect(first.status == 0 && FileManager.default.fileExists(atPath: index), "\(first)")
        let attributes = try FileManager.default.attributesOfItem(atPath: index)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let again = sandbox.run(["status", "--all"])
        let profiles = sandbox.run(["profiles"])
        func columns(_ text: String) -> [String] { text.split(separator: "\n").map { String($0.split(separator: "expires")[0]) } }
        #expect(again.status == 0 && columns(again.stdout) == columns(first.stdout) && columns(fresh.stdout) == columns(first.stdout))
        #expect(profiles.status == 0 && profiles.stdout.contains("* default") && profiles.stdout.contains("  work"), "\(profiles)")
        // An edit in place of the cache (same inode and size) after the index was written: reported.
        let tokens = sandbox.root + "/config/pingcli/profiles/work/tokens.enc"
        let handle = try #require(FileHandle(forUpdatingAtPath: tokens))
        try handle.seek(toOffset: 40)
        let byte = try #require(try handle.read(upToCount: 1)).first ?? 0
        try handle.seek(toOffset: 40)
        try handle.write(contentsOf: [byte ^ 1])
        try handle.close()
        let damaged = sandbox.run(["status", "--all"])
        #expect(damaged.rule == "status-problem", "\(damaged)")
        #expect(damaged.status == 4 && damaged.stderr == "pingcli: not every profile is logged in\n", "\(damaged)")
        let line = damaged.stdout.split(separator: "\n").first { $0.hasPrefix("  work ") }
        #expect(line?.contains("problem: see pingcli status --profile work") == true, "\(damaged.stdout)")
        #expect(sandbox.run(["profiles"]).stdout.contains("problem: see pingcli status --profile work"))
        // A directory without settings is not a profile, with or without the index.
        try FileManager.default.createDirectory(atPath: sandbox.root + "/config/pingcli/profiles/empty", withIntermediateDirectories: false)
        let listed = sandbox.run(["status", "--all"])
        #expect(!listed.stdout.contains("empty") && !sandbox.run(["profiles"]).stdout.contains("empty"), "\(listed)")
    }
}
