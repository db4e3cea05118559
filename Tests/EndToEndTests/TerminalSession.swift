import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// pingcli on a pseudo-terminal of its own, as a person at a terminal runs it: the terminal is its
/// controlling terminal and its standard input, output and error, so Ctrl-C is the terminal's signal
/// and echo is the terminal's. The test reads everything the screen would show and types into it; it
/// keeps the terminal's other end open, so its settings can be read after pingcli has ended.
final class TerminalSession {
    private let child: SpawnedChild
    /// Kept while pingcli runs: its HOME, and the emulator the sandbox stops when it goes.
    private let sandbox: Sandbox
    var pid: pid_t { child.pid }
    private let master: Int32
    private let slave: Int32
    private var bytes: [UInt8] = []

    /// `executable` (pingcli unless given: git or kubectl that runs it) with `arguments`.
    init(
        _ sandbox: Sandbox, _ arguments: [String], executable: String = Locations.pingcli, environment extra: [String: String] = [:]
    ) throws {
        self.sandbox = sandbox
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)  // posix_openpt, which Glibc's module does not import
        let name = try #require(Self.unlockedName(master), "no pseudo-terminal")
        slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(slave >= 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened after setsid (glibc sets the session up before the file actions): the controlling terminal.
        posix_spawn_file_actions_addopen(&actions, 0, name, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        closeFromThree(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGQUIT, SIGTERM, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(0x80 | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))  // 0x80: SETSID
        let environment = sandbox.environment.merging(extra) { $1 }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let error = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        try #require(error == 0, "spawn failed: \(String(cString: strerror(error)))")
        child = SpawnedChild(pid)
    }

    /// unlockpt(3) and ptsname(3) (glibc's, looked up at run time: the Glibc module does not import them).
    private static func unlockedName(_ master: Int32) -> String? {
        typealias Unlock = @convention(c) (Int32) -> Int32
        typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        let everywhere = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT
        guard master >= 0, let unlock = dlsym(everywhere, "unlockpt"), let name = dlsym(everywhere, "ptsname"),
            unsafeBitCast(unlock, to: Unlock.self)(master) == 0, let path = unsafeBitCast(name, to: Name.self)(master)
        else { return nil }
        return String(cString: path)
    }

    deinit {
        child.stop()
        close(master)
        close(slave)
    }

    /// Everything the terminal has shown so far (its newlines as the terminal sends them, CR LF).
    var screen: String {
        drain(wait: 0)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads what pingcli wrote, waiting at most `wait` seconds for the first bytes.
    private func drain(wait: Double) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var timeout = Int32(wait * 1000)
        while true {
            var entry = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, timeout) > 0 else { return }
            let count = read(master, &buffer, buffer.count)
            guard count > 0 else { return }
            bytes.append(contentsOf: buffer[..<count])
            timeout = 0
        }
    }

    /// How much of the screen `waitFor` has looked past.
    private var cursor = 0

