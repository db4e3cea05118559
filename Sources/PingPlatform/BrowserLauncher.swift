import PingBase

#if canImport(Glibc)
    import Glibc
#endif

/// Opens a URL in the user's browser.
public protocol BrowserLauncher {
    /// Starts the browser; returns a handle to check on, or a reason it could not start.
    func open(_ url: String) -> Result<any BrowserProcess, BrowserLaunchError>
    /// Why no browser can be opened here at all (no display, outside WSL, none named), or nil: the
    /// caller then does not run the launcher and says so in one line.
    var unavailable: String? { get }
}

extension BrowserLauncher {
    public var unavailable: String? { nil }
}

/// A started launcher process (`xdg-open` usually returns at once after handing the URL over).
public protocol BrowserProcess {
    /// nil while it runs; its exit status once it has ended (checked without blocking).
    func exitStatus() -> Int32?
    /// What the launcher printed (stdout and stderr), display-safe, at most a few lines: shown only
    /// under `--verbose`, never on its own.
    var output: [String] { get }
}

extension BrowserProcess {
    public var output: [String] { [] }
}

public struct BrowserLaunchError: Error, Sendable {
    public var reason: String
}

/// Runs the browser with `posix_spawnp`: no shell, the URL is one argument, standard input is
/// /dev/null, and what it prints (xdg-open's complaints on a machine without a desktop run to seven
/// lines) goes to an unlinked temporary file, never to the terminal or to pingcli's stdout: the caller
/// says in one line when it failed and shows its text under `--verbose`.
///
/// Which browser: `PINGCLI_BROWSER` (this tool's own setting), else `$BROWSER` (as gh, kubelogin and
/// Python's webbrowser read it: the first of a colon-separated list, `%s` standing for the URL), else on
/// WSL the Windows browser (`WindowsBrowser`), else `xdg-open`. Decided when a browser is needed, so
/// commands that never open one read nothing.
public struct SpawnBrowserLauncher: BrowserLauncher {
    package let environment: Environment
    /// Whether this is Windows Subsystem for Linux; `WindowsBrowser.isWSL` unless a test injects another.
    package let isWSL: @Sendable () -> Bool

    public init(environment: Environment, isWSL: @escaping @Sendable () -> Bool = { WindowsBrowser.isWSL() }) {
        self.environment = environment
        self.isWSL = isWSL
    }

    /// The command, and whether its exit status means anything (explorer.exe exits 1 after opening a URL).
    package func command() -> (words: [String], statusMeaningful: Bool) {
        if let custom = environment["PINGCLI_BROWSER"]?.split(separator: " ").map(String.init), !custom.isEmpty {
            return (custom, true)
        }
        if let first = environment["BROWSER"]?.split(separator: ":").first {
            let words = first.split(separator: " ").map(String.init)
            if !words.isEmpty { return (words, true) }
        }
        if isWSL(), let windows = WindowsBrowser.command(path: environment["PATH"] ?? "") { return windows }
        return (["xdg-open"], true)
    }

    /// The command line for `url`: `%s` replaced by it where given, else the URL as the last argument.
    package func arguments(for url: String) -> [String] {
        let command = command().words
        guard command.dropFirst().contains(where: { $0.containsText("%s") }) else { return command + [url] }
        return [command[0]] + command.dropFirst().map { $0.replacingText("%s", with: url) }
    }

    /// No X11 or Wayland display, not WSL, and neither PINGCLI_BROWSER nor BROWSER: `xdg-open` would only
    /// fail (or start a text browser with no terminal to draw on), so it is not run.
    public var unavailable: String? {
        func isSet(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
        if isSet("DISPLAY") || isSet("WAYLAND_DISPLAY") || isSet("PINGCLI_BROWSER") || isSet("BROWSER") || isWSL() { return nil }
        return "there is no display here (DISPLAY and WAYLAND_DISPLAY are unset)"
    }

    public func open(_ url: String) -> Result<any BrowserProcess, BrowserLaunchError> {
        let (command, statusMeaningful) = command()
        let capture = LauncherOutput()
        switch Subprocess.spawn(arguments(for: url), standardOutput: capture.descriptor ?? 2, standardError: capture.descriptor ?? 2) {
        case .success(let pid): return .success(SpawnedProcess(pid: pid, statusMeaningful: statusMeaningful, capture: capture))
        case .failure(let error): return .failure(BrowserLaunchError(reason: "cannot run \(command[0]): \(error.reason)"))
        }
    }
}

/// An unlinked temporary file that a launcher writes into: a file rather than a pipe, so a browser
/// that inherits it and keeps logging never blocks on a pipe nobody reads.
package final class LauncherOutput {
    package let descriptor: Int32?

    package init() {
        var template = Array(((getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp") + "/pingcli-browser.XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        if descriptor >= 0 {
            unlink(template)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        self.descriptor = descriptor >= 0 ? descriptor : nil
    }

    deinit { if let descriptor { close(descriptor) } }

    /// The first 4 KB written, as at most eight display-safe lines.
    package var lines: [String] {
        guard let descriptor else { return [] }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return [] }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        return text.split(separator: "\n").prefix(8).map { displaySafe(String($0), limit: 200) }
    }
}

package final class SpawnedProcess: BrowserProcess {
    package let pid: pid_t
    /// false: any exit counts as 0 (explorer.exe reports 1 after handing a URL over).
    package let statusMeaningful: Bool
    private var finished: Int32?

    private let capture: LauncherOutput?

    package init(pid: pid_t, statusMeaningful: Bool = true, capture: LauncherOutput? = nil) {
        self.pid = pid
        self.statusMeaningful = statusMeaningful
        self.capture = capture
    }

    package var output: [String] { capture?.lines ?? [] }

    package func exitStatus() -> Int32? {
        if let finished { return finished }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        finished = statusMeaningful ? Subprocess.exitCode(waitStatus: status) : 0
        return finished
    }
}
