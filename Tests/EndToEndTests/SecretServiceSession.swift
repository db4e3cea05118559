import CPlatform
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

enum SecretServiceError: Error, CustomStringConvertible {
    case setup(String)
    var description: String {
        switch self {
        case .setup(let message): message
        }
    }
}

/// A desktop login session for one test, without a display: a private session bus (a dbus-daemon with
/// no service directories, so a stopped keyring stays stopped instead of being started again by D-Bus
/// activation) and Debian's gnome-keyring-daemon serving the Secret Service on it, its login keyring
/// unlocked with a password from the test. The calling thread joins a new kernel session keyring, which
/// every pingcli it starts inherits, as the processes of one login session do.
final class SecretServiceSession {
    static let password = "pingcli-test-keyring"
    static var available: Bool {
        let tools: [String] = ["/usr/bin/gnome-keyring-daemon", "/usr/bin/dbus-daemon", "/usr/bin/secret-tool", "/usr/bin/dbus-send"]
        return tools.allSatisfy { (tool: String) in access(tool, X_OK) == 0 }
    }

    let sandbox: Sandbox
    let busAddress: String
    private var bus: pid_t = 0
    private var keyring: pid_t = 0

    /// The pingcli environment for this session: the sandbox's, plus the bus.
    var environment: [String: String] {
        [
            "DBUS_SESSION_BUS_ADDRESS": busAddress, "XDG_RUNTIME_DIR": sandbox.root + "/run",
            // Under `make test-sanitize` only: libsecret's search leaks 8 bytes per item inside GIO
            // (secret_item_new_for_dbus_path → g_async_initable_new_async). Debian's GLib has no frame
            // pointers, so AddressSanitizer's fast unwinder stops at g_malloc0 and the suppression in
            // Tests/Support/lsan-suppressions.txt could never match; the slow unwinder sees the whole stack,
            // and the suppressions reach pingcli only if passed on (quietly: stderr is under test).
            "ASAN_OPTIONS": Self.inherited("ASAN_OPTIONS") + "fast_unwind_on_malloc=0",
            "LSAN_OPTIONS": Self.inherited("LSAN_OPTIONS") + "print_suppressions=0",
        ]
    }

    private static func inherited(_ name: String) -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return "" }
        return value + ":"
    }
    private var toolEnvironment: [String: String] { sandbox.environment.merging(environment) { $1 } }

    init(sandbox: Sandbox) throws {
        self.sandbox = sandbox
        let root = sandbox.root
        mkdir(root + "/run", 0o700)
        busAddress = "unix:path=\(root)/run/bus"
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(busAddress)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
            </busconfig>
            """
        try config.write(toFile: root + "/bus.conf", atomically: true, encoding: .utf8)
        try "\(Self.password)".write(toFile: root + "/keyring-password", atomically: true, encoding: .utf8)
        Self.joinNewKernelSession()
        bus = try background("/usr/bin/dbus-daemon", ["--config-file=\(root)/bus.conf", "--nofork"])
        try waitFor("the session bus") { access(root + "/run/bus", F_OK) == 0 }
        try startKeyring()
    }

    deinit {
        stopKeyring()
        stop(bus)
    }

    /// A new, empty kernel session keyring for the calling thread and the processes it starts from now on.
    static func joinNewKernelSession() { _ = pingcli_keyctl_join_session_keyring(nil) }

    /// gnome-keyring-daemon with only its Secret Service component, the login keyring unlocked with the
    /// password on its standard input; returns once it owns org.freedesktop.secrets on the bus.
    func startKeyring() throws {
        let password = open(sandbox.root + "/keyring-password", O_RDONLY | O_CLOEXEC)
        defer { close(password) }
        keyring = try background("/usr/bin/gnome-keyring-daemon", ["--foreground", "--unlock", "--components=secrets"], stdin: password)
        try waitFor("gnome-keyring-daemon on the bus") {
            let answer = tool(
                "/usr/bin/dbus-send",
                [
                    "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/", "org.freedesktop.DBus.NameHasOwner",
                    "string:org.freedesktop.secrets",
                ])
            return answer.stdout.contains("boolean true")
        }
    }

    /// Stops the daemon: nothing serves the Secret Service on the bus any more.
    func stopKeyring() {
        stop(keyring)
        keyring = 0
    }

    /// Locks the login keyring, as a screen lock or a timeout does.
    func lock() throws {
        let run = tool(
            "/usr/bin/dbus-send",
            [
                "--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
                "org.freedesktop.Secret.Service.Lock", "array:objpath:/org/freedesktop/secrets/collection/login",
            ])
        guard run.status == 0 else { throw SecretServiceError.setup("locking the keyring failed: \(run)") }
    }

    /// `secret-tool` (Debian's libsecret-tools) against this session's Secret Service.
    func secretTool(_ arguments: [String]) -> CLIRun { tool("/usr/bin/secret-tool", arguments) }

    private func tool(_ path: String, _ arguments: [String]) -> CLIRun {
        runProcess(path, arguments, environment: toolEnvironment, timeout: 60)
    }

    private func background(_ path: String, _ arguments: [String], stdin: Int32? = nil) throws -> pid_t {
        let log = open(sandbox.root + "/session.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        defer { close(log) }
        let (pid, error) = spawnProcess(path, arguments, environment: toolEnvironment, stdin: stdin, stdout: log, stderr: log)
        guard error == 0 else { throw SecretServiceError.setup("\(path): \(String(cString: strerror(error)))") }
        return pid
    }

    private func stop(_ pid: pid_t) {
        guard pid > 0 else { return }
        // gnome-keyring-daemon --foreground does not end on SIGTERM; a killed daemon is what a crash looks like too.
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// Polls `condition` for up to 60 s (the machine may be busy).
    private func waitFor(_ what: String, _ condition: () -> Bool) throws {
        for _ in 0..<600 {
            if condition() { return }
            usleep(100_000)
        }
        throw SecretServiceError.setup("\(what) did not start within 60 s; log: \(readText(sandbox.root + "/session.log") ?? "")")
    }
}
