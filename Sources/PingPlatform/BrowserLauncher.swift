import PingBase

#if canImport(Glibc)
    import Glibc
#endif

/// Opens a URL in the user's browser.
public protocol BrowserLauncher {
    /// Starts the browser; returns a handle to check on, or a reason it could not start.
    func open(_ url: String) -> Result<any BrowserProcess, BrowserLaunchError>
}

/// A started launcher process (`xdg-open` usually returns at once after handing the URL over).
public protocol BrowserProcess {
    /// nil while it runs; its exit status once it has ended (checked without blocking).
    func exitStatus() -> Int32?
}

public struct BrowserLaunchError: Error, Sendable {
    public var reason: String
}

/// Runs the browser with `posix_spawnp`: no shell, the URL is one argument, standard input is
/// /dev/null and its standard output goes to our standard error, so nothing it prints can reach a
/// script reading pingcli's stdout.
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
        guard command.dropFirst().contains(where: { $0.contains("%s") }) else { return command + [url] }
        return [command[0]] + command.dropFirst().map { $0.replacing("%s", with: url) }
    }

    public func open(_ url: String) -> Result<any BrowserProcess, BrowserLaunchError> {
        let (command, statusMeaningful) = command()
        switch Subprocess.spawn(arguments(for: url), standardOutput: 2) {
        case .success(let pid): return .success(SpawnedProcess(pid: pid, statusMeaningful: statusMeaningful))
        case .failure(let error): return .failure(BrowserLaunchError(reason: "cannot run \(command[0]): \(error.reason)"))
        }
    }
}

package final class SpawnedProcess: BrowserProcess {
    package let pid: pid_t
    /// false: any exit counts as 0 (explorer.exe reports 1 after handing a URL over).
    package let statusMeaningful: Bool
    private var finished: Int32?

    package init(pid: pid_t, statusMeaningful: Bool = true) {
        self.pid = pid
        self.statusMeaningful = statusMeaningful
    }

    package func exitStatus() -> Int32? {
        if let finished { return finished }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        finished = statusMeaningful ? Subprocess.exitCode(waitStatus: status) : 0
        return finished
    }
}