    /// Waits (up to a minute) until the screen shows `text` after what an earlier `waitFor` found;
    /// false when pingcli ended without it.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        let wanted = Array(text.utf8)
        while Date() < deadline {
            drain(wait: 0.05)
            if let end = find(wanted) {
                cursor = end
                return true
            }
            if child.exited() {
                drain(wait: 0)
                guard let end = find(wanted) else { return false }
                cursor = end
                return true
            }
        }
        return false
    }

    private func find(_ wanted: [UInt8]) -> Int? {
        guard !wanted.isEmpty, bytes.count - cursor >= wanted.count else { return nil }
        for start in cursor...(bytes.count - wanted.count) where bytes[start..<(start + wanted.count)].elementsEqual(wanted) {
            return start + wanted.count
        }
        return nil
    }

    /// Waits until the terminal's echo is off (a secret is being read); false after a minute.
    func waitForEchoOff() -> Bool {
        for _ in 0..<3000 {
            if localModes & tcflag_t(ECHO) == 0 { return true }
            if child.exited() { return false }
            usleep(20_000)
        }
        return false
    }

    /// Types `answer` and Enter once the screen shows `prompt`.
    func answer(_ prompt: String, _ answer: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(waitFor(prompt), "no \"\(prompt)\" on the screen:\n\(screen)", sourceLocation: sourceLocation)
        type(answer + "\n")
    }

    /// Types a secret and Enter once the screen shows `prompt` and the terminal's echo is off.
    func answerSecret(_ prompt: String, _ secret: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(waitFor(prompt), "no \"\(prompt)\" on the screen:\n\(screen)", sourceLocation: sourceLocation)
        #expect(waitForEchoOff(), "echo stayed on for \"\(prompt)\"", sourceLocation: sourceLocation)
        type(secret + "\n")
    }

    /// Types `text` as keys (no Enter unless it ends with "\n"; "\u{3}" is Ctrl-C, "\u{4}" Ctrl-D).
    func type(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// The terminal's local modes now (ECHO among them).
    var localModes: tcflag_t {
        var settings = termios()
        tcgetattr(slave, &settings)
        return settings.c_lflag
    }

    /// Waits for pingcli to end (killing it after `timeout` seconds); stdout and stderr both are the screen.
    func finish(timeout: Double = 60) -> CLIRun {
        let status = child.finish(timeout: timeout) { drain(wait: 0.05) }
        drain(wait: 0)
        let shown = String(decoding: bytes, as: UTF8.self)
        return CLIRun(status: status, stdout: shown, stderr: shown)
    }

    /// pingcli's argv and environment, and its children's, as the system shows them to others of this user.
    func processText() -> String {
        var pids = [pid]
        let children = readText("/proc/\(pid)/task/\(pid)/children") ?? ""
        pids += children.split(separator: " ").compactMap { pid_t($0) }
        return pids.map { (readText("/proc/\($0)/cmdline") ?? "") + "\n" + (readText("/proc/\($0)/environ") ?? "") }.joined(separator: "\n")
    }
}

/// Where a journey's secrets must not be: checked after each end-to-end journey.
struct JourneySecrets {
    var values: [String]

    /// The password and codes typed, and every session the emulator handed out.
    init(_ emulator: Emulator, typed: [String]) {
        values = typed + emulator.journeySessions.map(\.tokenId)
    }

    /// None on `shown` (the terminal, stdout, stderr).
    func expectNotShown(_ shown: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in values { #expect(!shown.contains(secret), "a secret was shown:\n\(shown)", sourceLocation: sourceLocation) }
    }

    /// None in any file under HOME and the XDG directories but the encrypted cache.
    func expectNotInFiles(_ sandbox: Sandbox, sourceLocation: SourceLocation = #_sourceLocation) {
        var scanned = 0
        for top in ["home", "config", "data", "state"] {
            let root = sandbox.root + "/" + top
            guard let walker = FileManager.default.enumerator(atPath: root) else { continue }
            for case let path as String in walker where !path.hasSuffix("tokens.enc") {
                guard let text = readText(root + "/" + path) else { continue }
                scanned += 1
                for secret in values {
                    #expect(!text.contains(secret), "a secret is in \(top)/\(path)", sourceLocation: sourceLocation)
                }
            }
        }
        #expect(scanned > 0, "nothing was scanned", sourceLocation: sourceLocation)
    }

    /// The session only in requests to AM's authorize and sessions endpoints, and nothing at all in
    /// what `others` (other origins) received.
    func expectOnlyAtAM(_ emulator: Emulator, others: [Emulator] = [], sourceLocation: SourceLocation = #_sourceLocation) {
        let sessions = emulator.journeySessions.map(\.tokenId)
        #expect(!sessions.isEmpty, "no session to look for", sourceLocation: sourceLocation)
        for request in emulator.requests where ![.authorize, .sessions].contains(request.kind) {
            let text = Self.text(request)
            for session in sessions {
                #expect(!text.contains(session), "the session went to \(request.path)", sourceLocation: sourceLocation)
            }
        }
        for other in others {
            #expect(!other.requests.isEmpty, "the other origin was not asked", sourceLocation: sourceLocation)
            for request in other.requests {
                let text = Self.text(request)
                for secret in values { #expect(!text.contains(secret), "a secret went to another origin", sourceLocation: sourceLocation) }
            }
        }
    }

    static func text(_ request: RecordedRequest) -> String {
        ([request.path] + request.query.map { "\($0)=\($1)" } + request.form.map { "\($0)=\($1)" }
            + request.headers.map { "\($0): \($1)" } + [request.jsonBody ?? ""]).joined(separator: "\n")
    }
}
