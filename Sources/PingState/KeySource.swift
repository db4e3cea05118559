import PingBase
import PingCrypto
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// Where the 32-byte key that encrypts token caches comes from (`PINGCLI_KEY_STORE`, docs/configuration.md).
///
/// `keyring`: an item in the freedesktop Secret Service, with a copy in the kernel's session keyring
/// (`KeyringKey`). `file`: a random key file, 0600, under the XDG data directory, created on first
/// login. `command`: `PINGCLI_KEY_COMMAND` prints the key (from `pass`, a hardware token…). Unset: the
/// store that already holds the key, and for a first login the Secret Service when one answers on the
/// session bus, else a file (said in one line, never silently).
public enum KeySource: Sendable {
    case file(path: String)
    /// The command, and how many seconds it may take.
    case command(String, timeout: Double)
    /// `PINGCLI_KEY_STORE=keyring`: never a file.
    case keyring(KeyringKey, keyFile: String)
    /// No `PINGCLI_KEY_STORE` and no `PINGCLI_KEY_COMMAND`.
    case automatic(KeyringKey, keyFile: String)

    /// `PINGCLI_KEY_COMMAND_TIMEOUT`'s default, in seconds.
    public static let defaultCommandTimeout = 30.0
    /// The most a key command may print: a key is 32 bytes, or 44 in base64.
    package static let commandOutputLimit = 4096

    /// The store `PINGCLI_KEY_STORE` and `PINGCLI_KEY_COMMAND` choose.
    public init(paths: Paths, environment: Environment) throws(PingCLIError) {
        let command = environment["PINGCLI_KEY_COMMAND"].flatMap { $0.trimmingWhitespace.isEmpty ? nil : $0 }
        let keyring = { KeyringKey(paths: paths, environment: environment) }
        switch environment["PINGCLI_KEY_STORE"]?.trimmingWhitespace ?? "" {
        case "":
            guard let command else {
                self = .automatic(keyring(), keyFile: paths.keyFile)
                return
            }
            self = .command(command, timeout: try Self.commandTimeout(environment))
        case "command":
            guard let command else {
                throw .usage(
                    "PINGCLI_KEY_STORE=command needs PINGCLI_KEY_COMMAND, the command that prints the key: set it, or choose keyring or file",
                    rule: .keyStoreEnv)
            }
            self = .command(command, timeout: try Self.commandTimeout(environment))
        case let store where store == "keyring" || store == "file":
            guard command == nil else {
                throw .usage(
                    "PINGCLI_KEY_STORE=\(store) and PINGCLI_KEY_COMMAND are both set: unset one of them (PINGCLI_KEY_STORE=command goes with the command)",
                    rule: .keyStoreEnv)
            }
            self = store == "file" ? .file(path: paths.keyFile) : .keyring(keyring(), keyFile: paths.keyFile)
        case let other:
            throw .usage(
                "PINGCLI_KEY_STORE must be keyring, file or command, not \"\(displaySafe(other, limit: 20))\"", rule: .keyStoreEnv)
        }
    }

    private static func commandTimeout(_ environment: Environment) throws(PingCLIError) -> Double {
        guard let text = environment["PINGCLI_KEY_COMMAND_TIMEOUT"] else { return defaultCommandTimeout }
        guard let value = Double(text.trimmingWhitespace), value.isFinite, value > 0, value <= 86_400 else {
            throw .usage(
                "PINGCLI_KEY_COMMAND_TIMEOUT must be a number of seconds between 0 and 86400, not \"\(displaySafe(text, limit: 20))\"",
                rule: .keyStoreEnv)
        }
        return value
    }

    /// Reads the key; creates it first (a key file, or a keyring item) when `create` is true and there is none.
    public func load(create: Bool) throws(StoreFailure) -> [UInt8] { try loadResolved(create: create).key }

    package static func loadFile(_ path: String, create: Bool) throws(StoreFailure) -> [UInt8] {
        if let key = try passing({ () throws(FileFailure) in try FileSystem.read(path, limit: 4096, protection: .secret) }) {
            guard key.count == Sodium.aeadKeyLength else { throw .keyFileDamaged(path: path, length: key.count) }
            return key
        }
        // A key in the Secret Service (keyring-item) is never replaced by a new file.
        if FileSystem.exists(FileSystem.parent(of: path) + "/keyring-item") { throw .keyInSecretService }
        guard create else { throw .keyFileMissing(path: path) }
        let fresh = Sodium.randomBytes(Sodium.aeadKeyLength)
        // Two first logins at once: exactly one key wins, and both use it.
        let created = try passing { () throws(FileFailure) in
            try FileSystem.ensurePrivateDirectory(FileSystem.parent(of: path))
            return try FileSystem.createExclusively(path, fresh)
        }
        if created { return fresh }
        return try loadFile(path, create: false)
    }

