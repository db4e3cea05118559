import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The front in its installed layout: what it does without the full binary, through a symbolic link, on
/// a terminal, around a refresh, and the path `setup` gives the tools (the front's, not libexec's).
@Suite("the front: its layout")
struct FrontLayoutTests {
    /// A sandbox with the template's two signed-in profiles, and its layout.
    func signedIn(full: FrontLayout.Full = .script) throws -> (FrontTemplate, Sandbox, FrontLayout) {
        let template = try FrontTemplate.shared.get()
        let sandbox = Sandbox()
        let layout = try FrontLayout(full: full)
        try template.files.restore(into: sandbox.root)
        return (template, sandbox, layout)
    }

    @Test(
        "front-without-full-binary: with libexec/pingcli/pingcli missing, a command the front hands on fails in one line naming the path (exit 1, nothing on stdout); a cache hit is still printed, by the front alone"
    )
    func withoutFullBinary() throws {
        let (template, sandbox, layout) = try signedIn(full: .missing)
        let run = runProcess(layout.front, ["--version"], environment: sandbox.environment, timeout: 60)
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run)")
        #expect(
            run.stderr.hasPrefix(
                "pingcli: cannot run the full pingcli at \(layout.root)/bin/../libexec/pingcli/pingcli (No such file or directory): "
                    + "reinstall pingcli"),
            "\(run)")
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.hasSuffix("\n"), "\(run)")
        let hit = runProcess(layout.front, ["token", "--raw"], environment: sandbox.environment, timeout: 60)
        #expect(hit.status == 0 && hit.stdout == template.tokenLines["default"] && hit.stderr.isEmpty, "\(hit)")
    }

    @Test("front-symbolic-link: the front run through a symbolic link finds the full binary beside its real path")
    func throughSymbolicLink() throws {
        let (_, sandbox, layout) = try signedIn()
        let link = sandbox.root + "/link/pingcli"
        try FileManager.default.createDirectory(atPath: sandbox.root + "/link", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: layout.front)
        let run = runProcess(link, ["--version"], environment: sandbox.environment, timeout: 60)
        #expect(run.status == 0 && run.stdout == "pingcli \(PingCLIVersionForTests.current)\n", "\(run)")
        #expect(layout.fellThrough == 1)
    }

    @Test(
        "front-terminal: a bare token with stdout a terminal is the full binary's (its summary, not the raw token); token --raw there is the front's",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script is missing: run make deps"))
    func bareTokenOnTerminal() throws {
        let (template, sandbox, layout) = try signedIn()
        let run = runProcess(
            "/usr/bin/script", ["-qec", "'\(layout.front)' token", "/dev/null"], environment: sandbox.environment, timeout: 60)
        let raw = try #require(template.tokenLines["default"])
        #expect(run.status == 0 && !run.stdout.isEmpty && !run.stdout.hasPrefix(raw.dropLast()), "\(run)")
        #expect(layout.fellThrough == 1, "\(run)")
        // --raw on a terminal is the front's: the full binary probes no terminal for it either.
        let rawRun = runProcess(
            "/usr/bin/script", ["-qec", "'\(layout.front)' token --raw", "/dev/null"], environment: sandbox.environment, timeout: 60)
        #expect(rawRun.status == 0 && rawRun.stdout == raw.dropLast() + "\r\n", "\(rawRun)")
        #expect(layout.fellThrough == 1, "the front answered: \(rawRun)")
    }

    @Test(
        "front-refresh: a token expiring within 30 s is refreshed by the full binary (the front hands it on); the refresh writes a summary, so the next token --raw is the front's, with the new token"
    )
    func refreshThenAnswered() throws {
        let (emulator, sandbox, first) = try expiringSession()
        let layout = try FrontLayout()
        let refreshed = runProcess(layout.front, ["token", "--raw"], environment: sandbox.environment, timeout: 60)
        #expect(refreshed.status == 0 && refreshed.stderr.isEmpty, "\(refreshed)")
        #expect(refreshed.stdout == emulator.newestTokenLine && refreshed.stdout != first, "\(refreshed)")
        #expect(emulator.requests(to: .token).filter { $0.form["grant_type"] == "refresh_token" }.count == 1)
        #expect(layout.fellThrough == 1)
        let next = runProcess(layout.front, ["token", "--raw"], environment: sandbox.environment, timeout: 60)
        #expect(next.status == 0 && next.stdout == refreshed.stdout && next.stderr.isEmpty, "\(next)")
        #expect(layout.fellThrough == 1, "the front answered")
        let (viaFront, _) = try expectSameRuns(["token", "--raw"], environment: sandbox.environment, layout: layout, sandbox: sandbox)
        #expect(viaFront.stdout == refreshed.stdout)
        #expect(layout.fellThrough == 1, "the front answered")
        #expect(emulator.requests(to: .token).filter { $0.form["grant_type"] == "refresh_token" }.count == 1)
    }

    @Test(
        "front-setup-path: setup git run through the front names the front (PREFIX/bin/pingcli) as git's helper, not libexec's full binary; without the front, the full binary names itself"
    )
    func setupNamesTheFront() throws {
        let (_, sandbox, layout) = try signedIn(full: .hardLink)
        // The line that adds the helper, quoted for the shell as setup-git's own test reads it.
        func helper(_ path: String) -> String {
            "helper '" + "!'\(path)' git-credential --profile default".replacingOccurrences(of: "'", with: "'\\''") + "'\n"
        }
        let arguments = ["setup", "git", "git.example.com", "--dry-run"]
        for program in [layout.front, layout.full] {
            let run = runProcess(program, arguments, environment: sandbox.environment, timeout: 60)
            #expect(run.status == 0 && run.stdout.contains(helper(layout.front)), "\(program): \(run)")
        }
        let direct = runProcess(Locations.pingcli, arguments, environment: sandbox.environment, timeout: 60)
        #expect(direct.status == 0 && direct.stdout.contains(helper(Locations.pingcli)), "\(direct)")
        try FileManager.default.removeItem(atPath: layout.front)
        let alone = runProcess(layout.full, arguments, environment: sandbox.environment, timeout: 60)
        #expect(alone.status == 0 && alone.stdout.contains(helper(layout.full)), "\(alone)")
    }

    @Test(
        "stdout-write-failed: with standard output on /dev/full, token --raw (the front's answer and the full binary's) and --version exit 1 with the same one line; a command that fails keeps its own status"
    )
    func standardOutputFull() throws {
        let (_, sandbox, layout) = try signedIn()
        func full(_ program: String, _ arguments: [String]) -> CLIRun {
            runProcess(
                "/bin/sh", ["-c", #"exec "$0" "$@" >/dev/full"#, program] + arguments, environment: sandbox.environment, timeout: 60)
        }
        let line =
            "pingcli: could not write to standard output (No space left on device): the output is lost; make room or send it elsewhere, then run the command again\n"
        let front = full(layout.front, ["token", "--raw"])
        #expect(front.status == 1 && front.stderr == line, "\(front)")
        #expect(layout.fellThrough == 0, "the front handed the hit on")
        for arguments in [["token", "--raw"], ["--version"], ["status"]] {
            let run = full(Locations.pingcli, arguments)
            #expect(run.status == 1 && run.stderr == line, "\(arguments): \(run)")
        }
        // A command that fails says why and keeps its status; the lost output adds nothing.
        let missing = full(Locations.pingcli, ["token", "--raw", "--profile", "nosuch"])
        #expect(missing.status == 4 && !missing.stderr.contains("standard output"), "\(missing)")
    }
}
