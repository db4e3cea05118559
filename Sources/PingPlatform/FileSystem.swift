import CPlatform
import PingBase
import PingCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// Small, careful file operations: private directories, bounded reads, and atomic durable writes.
public enum FileSystem {
    /// Creates `path` and its missing parents with mode 0700, and refuses a final directory that is not
    /// a directory, belongs to another user or that group or others may write (OpenSSH's rule: 0755 is
    /// fine, the files in it are 0600). A symbolic link to a directory (a key directory on another
    /// volume) is judged by its target; the directories above are judged when a file in it is read.
    public static func ensurePrivateDirectory(_ path: String) throws(FileFailure) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw .io(.createDirectory, path: prefix, errno: errno)
            }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw .io(.useDirectory, path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .notDirectory(path: path, FileType(mode: info.st_mode))
        }
        try requireOwner(path, info)
        try requireUnwritableByOthers(path, info)
    }

    /// How much a file must be protected before pingcli reads it.
    public enum Protection: Sendable {
        /// A key, a token cache, the refresh record, a client secret: this user's and closed to group and
        /// others, on a path no one else may write (`requireSafePath`).
        case secret
        /// `profile.json`, a CA file: this user's and not writable by group or others (it decides where
        /// tokens go), on a path no one else may write.
        case owned
    }

    /// Whether a file's `stat` passes what `openChecked` asks of `protection` (a regular file of this
    /// user's, closed to group and others for a secret, not writable by them otherwise), without wording
    /// why not: for `status --all`'s look at files it does not open (`JudgedDirectory`).
    package static func passes(_ info: stat, _ protection: Protection) -> Bool {
        guard info.st_mode & S_IFMT == S_IFREG, info.st_uid == effectiveUser else { return false }
        switch protection {
        case .secret: return info.st_mode & 0o077 == 0
        case .owned: return info.st_mode & 0o022 == 0
        }
    }

    /// Reads a whole file of at most `limit` bytes; nil when it does not exist.
    ///
    /// The file is opened with `O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC` and checked with `fstat` before a
    /// byte is read: a symbolic link, a FIFO, a device or a directory is refused (a FIFO would block a
    /// plain open for ever), and so is a file of another user. A secret file must also be closed to
    /// group and others, and no directory on its path writable by them (OpenSSH's rule), or pingcli
    /// refuses and says which `chmod` to run: a secret that others could read may already have been
    /// read, and quietly repairing it would hide that.
    public static func read(_ path: String, limit: Int = 1 << 20, protection: Protection = .owned) throws(FileFailure) -> [UInt8]? {
        guard let (descriptor, size) = try openCheckedSized(path, flags: O_RDONLY, protection: protection) else { return nil }
        defer { close(descriptor) }
        // Read straight into the array returned, sized by fstat (one more byte, to see the end), never
        // beyond one byte over the limit: no second buffer to copy from and wipe. A file that grows
        // meanwhile gets a larger array; the one it outgrew is wiped.
        var bytes = [UInt8](repeating: 0, count: min(size, limit) + 1)
        var filled = 0
        while true {
            if filled == bytes.count {
                var larger = [UInt8](repeating: 0, count: min(bytes.count + max(bytes.count, 16 * 1024), limit + 1))
                larger.withUnsafeMutableBufferPointer { target in
                    bytes.withUnsafeBufferPointer { _ = memcpy(target.baseAddress!, $0.baseAddress!, filled) }
                }
                wipe(&bytes)
                bytes = larger
            }
            let requested = bytes.count - filled
            let count = bytes.withUnsafeMutableBufferPointer { Glibc.read(descriptor, $0.baseAddress! + filled, requested) }
            if count < 0 {
                if errno == EINTR { continue }
                wipe(&bytes)
                throw .io(.read, path: path, errno: errno)
            }
            if count == 0 { break }
            filled += count
            if filled > limit {
                wipe(&bytes)
                throw .tooLarge(path: path, limit: limit)
            }
            // All the bytes fstat counted, then fewer than asked for: the end of this regular file, without
            // one more call to learn so (pingcli replaces its files by rename and never appends to them).
            if filled >= size && count < requested { break }
        }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }

    /// Refuses an existing file that `read(path, protection:)` would refuse; a missing file is fine.
    public static func checkExisting(_ path: String, protection: Protection) throws(FileFailure) {
        if let descriptor = try openChecked(path, flags: O_RDONLY, protection: protection) { close(descriptor) }
    }

    /// Opens `path` without following a final symbolic link and without blocking, then checks with
    /// `fstat` that it is a regular file with the protection asked for. nil when it does not exist
    /// (and `flags` has no `O_CREAT`).
    package static func openChecked(
        _ path: String, flags: Int32, mode: mode_t = 0o600, protection: Protection
    ) throws(FileFailure)
        -> Int32?
    {
        try openCheckedSized(path, flags: flags, mode: mode, protection: protection)?.descriptor
    }

    /// `openChecked`, with the file's size as `fstat` gave it.
    package static func openCheckedSized(
        _ path: String, flags: Int32, mode: mode_t = 0o600, protection: Protection
    ) throws(FileFailure)
        -> (descriptor: Int32, size: Int)?
    {
        let descriptor = path.withCString { open($0, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode) }
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            if errno == ELOOP {
                throw .symbolicLink(path: path)
            }
            throw .io(.open, path: path, errno: errno)
        }
        let size: Int
        do throws(FileFailure) {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw .io(.read, path: path, errno: errno) }
            size = Int(info.st_size)
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw .notRegularFile(path: path, FileType(mode: info.st_mode))
            }
            switch protection {
            case .secret:
                try requirePrivate(path, info)
            case .owned:
                try requireOwner(path, info)
                guard info.st_mode & 0o022 == 0 else {
                    throw .writableByOthers(path: path, mode: info.st_mode & 0o777)
                }
            }
            try requireSafePath(path)
        } catch {
            close(descriptor)
            // Opened, then its directory went away before it was judged (another pingcli moved the file
            // and removed the directory): the file is no longer there, and nothing of it is used.
            if case .io(.judgeDirectory, _, _) = error, !exists(directoryToJudge(path)) { return nil }
            throw error
        }
        return (descriptor, size)
    }

    /// This process's effective user, asked once: pingcli never changes it, and `status --all` checks
    /// three files of every profile. Read from the auxiliary vector the kernel started the program with
    /// (AT_EUID), which is `geteuid()` without a system call.
    package static let effectiveUser = pingcli_effective_user()

    package static func requireOwner(_ path: String, _ info: stat) throws(FileFailure) {
        guard info.st_uid == effectiveUser else {
            throw .notOwned(path: path, uid: info.st_uid)
        }
    }

    /// Refuses a secret file that another user owns or that group or others may use.
    package static func requirePrivate(_ path: String, _ info: stat) throws(FileFailure) {
        try requireOwner(path, info)
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw .openToOthers(path: path, mode: mode)
        }
    }

    /// Refuses a directory that group or others may write.
    package static func requireUnwritableByOthers(_ path: String, _ info: stat) throws(FileFailure) {
        let mode = info.st_mode & 0o777
        guard mode & 0o022 == 0 else {
            throw .directoryWritableByOthers(path: path, mode: mode)
        }
    }

    /// Overwrites a buffer that held file content (`sodium_memzero` lives behind `Sodium`).
    package static func wipe(_ bytes: inout [UInt8]) { Sodium.wipe(&bytes) }

    /// Replaces `path` with `bytes` atomically and durably: a private temporary file beside it is
    /// written, fsynced and renamed over the old one, then the directory is fsynced. A crash at any
    /// point leaves either the old file or the new one, never a mixture.
    ///
    /// `check` sees the complete temporary file (its path) before it replaces `path`, and may refuse it by
    /// returning false (the caller keeps why): then nothing is replaced. `beforeRename` is a test seam: it runs with the temporary file complete but not yet in place.
    /// `durable` false skips both fsyncs, for a file that is only a copy of others (the status summary):
    /// after a crash it may be empty or old, never a mixture of two, and its reader must check it.
    public static func atomicWrite(
        _ path: String, _ bytes: [UInt8], mode: mode_t = 0o600, durable: Bool = true,
        check: (String) -> Bool = { _ in true }, beforeRename: () -> Void = {}
    )
        throws(FileFailure)
    {
        let (descriptor, temporary) = try makeTemporaryFile(beside: path)
        var renamed = false
        defer {
            if !renamed { unlink(temporary) }
        }
        fchmod(descriptor, mode)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = errno
                close(descriptor)
                throw .io(.write, path: path, errno: reason)
            }
            written += count
        }
        guard !durable || fsync(descriptor) == 0 else {
            let reason = errno
            close(descriptor)
            throw .io(.sync, path: path, errno: reason)
        }
        close(descriptor)
        guard check(temporary) else { return }
        beforeRename()
        guard rename(temporary, path) == 0 else { throw .io(.replace, path: path, errno: errno) }
        renamed = true
        if durable { syncDirectory(parent(of: path)) }
    }

    /// Creates `path` with `bytes` only if it does not exist yet, atomically: the content is complete
    /// before the name appears, and of two racing creators exactly one wins. Returns false if it existed.
    public static func createExclusively(_ path: String, _ bytes: [UInt8]) throws(FileFailure) -> Bool {
        let (descriptor, temporary) = try makeTemporaryFile(beside: path)
        defer { unlink(temporary) }
        let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard count == bytes.count, synced else { throw .io(.sync, path: path, errno: errno) }
        if link(temporary, path) == 0 {
            syncDirectory(parent(of: path))
            return true
        }
        if errno == EEXIST { return false }
        throw .io(.create, path: path, errno: errno)
    }

    /// A new, private (0600), close-on-exec temporary file in the same directory as `path`.
    package static func makeTemporaryFile(beside path: String) throws(FileFailure) -> (descriptor: Int32, path: String) {
        var template = Array((path + ".tmp-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw .io(.createBeside, path: path, errno: errno)
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        fchmod(descriptor, 0o600)
        return (descriptor, String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Removes what `makeTemporaryFile(beside: path)` left behind when a writer was killed. `olderThan`:
    /// only files last changed that many seconds ago or more (for a file written without a lock, whose
    /// other writers may be writing theirs now).
    package static func removeTemporaryFiles(of path: String, olderThan age: Double? = nil) {
        let directory = parent(of: path)
        let prefix = String(path.dropFirst(directory.count + 1)) + ".tmp-"
        guard let handle = opendir(directory) else { return }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix(prefix) else { continue }
            var info = stat()
            if let age, lstat(directory + "/" + name, &info) != 0 || Double(info.st_mtim.tv_sec) > FileFingerprint.now() - age { continue }
            unlink(directory + "/" + name)
        }
    }

    /// Whether anything (a file, a link, a directory) is at `path`.
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Removes a file; a missing file is fine.
    public static func remove(_ path: String) throws(FileFailure) {
        if unlink(path) != 0 && errno != ENOENT { throw .io(.remove, path: path, errno: errno) }
    }

    /// The directory part of a path: what is before its last "/" (nothing when it has none).
    public static func parent(of path: String) -> String {
        // Found among the bytes: a "/" with ASCII on both sides is a Character of its own. Next to a
        // byte beyond ASCII it could be part of a grapheme cluster, so that rare case asks the Characters.
        let bytes = path.utf8
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        let after = bytes.index(after: slash)
        guard slash == bytes.startIndex || bytes[bytes.index(before: slash)] < 0x80, after == bytes.endIndex || bytes[after] < 0x80 else {
            return String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        }
        return String(path[..<slash])
    }

    package static func syncDirectory(_ path: String) {
        let descriptor = open(path.isEmpty ? "/" : path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
    }

    package static func errnoText() -> String { String(cString: strerror(errno)) }
}
