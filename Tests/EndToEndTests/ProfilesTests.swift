import Foundation
import PingEmulator
import Testing

/// `pingcli profiles`, `profiles use`, `profiles remove`, and global options before the command.
@Suite("profiles, end to end")
struct ProfilesTests {
    /// Two profiles, "one" and "two", each signed in to its own emulator.
    func twoProfiles() throws -> (Emulator, Emulator, Sandbox) {
        let one = try startEmulator()
        let two = try startEmulator { $0.layout = .pingFederate }
        let sandbox = Sandbox(stopping: one, two)
        // The revoke scope (a PingOne custom resource's) makes profile one's tokens revocable.
        #expect(sandbox.login(one, ["--profile", "one", "--scope", "openid profile email revoke"]).status == 0)
        #expect(sandbox.login(two, ["--profile", "two"]).status == 0)
        return (one, two, sandbox)
    }

    @Test("profiles-use: the current profile is every command's default; --profile and PINGCLI_PROFILE still win")
    func useSetsTheDefault() throws {
        let (one, two, sandbox) = try twoProfiles()
        #expect(sandbox.run(["token", "--raw"]).status == 4, "no current profile yet: \"default\" is not logged in")
        let use = sandbox.run(["profiles", "use", "two"])
        #expect(use.status == 0 && use.stdout.isEmpty, "\(use)")
        #expect(use.stderr.contains("The current profile is now \"two\"."))
        #expect(readText(sandbox.root + "/config/pingcli/current-profile") == "two\n")
        #expect(sandbox.run(["token", "--raw"]).stdout == two.newestTokenLine)
        #expect(sandbox.run(["status"]).stdout.hasPrefix("profile:       two"))
        #expect(sandbox.run(["token", "--raw", "--profile", "one"]).stdout == one.newestTokenLine)
        #expect(sandbox.run(["token", "--raw"], environment: ["PINGCLI_PROFILE": "one"]).stdout == one.newestTokenLine)
        let list = sandbox.run(["profiles"])
        #expect(
            list.stdout == "  one\t\(one.issuer)\tpingcli-test\tlogged in\n* two\t\(two.issuer)\tpingcli-test\tlogged in\n", "\(list)")
        // A login without --profile signs in to the current profile.
        #expect(sandbox.run(["logout"]).status == 0)
        #expect(sandbox.run(["token", "--raw", "--profile", "two"]).status == 4)
        #expect(sandbox.run(["token", "--raw", "--profile", "one"]).status == 0, "logout touched only the current profile")
    }

    @Test("profiles-use-new: a profile without settings can be chosen before its first login, with a hint")
    func useBeforeLogin() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let use = sandbox.run(["profiles", "use", "fresh"])
        #expect(use.status == 0 && use.stderr.contains("has no settings yet"), "\(use)")
        #expect(sandbox.login(emulator).status == 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.root + "/config/pingcli/profiles/fresh/tokens.enc"))
        #expect(sandbox.run(["profiles"]).stdout.hasPrefix("* fresh\t"))
    }

    @Test("profiles-state: each profile's state in the list and in --json")
    func stateAndJSON() throws {
        let (one, two, sandbox) = try twoProfiles()
        #expect(sandbox.run(["logout", "--profile", "one"]).status == 0)
        #expect(sandbox.run(["profiles", "use", "one"]).status == 0)
        let list = sandbox.run(["profiles"])
        #expect(list.stdout.contains("* one\t\(one.issuer)\tpingcli-test\tnot logged in\n"), "\(list)")
        let json = sandbox.run(["profiles", "--json"])
        #expect(json.status == 0, "\(json)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(array.map { $0["profile"] as? String } == ["one", "two"])
        #expect(array.map { $0["current"] as? Bool } == [true, false])
        #expect(array.map { $0["state"] as? String } == ["not_logged_in", "logged_in"])
        #expect(array.map { $0["logged_in"] as? Bool } == [false, true])
        #expect(array[1]["issuer"] as? String == two.issuer)
        for secret in one.issuedAccessTokens + two.issuedAccessTokens + two.issuedRefreshTokens { #expect(!json.stdout.contains(secret)) }
    }

    @Test("profiles-empty: no profiles lists nothing on stdout, and --json prints []")
    func empty() {
        let sandbox = Sandbox()
        let list = sandbox.run(["profiles"])
        #expect(list.status == 0 && list.stdout.isEmpty && list.stderr.contains("No profiles"), "\(list)")
        #expect(sandbox.run(["profiles", "--json"]).stdout == "[]\n")
    }

    @Test("profiles-remove: tokens, settings and the current choice go; --revoke revokes them first")
    func remove() throws {
        let (one, two, sandbox) = try twoProfiles()
        #expect(sandbox.run(["profiles", "use", "one"]).status == 0)
        let refresh = try #require(one.issuedRefreshTokens.last)
        let removed = sandbox.run(["profiles", "remove", "one", "--revoke"])
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.stderr.contains("Removed profile \"one\""))
        #expect(!one.isActive(token: refresh), "the refresh token was revoked")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/config/pingcli/profiles/one"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/config/pingcli/current-profile"))
        #expect(sandbox.run(["profiles"]).stdout == "  two\t\(two.issuer)\tpingcli-test\tlogged in\n")
        let plain = sandbox.run(["profiles", "remove", "two"])
        #expect(plain.status == 0 && two.requests(to: .revoke).isEmpty, "\(plain)")
        #expect(two.isActive(token: try #require(two.issuedRefreshTokens.last)), "without --revoke nothing is revoked")
        #expect(sandbox.run(["profiles", "--json"]).stdout == "[]\n")
    }

    @Test(
        "profiles-usage: unknown operations, missing names, unknown profiles and options that do not apply",
        arguments: [
            (["profiles", "remove", "nobody"], "no profile \"nobody\"", "profile-unknown"),
            (["profiles", "use"], "needs one profile name", "command-operand"),
            (["profiles", "use", "a", "b"], "needs one profile name", "command-operand"),
            (["profiles", "use", "../x"], "profile", "profile-name-gate"),
            (["profiles", "rename", "x"], "unknown profiles operation \"rename\"", "command-operand"),
            (["profiles", "use", "x", "--json"], "--json does not apply to pingcli profiles use", "command-operand"),
            (["profiles", "list", "--revoke"], "--revoke does not apply to pingcli profiles list", "command-operand"),
        ])
    func usage(arguments: [String], message: String, rule: String) {
        let run = Sandbox().run(arguments)
        #expect(run.status == 2, "\(run)")
        #expect(run.rule == rule, "\(run)")
        #expect(run.stderr.hasPrefix("pingcli: ") && run.stderr.contains(message), "\(run)")
    }

    @Test("global-options: --profile and --verbose may come before the command")
    func globalOptions() throws {
        let (one, _, sandbox) = try twoProfiles()
        let status = sandbox.run(["--profile", "two", "status"])
        #expect(status.status == 0 && status.stdout.hasPrefix("profile:       two"), "\(status)")
        #expect(sandbox.run(["--profile=one", "--verbose", "token", "--raw"]).stdout == one.newestTokenLine)
        let misplaced = sandbox.run(["--json", "status"])
        #expect(misplaced.rule == "argument-unexpected", "\(misplaced)")
        #expect(misplaced.status == 2 && misplaced.stderr.contains("--json cannot come before the command"), "\(misplaced)")
        let twice = sandbox.run(["--profile", "one", "token", "--profile", "two"])
        #expect(twice.rule == "option-repeated", "\(twice)")
        #expect(twice.status == 2 && twice.stderr.contains("--profile was given twice"), "\(twice)")
    }

    @Test("current-profile-gate: a current-profile file without a valid name is refused with the fix")
    func currentProfileGate() throws {
        let (emulator, sandbox) = try loggedIn()
        let path = sandbox.root + "/config/pingcli/current-profile"
        try "../../etc\n".write(toFile: path, atomically: true, encoding: .utf8)
        let run = sandbox.run(["token", "--raw"])
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.contains("\(path) does not hold a profile name: run pingcli profiles use NAME"), "\(run)")
        #expect(run.rule == "current-profile-damaged", "\(run)")
        #expect(sandbox.run(["profiles", "use", "default"]).status == 0, "profiles use repairs it")
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
    }
}
