#if canImport(Glibc)
    import Glibc
#endif

/// Small, careful file operations: private directories, bounded reads, and atomic durable writes.
public enum FileSystem {
    /// Creates `path` and its missing parents with mode 0700.
    public static func ensurePrivateDirectory(_ path: String) throws(PingCLIError) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw .failure("cannot create directory \(prefix): \(errnoText()): check its parent's permissions")
            }
        }
    }

    /// Reads a whole file of at most `limit` bytes; nil when it does not exist.
    ///
    /// With `secret`, the file and its directory must belong to this user and be closed to group and
    /// others, or pingcli refuses and says which `chmod` to run (as ssh does with private keys): a
    /// secret file that others could read may already have been read, and quietly repairing it would
    /// hide that.
    public static func read(_ path: String, limit: Int = 1 << 20, secret: Bool = false) throws(PingCLIError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw .failure("cannot read \(path): \(errnoText())")
        }
        defer { close(descriptor) }
        if secret {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw .failure("cannot read \(path): \(errnoText())") }
            try requirePrivate(path, info, directory: false)
            let parentPath = parent(of: path)
            guard stat(parentPath, &info) == 0 else { throw .failure("cannot read \(parentPath): \(errnoText())") }
            try requirePrivate(parentPath, info, directory: true)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .failure("cannot read \(path): \(errnoText())")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > limit { throw .failure("\(path) is larger than \(limit) bytes: it is not a pingcli file") }
        }
        Sodium.wipe(&chunk)
        return bytes
    }

    /// Refuses a secret file or directory that another user owns or that group or others can use.
    static func requirePrivate(_ path: String, _ info: stat, directory: Bool) throws(PingCLIError) {
        guard info.st_uid == geteuid() else {
            throw .failure(
                "refusing to use \(path): it belongs to another user (uid \(info.st_uid)): remove it, or run pingcli as its owner")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            let octal = String(mode, radix: 8)
            let kind = directory ? "directory" : "file"
            throw .failure(
                "refusing to use \(path): the \(kind) is open to group or others (mode \(octal)): run chmod \(directory ? "700" : "600") \(path)"
            )
        }
    }

    /// Replaces `path` with `bytes` atomically and durably: a private temporary file beside it is
    /// written, fsynced and renamed over the old one, then the directory is fsynced. A crash at any
    /// point leaves either the old file or the new one, never a mixture.
    ///
    /// `beforeRename` is a test seam: it runs with the temporary file complete but not yet in place.
    public static func atomicWrite(
        _ path: String, _ bytes: [UInt8], mode: mode_t = 0o600, beforeRename: () -> Void = {}
    )
        throws(PingCLIError)
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
                let reason = errnoText()
                close(descriptor)
                throw .failure("cannot write \(path): \(reason): check free space")
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            let reason = errnoText()
            close(descriptor)
            throw .failure("cannot write \(path): \(reason)")
        }
        close(descriptor)
        beforeRename()
        guard rename(temporary, path) == 0 else { throw .failure("cannot replace \(path): \(errnoText())") }
        renamed = true
        syncDirectory(parent(of: path))
    }

    /// Creates `path` with `bytes` only if it does not exist yet, atomically: the content is complete
    /// before the name appears, and of two racing creators exactly one wins. Returns false if it existed.
    public static func createExclusively(_ path: String, _ bytes: [UInt8]) throws(PingCLIError) -> Bool {
        let (descriptor, temporary) = try makeTemporaryFile(beside: path)
        defer { unlink(temporary) }
        let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard count == bytes.count, synced else { throw .failure("cannot write \(path): \(errnoText())") }
        if link(temporary, path) == 0 {
            syncDirectory(parent(of: path))
            return true
        }
        if errno == EEXIST { return false }
        throw .failure("cannot create \(path): \(errnoText())")
    }

    /// A new, private (0600), close-on-exec temporary file in the same directory as `path`.
    static func makeTemporaryFile(beside path: String) throws(PingCLIError) -> (descriptor: Int32, path: String) {
        var template = Array((path + ".tmp-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw .failure("cannot create a file beside \(path): \(errnoText()): check the directory's permissions and free space")
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        fchmod(descriptor, 0o600)
        return (descriptor, String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Removes what `makeTemporaryFile(beside: path)` left behind when a writer was killed.
    static func removeTemporaryFiles(of path: String) {
        let directory = parent(of: path)
        let prefix = String(path.dropFirst(directory.count + 1)) + ".tmp-"
        guard let handle = opendir(directory) else { return }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(prefix) { unlink(directory + "/" + name) }
        }
    }

    /// Removes a file; a missing file is fine.
    public static func remove(_ path: String) throws(PingCLIError) {
        if unlink(path) != 0 && errno != ENOENT { throw .failure("cannot remove \(path): \(errnoText())") }
    }

    /// The directory part of a path.
    public static func parent(of path: String) -> String {
        String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }

    static func syncDirectory(_ path: String) {
        let descriptor = open(path.isEmpty ? "/" : path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// An exclusive advisory lock on a file beside the cache (`flock`). The kernel releases it when the
/// process ends, however it ends, so a crash can never leave the cache locked.
public final class FileLock {
    private var descriptor: Int32

    /// Blocks until the lock on `path` is held, creating the file (0600) if needed.
    public init(path: String) throws(PingCLIError) {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .failure("cannot open lock file \(path): \(FileSystem.errnoText())") }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let reason = FileSystem.errnoText()
            close(descriptor)
            throw .failure("cannot lock \(path): \(reason)")
        }
    }

    public func unlock() {
        if descriptor >= 0 {
            close(descriptor)  // closing releases the flock
            descriptor = -1
        }
    }

    deinit { unlock() }
}
