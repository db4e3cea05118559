import PingBase
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// Older versions kept a profile's state (the encrypted cache, its lock, the refresh record, the JWK
/// Set) beside `profile.json` under `$XDG_CONFIG_HOME`. It belongs under `$XDG_STATE_HOME` (`Paths`),
/// and is moved there on first use: file by file, each by one `rename(2)` (atomic: the file is in one
/// place or the other, never neither), or, across file systems, by an atomic write of a copy before
/// the old one is removed (a crash in between leaves two readable copies), always under the profile's
/// lock in its new place, so of two processes that start at once one moves and the other finds it moved.
extension TokenStore {
    /// The state files that move, in the order they are moved (the cache last: while it is still in
    /// the old place, a reader that finds no new cache looks there).
    package static let movedStateFiles = ["refresh.state", "jwks.json", "tokens.enc"]

    /// Moves what an older version left of the profile's state in the config directory. The caller
    /// holds the profile's lock (its new file). A file already in the new place wins unless the old one
    /// is newer (written by an older pingcli since): nothing newer is ever dropped.
    package func migrateLegacyState(_ name: ProfileName) throws(PingCLIError) {
        for file in Self.movedStateFiles {
            let legacy = paths.legacyStateFile(name, file)
            FileSystem.removeTemporaryFiles(of: legacy)
            var old = stat()
            guard lstat(legacy, &old) == 0 else { continue }
            // The same gate as a read: a regular file of this user, closed to group and others.
            try FileSystem.checkExisting(legacy, protection: .secret)
            let target = FileSystem.parent(of: paths.tokensFile(name)) + "/" + file
            var new = stat()
            if lstat(target, &new) == 0 && !Self.isNewer(old, than: new) {
                try FileSystem.remove(legacy)  // a copy that a crash left behind, or older than what is here
                continue
            }
            try Self.move(legacy, to: target)
        }
        // Nobody locks the old lock file any more (this version locks the new one).
        try FileSystem.remove(paths.legacyStateFile(name, "tokens.lock"))
    }

    /// Whether an older pingcli is likely to have left state to move: one `lstat` of the old cache's
    /// place. Only called when there is no cache in the new place, so a cache hit costs nothing.
    package func hasLegacyCache(_ name: ProfileName) -> Bool { FileSystem.exists(paths.legacyStateFile(name, "tokens.enc")) }

    /// The profile's cache bytes and the path they came from: the new place, else (the state not yet
    /// moved) moved now if the lock is free, else read where it is. Read new, old, new: a mover
    /// renaming in between cannot make both reads miss.
    package func readCache(_ name: ProfileName) throws(PingCLIError) -> (bytes: [UInt8], path: String)? {
        let path = paths.tokensFile(name)
        if let bytes = try FileSystem.read(path, protection: .secret) { return (bytes, path) }
        // A mover may have renamed it between the read above and this look: read the new place again.
        guard hasLegacyCache(name) else { return try FileSystem.read(path, protection: .secret).map { ($0, path) } }
        var store = self
        store.lockTimeout = 0  // this process may hold it already (nothing to move then); never wait
        do {
            let lock = try store.lock(name)
            lock.unlock()
        } catch  where error.rule == .lockBounded {
            // Someone else holds the lock, and moved it (or is moving it): read wherever it is now.
        }
        let legacy = paths.legacyStateFile(name, "tokens.enc")
        for candidate in [path, legacy, path] {
            if let bytes = try FileSystem.read(candidate, protection: .secret) { return (bytes, candidate) }
        }
        return nil
    }

    private static func isNewer(_ a: stat, than b: stat) -> Bool {
        (a.st_mtim.tv_sec, a.st_mtim.tv_nsec) > (b.st_mtim.tv_sec, b.st_mtim.tv_nsec)
    }

    /// `rename(2)`, or across file systems a durable copy (atomic write) and then the original removed.
    private static func move(_ source: String, to target: String) throws(PingCLIError) {
        if rename(source, target) == 0 {
            FileSystem.syncDirectory(FileSystem.parent(of: target))
            FileSystem.syncDirectory(FileSystem.parent(of: source))
            return
        }
        guard errno == EXDEV else { throw .failure("cannot move \(source) to \(target): \(FileSystem.errnoText())") }
        guard var bytes = try FileSystem.read(source, protection: .secret) else { return }
        defer { FileSystem.wipe(&bytes) }
        try FileSystem.atomicWrite(target, bytes)
        try FileSystem.remove(source)
        FileSystem.syncDirectory(FileSystem.parent(of: source))
    }
}
