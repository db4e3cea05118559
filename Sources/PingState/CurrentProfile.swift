import PingBase
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

extension Paths {
    /// The profile `pingcli profiles use` chose: one name and a newline.
    public var currentProfileFile: String { configDirectory + "/current-profile" }
}

extension TokenStore {
    /// The profile `profiles use` chose, or nil when none was chosen. The file goes through the same
    /// gate as `profile.json` (this user's regular file, not writable by others), at most 1 KiB, and
    /// must hold a valid profile name.
    public func readCurrentProfile() throws(StoreFailure) -> ProfileName? {
        let path = paths.currentProfileFile
        guard let bytes = try passing({ () throws(FileFailure) in try FileSystem.read(path, limit: 1024, protection: .owned) }) else {
            return nil
        }
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        do {
            return try ProfileName(text)
        } catch {
            throw .currentProfileDamaged(path: path)
        }
    }

    /// Makes `name` the current profile, or forgets the choice when nil.
    public func setCurrentProfile(_ name: ProfileName?) throws(FileFailure) {
        guard let name else { return try FileSystem.remove(paths.currentProfileFile) }
        try FileSystem.ensurePrivateDirectory(paths.configDirectory)
        try FileSystem.atomicWrite(paths.currentProfileFile, Array((name.value + "\n").utf8))
    }

    /// Whether the profile has a directory (settings, tokens or both).
    public func profileExists(_ name: ProfileName) -> Bool {
        var info = stat()
        return lstat(paths.profileDirectory(name), &info) == 0
    }

    /// Removes a profile's tokens, refresh record and settings under its lock, then its lock file and
    /// directory. Anything else left in the directory (put there by someone else) is kept and named.
    public func deleteProfile(_ name: ProfileName) throws(StoreFailure) {
        let lock = try takeLock(name)
        try removeFiles(of: name, unlocking: lock)
    }

    /// What `deleteProfile` removes once it holds the lock.
    private func removeFiles(of name: ProfileName, unlocking lock: FileLock) throws(StoreFailure) {
        try passing { () throws(FileFailure) in
            try removeTokens(name)
            // The status index holds the profile's line (its account, issuer): the next table makes a new one.
            try? FileSystem.remove(paths.statusIndexFile)
            try FileSystem.remove(paths.profileFile(name))
            try FileSystem.remove(paths.jwksFile(name))
            FileSystem.removeTemporaryFiles(of: paths.jwksFile(name))
            FileSystem.removeTemporaryFiles(of: paths.tokensFile(name))
            FileSystem.removeTemporaryFiles(of: paths.profileFile(name))
            lock.unlock()
            try FileSystem.remove(paths.lockFile(name))
            try FileSystem.remove(paths.loginLockFile(name))
        }
        for directory in [paths.profileDirectory(name)] where rmdir(directory) != 0 && errno != ENOENT {
            throw .profileDirectoryKept(profile: name, directory: directory, errno: errno)
        }
    }
}
