import Foundation
import PingEmulator
import Testing

/// docs/usage.md's "Status and profiles", "Signing out", "git" and "Shell completion and the manual"
/// examples, run as written.
@Suite("docs examples: sessions, git, completion")
struct DocsSessionExamples {
    static let status = "pingcli status # the current profile"
    static let statusAll = "pingcli status --all --json # every profile, for programs ([] when there is none)"
    static let profiles = #"pingcli profiles # "*" on the current one, name, issuer, client id, state; tab-separated"#
    static let profilesJSON = #"pingcli profiles --json # the same as JSON: status --all --json's fields plus "current" (docs/json.md)"#
    static let use = #"pingcli profiles use work # make "work" the current profile"#
    static let remove = "pingcli profiles remove old # delete a profile's tokens and settings (--revoke them at the server first)"
    static let globalProfile = "pingcli --profile work status # --profile and --verbose may come before the command too"
    static let logout = "pingcli logout # remove the cached tokens (keeps the profile's settings; login asks before reusing them)"
    static let logoutRevoke = "pingcli logout --revoke # ... and revoke them at the server (RFC 7009)"
    static let endSession = "pingcli logout --end-session # ... and end the provider's browser session"
    static let logoutAll = "pingcli logout --all --revoke # every profile"
    static let logoutJSON = "pingcli logout --revoke --json # what was removed and revoked, as JSON on stdout"
    static let endSessionPort = "pingcli logout --end-session --port 8765 # the sign-off URL on another port, this once"
    static let logoutPort = "pingcli login --logout-port 8765 # ... or saved in the profile for every logout"
    static let gitConfigure =
        "pingcli git-credential --profile work configure git.example.com # or: pingcli login --git-host git.example.com"
    static let gitConfig = "git config --global credential.https://git.example.com.helper '!pingcli git-credential --profile work'"

    @Test(
        "docs-usage-profiles: status, status --all --json, profiles (\"*\" on the current one), profiles --json, use, remove, --profile first"
    )
    func statusAndProfiles() throws {
        let (emulator, sandbox) = try loggedIn()
        for name in ["work", "old"] { #expect(sandbox.login(emulator, ["--profile", name]).status == 0) }
        let shell = DocsShell(sandbox, emulator: emulator)
        #expect(try shell.succeeds(Self.status).stdout.hasPrefix("profile:       default\n"))
        let all = try shell.succeeds(Self.statusAll)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]])
        #expect(array.map { $0["profile"] as? String } == ["default", "old", "work"], "\(all)")
        try shell.succeeds(Self.use)
        let list = try shell.succeeds(Self.profiles)
        #expect(list.stdout.contains("* work\t\(emulator.issuer)\tpingcli-test\tlogged in\n"), "\(list)")
        #expect(list.stdout.contains("  default\t\(emulator.issuer)\tpingcli-test\tlogged in\n"), "\(list)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(shell.succeeds(Self.profilesJSON).stdout.utf8)) as? [[String: Any]])
        #expect(json.map { $0["current"] as? Bool } == [false, false, true] && json.allSatisfy { $0["state"] as? String == "logged_in" })
        try shell.succeeds(Self.remove)
        #expect(!sandbox.run(["profiles"]).stdout.contains("old\t"))
        #expect(try shell.succeeds(Self.globalProfile).stdout.hasPrefix("profile:       work\n"))
    }

    @Test("docs-usage-logout: each logout example removes (and revokes, ends the session, on the port given) as its comment says")
    func logoutExamples() throws {
        let (savedPort, oncePort) = (TLSFront.freePort(), TLSFront.freePort())
        let emulator = try startEmulator {
            $0.clients = [
                RegisteredClient(
                    clientID: "pingcli-test",
                    postLogoutRedirectURIs: ["http://127.0.0.1:\(savedPort)/logout", "http://127.0.0.1:\(oncePort)/logout"])
            ]
        }
        defer { emulator.stop() }
        let sandbox = Sandbox()
        var shell = DocsShell(sandbox, emulator: emulator)
        shell.substitutions.append(("8765", "\(oncePort)"))
        func signIn(_ profile: String = "default") {
            // The revoke scope: PingOne revokes only tokens for a custom resource (docs/ping-setup.md).
            let run = sandbox.login(
                emulator, ["--profile", profile, "--logout-port", "\(savedPort)", "--scope", "openid profile email revoke"])
            #expect(run.status == 0, "\(run)")
        }
        signIn()
        #expect(try shell.succeeds(Self.logout).stderr.contains("Removed the cached tokens of profile \"default\""))
        #expect(sandbox.run(["token", "--raw"]).status == 4)
        #expect(emulator.requests(to: .revoke).isEmpty)

        signIn()
        let revoked = try shell.succeeds(Self.logoutRevoke)
        #expect(revoked.stderr.contains("Revoked the refresh token and the access token"), "\(revoked)")

        signIn()
        try shell.succeeds(Self.endSession)
        #expect(emulator.endedSessions.count == 1)
        #expect(emulator.requests(to: .endSession).last?.query["post_logout_redirect_uri"] == "http://127.0.0.1:\(savedPort)/logout")

        signIn()
        signIn("work")
        let before = emulator.requests(to: .revoke).count
        try shell.succeeds(Self.logoutAll)
        #expect(emulator.requests(to: .revoke).count == before + 4, "both tokens of both profiles")
        #expect(sandbox.run(["status", "--all"]).status == 4)

        signIn()
        let json = try shell.succeeds(Self.logoutJSON)
        #expect(json.stdout.contains("\"revoked\"") && json.stdout.contains("\"refresh_token\": true"), "\(json)")

        signIn()
        try shell.succeeds(Self.endSessionPort)
        #expect(emulator.requests(to: .endSession).last?.query["post_logout_redirect_uri"] == "http://127.0.0.1:\(oncePort)/logout")

        signIn()
        try shell.succeeds(Self.logoutPort)
        #expect((readText(sandbox.profileDirectory + "/profile.json") ?? "").contains("\"logout_port\" : \(oncePort)"))
    }

    @Test("docs-usage-git: the configure and git config lines make real git get the token from pingcli for git.example.com only")
    func gitExample() throws {
        let (emulator, sandbox) = try loggedIn(profile: "work")
        let shell = DocsShell(sandbox, emulator: emulator)
        try shell.succeeds(Self.gitConfigure)
        try shell.succeeds(Self.gitConfig)
        let fill = try shell.succeeds(
            Self.gitConfig,
            then: "printf 'protocol=https\\nhost=git.example.com\\n\\n' | GIT_TERMINAL_PROMPT=0 git credential fill")
        #expect(fill.stdout.contains("password=\(emulator.newestTokenLine)"), "\(fill)")
        let other = try shell.run(
            Self.gitConfig, then: "printf 'protocol=https\\nhost=other.example.com\\n\\n' | GIT_TERMINAL_PROMPT=0 git credential fill")
        #expect(other.status != 0 && !other.stdout.contains("password="), "another host gets nothing: \(other)")
    }
}
