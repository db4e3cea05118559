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

    /// Why `PINGCLI_KEY_STORE`, `PINGCLI_KEY_COMMAND` and `PINGCLI_KEY_COMMAND_TIMEOUT` choose no store
    /// (rule key-store-env; worded in PingFlowCore, `StoreAdvice.swift`).
    public enum SettingRefused: Error, Sendable, Equatable {
        /// `PINGCLI_KEY_STORE=command` without `PINGCLI_KEY_COMMAND`.
        case commandMissing
        /// `PINGCLI_KEY_STORE=store` (keyring or file) with `PINGCLI_KEY_COMMAND` set too.
        case commandAndStore(store: String)
        /// `PINGCLI_KEY_STORE` is none of keyring, file or command.
        case unknownStore(String)
        /// `PINGCLI_KEY_COMMAND_TIMEOUT` is not a number of seconds in (0, 86400].
        case timeoutRefused(String)
    }

    /// The store `PINGCLI_KEY_STORE` and `PINGCLI_KEY_COMMAND` choose.
    public init(paths: Paths, environment: Environment) throws(SettingRefused) {
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
            guard let command else { throw .commandMissing }
            self = .command(command, timeout: try Self.commandTimeout(environment))
        case let store where store == "keyring" || store == "file":
            guard command == nil else { throw .commandAndStore(store: store) }
            self = store == "file" ? .file(path: paths.keyFile) : .keyring(keyring(), keyFile: paths.keyFile)
        case let other: throw .unknownStore(other)
        }
    }

    private static func commandTimeout(_ environment: Environment) throws(SettingRefused) -> Double {
        guard let text = environment["PINGCLI_KEY_COMMAND_TIMEOUT"] else { return defaultCommandTimeout }
        guard let value = Double(text.trimmingWhitespace), value.isFinite, value > 0, value <= 86_400 else {
            throw .timeoutRefused(text)
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
