import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The result of running the built `pingcli` binary.
struct CLIRun: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    /// The rule the failure enforced (docs/security.md, "Failure rules"), as the test build records it
    /// (`PINGCLI_TEST_RULE_FILE`); nil when the run succeeded or did not go through a sandbox.
    var rule: String? = nil

    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }

    /// The last line on stderr: the outcome, after whatever a login showed while it waited.
    var lastErrorLine: String { String(stderr.split(separator: "\n").last ?? "") }
}

/// Paths of the things the tests run: the built binaries and the browser double.
enum Locations {
    /// `.build/<triple>/debug`, where `swift build` put pingcli beside the test bundle.
    static let binDirectory: String = {
        if let override = ProcessInfo.processInfo.environment["PINGCLI_BIN_DIR"] { return override }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // The test binary may sit inside a .xctest bundle directory.
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("pingcli").path) && url.path != "/" {
            url.deleteLastPathComponent()
        }
        return url.path
    }()

    static var pingcli: String { binDirectory + "/pingcli" }

    /// Tests/Support, which holds the browser doubles (`xdg-open`, `record-url`).
    static let support: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Support").path
}

/// A throw-away HOME with its own XDG directories, and `xdg-open` replaced by the browser double.
final class Sandbox: Sendable {
    let root: String
    let environment: [String: String]
    /// The emulators this sandbox signs in to, when it owns them: stopped when the sandbox goes, at the
    /// end of the test (so a test that gets both from `loggedIn()` or `emulatorAndSandbox()` stops nothing).
    private let emulators: [Emulator]

    init(stopping emulators: Emulator...) {
        self.emulators = emulators
        root = FileManager.default.temporaryDirectory.appendingPathComponent("pingcli-e2e-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: root + "/home", withIntermediateDirectories: true)
        // Whatever the umask: pingcli refuses files below a directory that group or others may write.
        for directory in [root, root + "/home"] { chmod(directory, 0o755) }
        environment = [
            "HOME": root + "/home",
            "XDG_CONFIG_HOME": root + "/config",
            "XDG_DATA_HOME": root + "/data",
            "XDG_STATE_HOME": root + "/state",
            "PATH": Locations.support + ":/usr/local/bin:/usr/bin:/bin",
            "BROWSER_LOG": root + "/browser.log",
            "BROWSER_LAUNCHES": root + "/browser-launches.log",
            "BROWSER_EXITS": root + "/browser-exits.log",
            "LANG": "C.UTF-8",
            // A desktop session, so that pingcli runs the browser double (without a display it runs none).
            "DISPLAY": ":0",
        ]
    }

    deinit {
        for emulator in emulators { emulator.stop() }
        // A browser double still running writes its exit line last: removed before that, the sandbox
        // would come back as a directory holding that one file (thousands of them in /tmp over a day).
        waitForBrowsers(timeout: 10)
        try? FileManager.default.removeItem(atPath: root)
    }

    /// The default profile's directory: its settings (`profile.json`) and beside them its state (cache,
    /// lock, refresh record, JWK Set); `stateDirectory` names the same place where a test means the state.
    var profileDirectory: String { root + "/config/pingcli/profiles/default" }
    var stateDirectory: String { profileDirectory }
    /// Where the builds of one earlier round kept the state: under XDG_STATE_HOME.
    var legacyStateDirectory: String { root + "/state/pingcli/profiles/default" }
    var keyFile: String { root + "/data/pingcli/key" }

    /// How many times the browser double was launched. Counted from its own file, written before it
    /// loads anything: the visit log's last lines may still arrive after the command that opened it ended.
    var browserLaunches: Int {
        (readText(root + "/browser-launches.log") ?? "").split(separator: "\n").count
    }

    /// Every URL the browser double visited, read once each double launched has exited: its last log
    /// lines land after pingcli has ended (the page is still loading), so the read waits for the event
    /// the double signals as its very last act (BROWSER_EXITS), never for time to pass.
    var browserLog: [String] {
        waitForBrowsers()
        return (readText(root + "/browser.log") ?? "").split(separator: "\n").map(String.init)
    }

    /// Waits until every browser double launched in this sandbox has exited (its exit line written), at
    /// most `timeout` seconds: a bound for a double that hangs, not a guess at how long it takes.
    func waitForBrowsers(timeout: Double = 60) {
        func lines(_ name: String) -> Int { (readText(root + "/" + name) ?? "").split(separator: "\n").count }
        let deadline = Date().addingTimeInterval(timeout)
        while lines("browser-exits.log") < lines("browser-launches.log") && Date() < deadline { usleep(10_000) }
    }

    /// The page the browser double saved (BROWSER_PAGE) at `path`, read once every double launched has
    /// exited: the double runs on after pingcli exits (the page is still loading), and it saves the page
    /// before its exit line (BROWSER_EXITS), so the read waits for that event, never for the file's content.
    func savedPage(_ path: String) -> String? {
        waitForBrowsers()
        return readText(path)
    }

    /// Runs pingcli with these arguments and extra environment, waiting at most `timeout` seconds.
    func run(_ arguments: [String], environment extra: [String: String] = [:], timeout: Double = 60) -> CLIRun {
        recordingRule { ruleFile in
            runProcess(
                Locations.pingcli, arguments, environment: environment.merging(extra) { $1 }.merging(ruleFile) { $1 }, timeout: timeout)
        }
    }

    /// Runs `body` with a rule file of its own in the environment, and reads the rule it recorded.
    func recordingRule(_ body: ([String: String]) -> CLIRun) -> CLIRun {
        let path = root + "/rule-\(UUID().uuidString)"
        var run = body(["PINGCLI_TEST_RULE_FILE": path])
        run.rule = readText(path)
        try? FileManager.default.removeItem(atPath: path)
        return run
    }

    /// Runs pingcli with `input` as its standard input (through a file, so no pipe can fill up).
    func run(_ arguments: [String], input: String, environment extra: [String: String] = [:]) -> CLIRun {
        let path = root + "/stdin-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: path, contents: Data(input.utf8))
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(descriptor) }
        return recordingRule { ruleFile in
            runProcess(
                Locations.pingcli, arguments, environment: environment.merging(extra) { $1 }.merging(ruleFile) { $1 }, timeout: 60,
                stdin: descriptor)
        }
    }

