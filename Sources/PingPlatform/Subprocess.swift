#if canImport(Glibc)
    import Glibc
#endif

/// The one way pingcli starts another program (the browser launcher, the key command): `posix_spawnp`,
/// no shell of its own (a caller that wants one names `/bin/sh -c`), standard input from /dev/null,
/// `standardOutput` as its standard output (`standardError` as its standard error, pingcli's own unless
/// given), and pingcli's environment as it is.
package enum Subprocess {
    /// Starts `arguments[0]` (looked up on PATH when it has no slash). `ownProcessGroup` puts it in a new
    /// process group, so `kill(-pid, …)` reaches everything it starts. Returns its pid, or why not.
    package static func spawn(
        _ arguments: [String], standardOutput: Int32, standardError: Int32 = 2, ownProcessGroup: Bool = false
    ) -> Result<pid_t, SpawnError> {
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        if standardError != 2 { posix_spawn_file_actions_adddup2(&actions, standardError, 2) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if ownProcessGroup {
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard status == 0 else { return .failure(SpawnError(code: status)) }
        return .success(pid)
    }

    /// A wait status as a shell shows it: the exit status, or 128 + the signal that ended the process
    /// (`WIFEXITED` and `WEXITSTATUS` are macros Swift cannot import).
    package static func exitCode(waitStatus status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Why a program could not be started (an errno from `posix_spawnp`).
    package struct SpawnError: Error {
        package var code: Int32
        package var reason: String { String(cString: strerror(code)) }
    }
}
