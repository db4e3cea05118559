import Foundation
import PingEmulator
import Testing

/// `pingcli setup git HOST`, with the real git reading what it wrote.
@Suite("setup git, with git")
struct SetupGitTests {
    func git(_ arguments: [String], _ sandbox: Sandbox, input: String? = nil) -> CLIRun {
        var environment = sandbox.environment
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        guard let input else { return runProcess("/usr/bin/git", arguments, environment: environment, timeout: 60) }
        return runProcess(
            "/bin/sh", ["-c", "printf '%s' \"$INPUT\" | /usr/bin/git \"$@\"", "sh"] + arguments,
            environment: environment.merging(["INPUT": input]) { $1 }, timeout: 60)
    }

    @Test(
        "setup-git: setup git HOST adds the host to the profile and writes the URL-scoped helper to git's global config; git credential fill then gets the token; a second run changes nothing; --dry-run prints and writes nothing",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "git is missing"))
    func setupGit() throws {
        let (emulator, sandbox) = try loggedIn()
        let dry = sandbox.run(["setup", "git", "git.example.com", "--dry-run"])
        #expect(dry.status == 0 && dry.stderr.isEmpty, "\(dry)")
        let helper = "!'\(Locations.pingcli)' git-credential --profile default"
        #expect(
            dry.stdout == """
                pingcli git-credential --profile default configure git.example.com
                git config --global --replace-all credential.https://git.example.com.helper ''
                git config --global --add credential.https://git.example.com.helper '\(helper.replacingOccurrences(of: "'", with: "'\\''"))'

                """, "\(dry)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/home/.gitconfig"), "--dry-run wrote nothing")

        let run = sandbox.run(["setup", "git", "git.example.com"])
        #expect(run.status == 0 && run.stdout.isEmpty, "\(run)")
        #expect(
            run.stderr.contains("git now asks pingcli (profile \"default\") for https://git.example.com (global git config)."), "\(run)")
        let again = sandbox.run(["setup", "git", "git.example.com"])
        #expect(again.status == 0 && again.stdout.isEmpty && again.stderr.hasSuffix(": nothing to change.\n"), "\(again)")
        let values = git(["config", "--global", "--get-all", "credential.https://git.example.com.helper"], sandbox)
        #expect(values.stdout == "\n\(helper)\n", "the list reset, then pingcli, once: \(values)")
        #expect(sandbox.run(["status"]).stdout.contains("git hosts:     git.example.com"))
        let fill = git(["credential", "fill"], sandbox, input: "protocol=https\nhost=git.example.com\n\n")
        #expect(fill.status == 0, "\(fill)")
        #expect(fill.stdout.contains("password=\(emulator.issuedAccessTokens.last ?? "-")\n"), "git got the token through the helper")
    }

    @Test("setup-usage: setup without a target, with an unknown one, or without a login says what to do (exit 2, 2, 4)")
    func usage() throws {
        let sandbox = Sandbox()
        let bare = sandbox.run(["setup"])
        #expect(
            bare.status == 2
                && bare.stderr
                    == "pingcli: pingcli setup needs a target: pingcli setup git HOST, pingcli setup kubectl, or pingcli setup aws --role-arn ARN (see pingcli setup --help)\n"
        )
        let other = sandbox.run(["setup", "svn"])
        #expect(other.rule == "command-operand", "\(other)")
        #expect(
            other.status == 2
                && other.stderr == "pingcli: pingcli setup knows git, kubectl and aws, not \"svn\": see pingcli setup --help\n",
            "\(other)")
        let notLoggedIn = sandbox.run(["setup", "git", "git.example.com"])
        #expect(notLoggedIn.rule == "not-logged-in", "\(notLoggedIn)")
        #expect(notLoggedIn.status == 4 && notLoggedIn.stderr.contains("run pingcli login --profile default"), "\(notLoggedIn)")
    }
}