    /// Logs in to the emulator with the usual test client.
    @discardableResult
    func login(_ emulator: Emulator, _ extra: [String] = [], environment: [String: String] = [:]) -> CLIRun {
        run(["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "30"] + extra, environment: environment)
    }
}

extension Emulator {
    /// What `pingcli token --raw` must print for the newest access token this emulator issued.
    var newestTokenLine: String { (issuedAccessTokens.last ?? "(no token issued)") + "\n" }
}

/// A session whose access token (20 s) is already inside `token`'s 30 s refresh threshold; tokens issued
/// afterwards live an hour. Returns the emulator, the sandbox and the first token's line.
func expiringSession() throws -> (Emulator, Sandbox, String) {
    let (emulator, sandbox) = try loggedIn { $0.accessTokenLifetime = 20 }
    emulator.accessTokenLifetime = 3600
    return (emulator, sandbox, emulator.newestTokenLine)
}

/// An emulator on an ephemeral loopback port and a sandbox logged in to it (which stops the emulator).
func loggedIn(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }, profile: String = "default") throws -> (Emulator, Sandbox) {
    let (emulator, sandbox) = try emulatorAndSandbox(configure)
    let run = sandbox.login(emulator, ["--profile", profile])
    #expect(run.status == 0, "\(run)")
    return (emulator, sandbox)
}

/// `loggedIn()`, with the emulator answering `kind` with `response` from then on.
func loggedIn(answering kind: EndpointKind, with response: CannedResponse) throws -> (Emulator, Sandbox) {
    let (emulator, sandbox) = try loggedIn()
    emulator.faults.responseOverrides = [kind: response]
    return (emulator, sandbox)
}

/// `loggedIn()`, then `pingcli ARGUMENTS` run in it, which must succeed.
func loggedIn(running arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> (Emulator, Sandbox, CLIRun) {
    let (emulator, sandbox) = try loggedIn()
    let run = sandbox.run(arguments)
    #expect(run.status == 0, "\(run)", sourceLocation: sourceLocation)
    return (emulator, sandbox, run)
}

/// A fresh emulator on an ephemeral loopback port and an empty sandbox, which stops the emulator when
/// it goes (at the end of the test).
func emulatorAndSandbox(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws -> (Emulator, Sandbox) {
    sandboxed(try startEmulator(configure))
}

/// `emulator` with a sandbox that stops it at the end of the test.
func sandboxed(_ emulator: Emulator) -> (Emulator, Sandbox) {
    (emulator, Sandbox(stopping: emulator))
}

/// Starts an emulator on an ephemeral loopback port for one test.
func startEmulator(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws -> Emulator {
    var configuration = EmulatorConfiguration()
    configure(&configuration)
    let emulator = try Emulator(configuration: configuration)
    emulator.start()
    return emulator
}

/// posix_spawn with stdout and stderr captured through pipes, read together so neither can fill up.
func runProcess(_ path: String, _ arguments: [String], environment: [String: String], timeout: Double, stdin: Int32? = nil) -> CLIRun {
    var outPipe: [Int32] = [0, 0]
    var errPipe: [Int32] = [0, 0]
    pipe(&outPipe)
    pipe(&errPipe)
    // Tests run in parallel: keep these pipes out of other tests' children.
    for descriptor in outPipe + errPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    let (pid, spawned) = spawnProcess(path, arguments, environment: environment, stdin: stdin, stdout: outPipe[1], stderr: errPipe[1])
    close(outPipe[1])
    close(errPipe[1])
    guard spawned == 0 else {
        close(outPipe[0])
        close(errPipe[0])
        return CLIRun(status: -1, stdout: "", stderr: "spawn failed: \(String(cString: strerror(spawned)))")
    }
    var outputs: [Int32: [UInt8]] = [outPipe[0]: [], errPipe[0]: []]
    var open = [outPipe[0], errPipe[0]]
    let deadline = Date().addingTimeInterval(timeout)
    var buffer = [UInt8](repeating: 0, count: 65536)
    while !open.isEmpty {
        let remaining = deadline.timeIntervalSinceNow
        if remaining <= 0 {
            kill(pid, SIGKILL)
            break
        }
        var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), Int32(min(remaining, 1) * 1000)) > 0 else { continue }
        for entry in fds where entry.revents != 0 {
            let count = read(entry.fd, &buffer, buffer.count)
            if count > 0 {
                outputs[entry.fd]!.append(contentsOf: buffer[..<count])
            } else {
                open.removeAll { $0 == entry.fd }
            }
        }
    }
    close(outPipe[0])
    close(errPipe[0])
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    let exitStatus = shellStatus(status)
    return CLIRun(
        status: exitStatus, stdout: String(decoding: outputs[outPipe[0]]!, as: UTF8.self),
        stderr: String(decoding: outputs[errPipe[0]]!, as: UTF8.self))
}

/// Starts `path` with standard input from `stdin` (default /dev/null), the given stdout and stderr, and no
/// other descriptor of this process: Foundation opens files without O_CLOEXEC, and a child that inherits
/// a file another test is writing keeps it busy (ETXTBSY) or open for its lifetime.
func spawnProcess(
    _ path: String, _ arguments: [String], environment: [String: String], stdin: Int32? = nil, stdout: Int32, stderr: Int32,
    defaultSignals: Bool = false
) -> (pid: pid_t, error: Int32) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let stdin {
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
    } else {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    posix_spawn_file_actions_adddup2(&actions, stdout, 1)
    posix_spawn_file_actions_adddup2(&actions, stderr, 2)
    closeFromThree(&actions)
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    // With defaultSignals, the child starts with no signal blocked and SIGABRT and SIGINT at their default action,
    // whatever the test runner set (a signal test must see the kernel's behaviour, not the runner's).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // A session of its own: no child has the test runner's terminal (a credential helper signs in only
    // on a terminal; the tests that want one give it a pseudo-terminal with script).
    var flags: Int16 = 0x80  // POSIX_SPAWN_SETSID (glibc 2.26), which the Glibc module does not import
    if defaultSignals {
        var none = sigset_t()
        sigemptyset(&none)
        var abort = sigset_t()
        sigemptyset(&abort)
        sigaddset(&abort, SIGABRT)
        sigaddset(&abort, SIGINT)  // a runner may ignore it, and an ignored signal stays ignored across exec
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &abort)
        flags |= Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
    }
    posix_spawnattr_setflags(&attributes, flags)
    var pid: pid_t = 0
    let error = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    return (pid, error)
}

/// glibc's posix_spawn_file_actions_addclosefrom_np (2.34+), looked up at run time because the Glibc
/// module does not import it; without it, children inherit descriptors as before.
func closeFromThree(_ actions: inout posix_spawn_file_actions_t) {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return }
    _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
}

/// A file's text, or nil when it cannot be opened. Read with read(2): FoundationEssentials 6.3.1's
/// `String(contentsOfFile:)` leaks a 4 KiB buffer on an empty file, which `make test-sanitize` reports.
func readText(_ path: String) -> String? {
    readBytes(path).map { String(decoding: $0, as: UTF8.self) }
}

/// A file's bytes, or nil when it cannot be opened.
func readBytes(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = read(descriptor, &chunk, chunk.count)
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }
        bytes.append(contentsOf: chunk[..<count])
    }
    return bytes
}

/// A waitpid status as a shell shows it: the exit code, or 128 + the signal (WEXITSTATUS and WTERMSIG
/// are macros Swift cannot import).
func shellStatus(_ status: Int32) -> Int32 {
    status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}

func fileMode(_ path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? nil
}
