import PingBase
import PingFlowCore
import PingPlatform
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// One login of a profile at a time, and nothing left behind by one that fails or is cancelled.
///
/// A second `pingcli login` of a profile while one runs refuses in one line: two would each open a tab,
/// and the provider would keep the refresh token of the one whose save lost. A login that fails, or is
/// ended by Ctrl-C, SIGTERM or SIGHUP, removes the profile directories it created (while still empty).
package struct LoginAttempt {
    private let lock: FileLock
    private let lockPath: String
    /// The directories this login created, deepest last.
    private let created: [String]
    /// Whether this attempt armed the signal cleanup (the first of a process does; in-process tests run
    /// several logins at once, and only one set of paths can be armed).
    private let armed: Bool

    package static func begin(_ name: ProfileName, store: TokenStore) throws(PingCLIError) -> LoginAttempt {
        let directory = store.paths.profileDirectory(name)
        let created = [directory].filter { !FileSystem.exists($0) }
        try FileAdvice.worded(try FileSystem.ensurePrivateDirectory(directory))
        let lockPath = store.paths.loginLockFile(name)
        let lock: FileLock
        do {
            lock = try FileLock(
                path: lockPath, timeout: 0, subject: .login(name), holder: "pingcli login")
        } catch {
            // The other login owns the directories; only what this one made (nothing, usually) goes.
            for directory in created.reversed() { rmdir(directory) }
            throw error.cliError
        }
        let armed = CancelCleanup.arm(lockFile: lockPath, directories: created)
        return LoginAttempt(lock: lock, lockPath: lockPath, created: created, armed: armed)
    }

    /// The login is over: the lock file goes (a login that starts now makes a new one), and after a
    /// failure the directories this login created (rmdir removes only an empty one: nothing written by
    /// anyone else is lost).
    package func end(succeeded: Bool) {
        if armed { CancelCleanup.disarm() }
        unlink(lockPath)
        if !succeeded { for directory in created.reversed() { rmdir(directory) } }
        lock.unlock()
    }
}

/// What a signal that ends a login removes: C strings made before the signal can come, read by the
/// handler with nothing but unlink(2) and rmdir(2), which are async-signal-safe.
private enum CancelCleanup {
    /// Serialises arming and disarming; the handler only reads what arming finished writing.
    nonisolated(unsafe) static let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        return mutex
    }()
    nonisolated(unsafe) static var buffer = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 4)
    nonisolated(unsafe) static var count = 0

    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Arms the cleanup for these paths unless another login of this process already did; returns
    /// whether it armed (then `disarm` frees the paths).
    static func arm(lockFile: String, directories: [String]) -> Bool {
        guard !directories.isEmpty else { return false }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard count == 0 else { return false }
        let all = ([lockFile] + directories.reversed()).prefix(4)
        for (index, path) in all.enumerated() { buffer[index] = strdup(path) }
        count = all.count
        for signal in signals { _ = Glibc.signal(signal, handler) }
        return true
    }

    static func disarm() {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard count > 0 else { return }
        for signal in signals { _ = Glibc.signal(signal, SIG_DFL) }
        let armed = count
        count = 0
        for index in 0..<armed {
            free(buffer[index])
            buffer[index] = nil
        }
    }

    /// Removes the lock file and the empty directories, then dies of the same signal (exit 130 for Ctrl-C).
    static let handler: @convention(c) (Int32) -> Void = { signal in
        if CancelCleanup.count > 0, let lockFile = CancelCleanup.buffer[0] { unlink(lockFile) }
        var index = 1
        while index < CancelCleanup.count {
            if let directory = CancelCleanup.buffer[index] { rmdir(directory) }
            index += 1
        }
        _ = Glibc.signal(signal, SIG_DFL)
        raise(signal)
    }
}
