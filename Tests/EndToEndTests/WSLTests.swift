import Foundation
import Testing

/// Windows Subsystem for Linux, simulated: the binary runs in a private mount namespace where a WSL
/// kernel's name is bind-mounted over /proc/sys/kernel/osrelease and /proc/version (no test switch in pingcli), with
/// doubles of the Windows launchers on PATH that record what they got (Tests/Support/wsl-double).
@Suite("WSL: the Windows browser")
struct WSLTests {
    static let canSimulate: Bool = {
        let probe = runProcess(
            "/usr/bin/unshare", ["-m", "sh", "-c", "mount --bind /proc/version /proc/sys/kernel/osrelease"],
            environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
        return probe.status == 0
    }()

    /// Logs in with `launchers` (a Tests/Support directory) first on PATH, as WSL when `wsl`, which must
    /// succeed; returns the run, what the launchers logged and the sandbox.
    func signedIn(
        launchers: String, wsl: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (
        CLIRun, [String], Sandbox
    ) {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let kernel = sandbox.root + "/osrelease"
        try (wsl ? "5.15.153.1-microsoft-standard-WSL2\n" : "6.1.0-18-amd64\n").write(toFile: kernel, atomically: true, encoding: .utf8)
        var environment = sandbox.environment
        environment["PATH"] = Locations.support + "/" + launchers + ":" + (environment["PATH"] ?? "")
        environment["WSL_LOG"] = sandbox.root + "/wsl.log"
        let run = runProcess(
            "/usr/bin/unshare",
            [
                "-m", "sh", "-c",
                "mount --bind \"$1\" /proc/sys/kernel/osrelease && mount --bind \"$1\" /proc/version && shift && exec \"$@\"", "sh", kernel,
                Locations.pingcli, "login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "60",
            ], environment: environment, timeout: 120)
        #expect(run.status == 0, "\(run)", sourceLocation: sourceLocation)
        let log = (readText(sandbox.root + "/wsl.log") ?? "").split(separator: "\n").map(String.init)
        return (run, log, sandbox)
    }

    @Test(
        "wsl-wslview: on WSL the URL goes to wslview as one argument, and the loopback redirect completes the login",
        .enabled(if: canSimulate, "needs unshare -m and mount (root)"))
    func wslview() throws {
        let (_, log, sandbox) = try signedIn(launchers: "wsl-wslview")
        #expect(log.count == 1 && log[0].hasPrefix("wslview [http://127.0.0.1:") && log[0].contains("?client_id=pingcli-test&"), "\(log)")
        #expect(readText(sandbox.stateDirectory + "/tokens.enc") != nil)
    }

    @Test(
        "wsl-explorer: without wslview, explorer.exe gets the URL; its exit status 1 is not taken for a failure",
        .enabled(if: canSimulate, "needs unshare -m and mount (root)"))
    func explorer() throws {
        let (run, log, _) = try signedIn(launchers: "wsl-explorer")
        #expect(log.count == 1 && log[0].hasPrefix("explorer.exe [http://127.0.0.1:"), "\(log)")
        #expect(!run.stderr.contains("exited with status"), "\(run)")
    }

    @Test(
        "wsl-no-cmd: with cmd.exe and rundll32.exe on PATH, cmd.exe (which expands %NAME% in a URL) gets nothing; rundll32.exe url.dll,FileProtocolHandler gets the URL unchanged",
        .enabled(if: canSimulate, "needs unshare -m and mount (root)"))
    func noCmd() throws {
        let (run, log, _) = try signedIn(launchers: "wsl-rundll")
        #expect(!log.contains { $0.hasPrefix("cmd.exe") }, "cmd.exe was run: \(log)")
        let line = try #require(log.first, "\(run)")
        #expect(line.hasPrefix("rundll32.exe [url.dll,FileProtocolHandler] [http://127.0.0.1:"), "\(line)")
        #expect(line.contains("?client_id=pingcli-test&") && line.contains("%3A") && !line.contains("^"), "\(line)")
    }

    @Test(
        "wsl-not-detected: on a plain Linux kernel the Windows launchers on PATH are left alone (xdg-open is used)",
        .enabled(if: canSimulate, "needs unshare -m and mount (root)"))
    func notWSL() throws {
        let (_, log, _) = try signedIn(launchers: "wsl-wslview", wsl: false)
        #expect(log.isEmpty, "\(log)")
    }
}