    /// Runs the key command with `/bin/sh -c` in a process group of its own, stdin from /dev/null, its
    /// stderr passed through (for prompts), and decodes what it prints. It gets `timeout` seconds and
    /// 4 KiB of output; past either, its whole process group is killed (a shell's children too).
    package static func run(_ command: String, timeout: Double) throws(KeyCommandFailure) -> [UInt8] {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw .notStarted(reason: FileSystem.errnoText()) }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }  // the child gets the write end as fd 1 only
        // Its own process group, so killing the group reaches everything it started.
        let spawned = Subprocess.spawn(["/bin/sh", "-c", command], standardOutput: pipeEnds[1], ownProcessGroup: true)
        close(pipeEnds[1])
        let pid: pid_t
        switch spawned {
        case .success(let started): pid = started
        case .failure(let error):
            close(pipeEnds[0])
            throw .notStarted(reason: error.reason)
        }
        let deadline = MonotonicClock.now() + timeout
        var output: [UInt8] = []
        defer { Sodium.wipe(&output) }
        let finished = readBounded(pipeEnds[0], into: &output, until: deadline) && output.count <= commandOutputLimit
        let exit = finished ? waitExit(pid, until: deadline) : nil
        // Kill before closing our end, so that nothing in the group writes "Broken pipe" to stderr.
        if exit == nil { kill(-pid, SIGKILL) }
        close(pipeEnds[0])
        guard let status = exit else {
            var ignored: Int32 = 0
            while waitpid(pid, &ignored, 0) < 0 && errno == EINTR {}
            if output.count > commandOutputLimit { throw .outputBounded(limit: commandOutputLimit) }
            throw .timedOut(seconds: timeout)
        }
        guard status == 0 else {
            throw status & 0x7F == 0 ? .exitStatus((status >> 8) & 0xFF) : .signal(status & 0x7F)
        }
        guard let key = decodeKey(output) else {
            throw .notAKey(length: output.count)
        }
        return key
    }

    /// Reads until end of file (true), or until `deadline` or more than the output limit (false).
    private static func readBounded(_ descriptor: Int32, into output: inout [UInt8], until deadline: Double) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1024)
        defer { Sodium.wipe(&chunk) }
        while output.count <= commandOutputLimit {
            let remaining = deadline - MonotonicClock.now()
            if remaining <= 0 { return false }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 && errno != EINTR { return false }
            if ready <= 0 { continue }
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if count <= 0 { return true }
            output.append(contentsOf: chunk[..<count])
        }
        return false
    }

    /// The child's wait status once it exits, or nil if it is still running at `deadline`.
    private static func waitExit(_ pid: pid_t, until deadline: Double) -> Int32? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return status }
            if result < 0 && errno != EINTR { return -1 }
            if MonotonicClock.now() >= deadline { return nil }
            usleep(5_000)
        }
    }

    package static func describeSeconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// Accepts exactly 32 raw bytes, or (surrounding whitespace ignored) 64 hex digits or the base64 or
    /// base64url text of 32 bytes.
    package static func decodeKey(_ output: [UInt8]) -> [UInt8]? {
        if output.count == Sodium.aeadKeyLength { return output }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard let first = output.firstIndex(where: { !isSpace($0) }), let last = output.lastIndex(where: { !isSpace($0) })
        else { return nil }
        let text = Array(output[first...last])
        if text.count == 64, let bytes = Sodium.hexDecode(text) { return bytes }
        var base64 = text
        while base64.last == UInt8(ascii: "=") { base64.removeLast() }
        let urlSafe = base64.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }
        if let bytes = Base64URL.decode(String(decoding: urlSafe, as: UTF8.self)), bytes.count == Sodium.aeadKeyLength {
            return bytes
        }
        return nil
    }
}

/// The key one command uses: loaded at most once, at the start, before any lock is taken (so a slow
/// key command never runs while the profile is locked), and wiped when the command is done. Safe to
/// share between threads (`status --all` reads profiles on several): the first caller loads the key
/// and the others wait for it.
public final class CommandKey: @unchecked Sendable {
    public let source: KeySource
    private var key: [UInt8] = []
    private var failure: StoreFailure?
    /// Once the key is loaded: the store that held it, and for a key made just now the line that says
    /// where it went and why (login prints it).
    public private(set) var store: KeyStoreKind?
    public private(set) var notice: String?
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init(source: KeySource) {
        self.source = source
        pthread_mutex_init(mutex, nil)
    }

    /// The key, loading it on first use. A failure is remembered too, so the key command runs once.
    /// `create` makes a missing key file (login).
    public func load(create: Bool = false) throws(StoreFailure) -> [UInt8] {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if !key.isEmpty { return key }
        // Only a missing key file is worth a second try (creating it); a key command ran once already.
        if let failure, !create || !canCreate { throw failure }
        do {
            (key, store, notice) = try source.loadResolved(create: create)
            failure = nil
            return key
        } catch {
            failure = error
            throw error
        }
    }

    private var canCreate: Bool {
        if case .command = source { return false }
        return true
    }

    deinit {
        Sodium.wipe(&key)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
}

/// Why `PINGCLI_KEY_COMMAND` gave no key (`KeySource.run`), worded in PingFlowCore (`StoreAdvice.swift`).
public enum KeyCommandFailure: Error, Sendable, Equatable {
    /// It could not be started (`reason`: the system's words).
    case notStarted(reason: String)
    /// It printed more than `limit` bytes and was stopped.
    case outputBounded(limit: Int)
    /// It ran longer than `seconds` and was stopped.
    case timedOut(seconds: Double)
    /// It ended with this exit status, or by this signal.
    case exitStatus(Int32)
    case signal(Int32)
    /// It printed `length` bytes that are not a key.
    case notAKey(length: Int)

    public var rule: Rule {
        switch self {
        case .notStarted, .notAKey: .keyCommand
        case .outputBounded: .keyCommandOutputBounded
        case .timedOut: .keyCommandTimeout
        case .exitStatus, .signal: .keyCommandStatus
        }
    }
}
