import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A pingcli run that the test types into (a pipe on its standard input) and whose stderr it reads while
/// the run goes on (a file in the sandbox).
final class InteractiveRun {
    private let child: SpawnedChild
    /// Kept while pingcli runs: its HOME, and the emulator the sandbox stops when it goes.
    private let sandbox: Sandbox
    var pid: pid_t { child.pid }
    private var input: Int32
    private let stdoutPath: String
    private let stderrPath: String

    /// `defaultSignals`: the child starts with SIGINT at its default action and nothing blocked, whatever
    /// the test runner set (for a test that sends it Ctrl-C's signal).
    init(_ sandbox: Sandbox, _ arguments: [String], environment extra: [String: String] = [:], defaultSignals: Bool = false) throws {
        self.sandbox = sandbox
        stdoutPath = sandbox.root + "/interactive.out"
        stderrPath = sandbox.root + "/interactive.err"
        let output = open(stdoutPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let errors = open(stderrPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        for descriptor in ends { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        defer {
            close(output)
            close(errors)
            close(ends[0])
        }
        let (pid, error) = spawnProcess(
            Locations.pingcli, arguments, environment: sandbox.environment.merging(extra) { $1 }, stdin: ends[0],
            stdout: output, stderr: errors, defaultSignals: defaultSignals)
        try #require(error == 0, "spawn failed: \(String(cString: strerror(error)))")
        child = SpawnedChild(pid)
        input = ends[1]
    }

    /// `pingcli login` of client pingcli-test at `emulator`, waiting up to 60 s, with PINGCLI_BROWSER set to `browser`.
    static func login(_ sandbox: Sandbox, _ emulator: Emulator, browser: String, defaultSignals: Bool = false) throws -> InteractiveRun {
        try InteractiveRun(
            sandbox, ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "60"],
            environment: ["PINGCLI_BROWSER": browser], defaultSignals: defaultSignals)
    }

    deinit {
        closeInput()
        child.stop()
    }

    var stderr: String { readText(stderrPath) ?? "" }

    /// Waits (up to a minute) until stderr has a whole line that `match` accepts, and returns that line.
    /// Only lines pingcli has ended with a newline count: the last one may still be half written.
    func line(where match: (String) -> Bool) -> String? {
        for _ in 0..<3000 {
            if let found = stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init).first(where: match) {
                return found
            }
            if child.exited() { return nil }
            usleep(20_000)
        }
        return nil
    }

    /// Types a line, as a user pasting into the terminal and pressing Enter.
    func type(_ line: String) {
        _ = Array((line + "\n").utf8).withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
    }

    /// Closes standard input, as Ctrl-D does.
    func closeInput() {
        if input >= 0 {
            close(input)
            input = -1
        }
    }

    /// Waits for the run to end (killing it after `timeout` seconds) and returns what it did.
    func finish(timeout: Double = 60) -> CLIRun {
        closeInput()
        let status = child.finish(timeout: timeout) { usleep(20_000) }
        return CLIRun(status: status, stdout: readText(stdoutPath) ?? "", stderr: stderr)
    }
}

/// Where the emulator sends a browser after it approves `authorizationURL`: the address a browser on
/// another machine would show in its address bar (fetched with curl, not followed).
func callbackAddress(for authorizationURL: String, sandbox: Sandbox) -> String {
    let fetched = runProcess(
        "/usr/bin/curl", ["-s", "--noproxy", "*", "-o", "/dev/null", "-w", "%{redirect_url}", authorizationURL],
        environment: sandbox.environment, timeout: 30)
    return fetched.stdout
}

@Suite("pasting the redirect address back (a browser on another machine)")
struct PasteEndToEndTests {
    static func isAuthorizationURL(_ line: String) -> Bool { line.hasPrefix("  http") && line.contains("/authorize?") }

    @Test(
        "paste-redirect: with --no-browser, the address the browser ended on can be pasted; wrong ones are refused with the reason and the login goes on"
    )
    func pasteWithNoBrowser() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let login = try InteractiveRun(
            sandbox, ["login", "--no-browser", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "60"])
        let url = try #require(login.line(where: Self.isAuthorizationURL), "\(login.stderr)").trimmingCharacters(in: .whitespaces)
        // Standard input is a pipe here: the address is read from it, but nobody is asked to paste.
        #expect(!login.stderr.contains("paste it here and press Enter"))
        let callback = callbackAddress(for: url, sandbox: sandbox)
        let code = try #require(URLComponents(string: callback)?.queryItems?.first { $0.name == "code" }?.value, "\(callback)")

        login.type("no address at all")
        login.type(url)
        login.type(callback.replacingOccurrences(of: "state=", with: "state=forged"))
        login.type("")
        login.type("  " + callback + "  ")
        let run = login.finish()

        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("the pasted text was not accepted: it is not an address"))
        #expect(run.stderr.contains("the pasted text was not accepted: it is for another port"), "the sign-in URL itself")
        #expect(run.stderr.contains("the pasted address was not accepted: its state does not match"))
        #expect(!run.stderr.contains(code), "the pasted code is never echoed")
        #expect(emulator.requests(to: .token).count == 1, "only the right paste was redeemed")
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
    }

    @Test(
        "ssh-no-display: login in an SSH session without a display prints the URL and launches nothing; with stdin not a terminal, no paste prompt"
    )
    func sshWithoutDisplay() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let run = sandbox.run(
            ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "1"],
            environment: ["SSH_CONNECTION": "10.0.0.1 50000 10.0.0.2 22", "DISPLAY": ""])
        #expect(run.status == 1, "nobody signed in")
        #expect(run.stderr.contains("SSH session without a display, so no browser is opened here"))
        #expect(run.rule == "login-timeout", "\(run)")
        #expect(!run.stderr.contains("paste it here and press Enter"), "\(run)")
        #expect(sandbox.browserLog.isEmpty, "xdg-open was not run")
    }

    @Test(
        "paste-after-launcher-failure: when the browser launcher fails, one line says so (a pasted address would be read from the pipe, with no prompt), and closing stdin still leaves the listener waiting"
    )
    func launcherFailureOffersPaste() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let login = try InteractiveRun.login(sandbox, emulator, browser: "false")
        let failed = login.line { $0.contains("the browser launcher exited with status 1") }
        #expect(failed != nil, "\(login.stderr)")
        #expect(!login.stderr.contains("paste it here and press Enter"), "\(login.stderr)")
        login.closeInput()
        let url = try #require(login.line(where: Self.isAuthorizationURL)).trimmingCharacters(in: .whitespaces)
        let browser = runProcess(Locations.support + "/xdg-open", [url], environment: sandbox.environment, timeout: 30)
        #expect(browser.status == 0, "\(browser)")
        let run = login.finish()
        #expect(run.status == 0, "\(run)")
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
    }
}
