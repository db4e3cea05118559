import PingBase
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// The builds of one earlier round kept a profile's cache, refresh record, narrower tokens and JWK Set
/// under `$XDG_STATE_HOME/pingcli/profiles/<name>/`. They belong beside `profile.json` (`Paths`), and are
/// taken from there once: under the profile's lock; only while this machine has recorded no generation
/// for the profile (so never after this version wrote the profile or logged it out); never over a cache
/// this version wrote (a newer record); each file moved by one `rename(2)` (atomic), or across file
/// systems by an atomic write of a copy before the old one is removed; then the old directory is
/// removed. No file times are compared: a copy is taken because of where it is, never because it looks
/// newer.
extension TokenStore {
    /// The state files taken, in this order (the cache last: while it is still in the old place, a
    /// reader that finds no cache beside profile.json looks there).
    package static let movedStateFiles = ["refresh.state", "jwks.json", "targeted-tokens.enc", "tokens.enc"]

    /// Takes what an earlier build left under the state directory, or removes it once this machine
    /// has recorded a generation for the profile. The caller holds the profile's lock.
    package func migrateStateDirectory(_ name: ProfileName) throws(StoreFailure) {
        let directory = paths.legacyStateDirectory(name)
        guard FileSystem.exists(directory) else { return }
        let take = try recordedGeneration(name) == 0
        try passing { () throws(FileFailure) in try takeOrRemove(Self.movedStateFiles, from: directory, of: name, take: take) }
        // The directories, when nothing else is in them (what someone else put there is left alone).
        for path in [directory, paths.stateDirectory + "/profiles", paths.stateDirectory] where rmdir(path) != 0 { break }
    }

    /// Takes (`take`) or removes each of `files` an earlier build left in `directory`, and its lock file.
    private func takeOrRemove(_ files: [String], from directory: String, of name: ProfileName, take: Bool) throws(FileFailure) {
        for file in files {
            let legacy = directory + "/" + file
            FileSystem.removeTemporaryFiles(of: legacy)
            guard FileSystem.exists(legacy) else { continue }
            let target = paths.profileDirectory(name) + "/" + file
            var keepTarget = FileSystem.exists(target)
            if keepTarget && file == "tokens.enc" { keepTarget = try isCurrentFormat(target) }
            if take && !keepTarget {
                // The same gate as a read: a regular file of this user, closed to group and others.
                try FileSystem.checkExisting(legacy, protection: .secret)
                try Self.move(legacy, to: target)
            } else {
                try FileSystem.remove(legacy)
            }
        }
        try FileSystem.remove(directory + "/tokens.lock")
    }

    /// Whether the cache at `path` is of the format this version writes (so written by it: a newer record
    /// than anything an earlier build left).
    private func isCurrentFormat(_ path: String) throws(FileFailure) -> Bool {
        guard let bytes = try FileSystem.read(path, protection: .secret) else { return false }
        return bytes.count > 4 && bytes[4] >= EncryptedTokenFile.version
    }

    /// Whether an earlier build may have left a cache to take: one `lstat`. Only called when there is no
    /// cache beside profile.json, so a cache hit costs nothing.
    package func hasLegacyCache(_ name: ProfileName) -> Bool { FileSystem.exists(paths.legacyStateFile(name, "tokens.enc")) }

    /// The profile's cache bytes and the path they came from: beside profile.json, else (an earlier
    /// build's state not yet taken) taken now if the lock is free, else read where it is while no
    /// generation is recorded. Read new, old, new: a mover renaming in between cannot make both reads miss.
    package func readCache(_ name: ProfileName) throws(StoreFailure) -> (bytes: [UInt8], path: String)? {
        let path = paths.tokensFile(name)
        if let bytes = try passing({ () throws(FileFailure) in try FileSystem.read(path, protection: .secret) }) { return (bytes, path) }
        guard hasLegacyCache(name), try recordedGeneration(name) == 0 else {
            return try passing { () throws(FileFailure) in try FileSystem.read(path, protection: .secret).map { ($0, path) } }
        }
        var store = self
        store.lockTimeout = 0  // this process may hold it already (nothing to move then); never wait
        do {
            let lock = try store.takeLock(name)
            lock.unlock()
        } catch  where error.rule == .lockBounded {
            // Someone else holds the lock, and took it (or is taking it): read wherever it is now.
        }
        let legacy = paths.legacyStateFile(name, "tokens.enc")
        return try passing { () throws(FileFailure) in
            for candidate in [path, legacy, path] {
                if let bytes = try FileSystem.read(candidate, protection: .secret) { return (bytes, candidate) }
            }
            return nil
        }
    }

    /// `rename(2)`, or across file systems a durable copy (atomic write) and then the original removed.
    private static func move(_ source: String, to target: String) throws(FileFailure) {
        if rename(source, target) == 0 {
            FileSystem.syncDirectory(FileSystem.parent(of: target))
            FileSystem.syncDirectory(FileSystem.parent(of: source))
            return
        }
        guard errno == EXDEV else { throw .io(.move(to: target), path: source, errno: errno) }
        guard var bytes = try FileSystem.read(source, protection: .secret) else { return }
        defer { FileSystem.wipe(&bytes) }
        try FileSystem.atomicWrite(target, bytes)
        try FileSystem.remove(source)
        FileSystem.syncDirectory(FileSystem.parent(of: source))
    }
}
