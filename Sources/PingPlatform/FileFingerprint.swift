#if canImport(Glibc)
    import Glibc
#endif

/// What `fstatat` says of a file that tells one version of it from any other: its device and inode,
/// its size, and its modification and change times to the nanosecond (git's index keeps the same to
/// know a file unchanged without reading it). pingcli replaces its files by rename, so each version is a
/// new inode with a new change time; an edit in place changes the change time too, which no program
/// can set back (only a clock turned back could). `missing`: no file at that path.
public struct FileFingerprint: Sendable, Equatable {
    public var device: UInt64
    public var inode: UInt64
    public var size: UInt64
    public var modified: Timestamp
    public var changed: Timestamp

    public struct Timestamp: Sendable, Equatable {
        public var seconds: Int64
        public var nanoseconds: Int64

        public init(seconds: Int64, nanoseconds: Int64) { (self.seconds, self.nanoseconds) = (seconds, nanoseconds) }

        public var value: Double { Double(seconds) + Double(nanoseconds) / 1e9 }
    }

    public init(device: UInt64, inode: UInt64, size: UInt64, modified: Timestamp, changed: Timestamp) {
        (self.device, self.inode, self.size, self.modified, self.changed) = (device, inode, size, modified, changed)
    }

    public static let missing = FileFingerprint(
        device: 0, inode: 0, size: 0, modified: Timestamp(seconds: 0, nanoseconds: 0), changed: Timestamp(seconds: 0, nanoseconds: 0))

    public var isMissing: Bool { self == .missing }

    package init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = UInt64(max(0, info.st_size))
        modified = Timestamp(seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int64(info.st_mtim.tv_nsec))
        changed = Timestamp(seconds: Int64(info.st_ctim.tv_sec), nanoseconds: Int64(info.st_ctim.tv_nsec))
    }

    /// Whether this version was last changed at least `settle` seconds before `now` (both on the
    /// system's real-time clock, which file times follow). A file changed more recently may change again
    /// within the same tick of the file system's clock (a coarse one: a few milliseconds, a second or two
    /// on some file systems) without its fingerprint changing, so only a settled fingerprint may vouch
    /// that a file is what it was when it was read.
    public func isSettled(now: Double, settle: Double) -> Bool {
        isMissing || (changed.value < now - settle && modified.value < now - settle)
    }

    /// The system's real-time clock, in seconds.
    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// A directory judged once by OpenSSH's path rule (`FileSystem.requireSafePath`, with every directory
/// above it) and held open, so that the files under it are looked at by names relative to it: the
/// profiles' directory and the generation records' for `status --all`, whose thousand profiles would
/// otherwise build and judge three long paths each. nil from `init` when the directory is refused or
/// cannot be opened; `missing` when it does not exist (every file under it is then `.missing`).
public final class JudgedDirectory: @unchecked Sendable {
    private let descriptor: Int32

    public init?(_ path: String) {
        var info = stat()
        if lstat(path, &info) != 0 && errno == ENOENT {
            descriptor = -1
            return
        }
        guard (try? FileSystem.requireSafePath(path + "/-")) != nil else { return nil }
        descriptor = path.withCString { open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    public var missing: Bool { descriptor < 0 }

    /// The fingerprint of the file `name` in this directory as it is now (`fingerprints(in:_:)`).
    public func fingerprint(_ name: String, protection: FileSystem.Protection) -> FileFingerprint? {
        guard descriptor >= 0 else { return .missing }
        return Self.path(name, nil) { fingerprint(at: $0, protection: protection) } ?? nil
    }

    /// The fingerprints of the files `names` in the directory `subdirectory` of this one as they are now,
    /// without opening them: `.missing` for a file that is not there, nil when `FileSystem.read` would
    /// refuse one: a symbolic link, not a regular file, another user's, a mode too open for its
    /// protection, or a `subdirectory` that fails OpenSSH's rule (not a directory of this user's or
    /// root's, or writable by group or others). The same tests as a read, on `fstatat`'s answers.
    /// With the files, the fingerprint of `subdirectory` itself, from the `fstatat` that judged it
    /// (`.missing` when it is not there): a name is added to or taken from a directory only by changing
    /// its modification and change times, so while they stay the same a file found absent stays absent.
    public func fingerprints(
        in subdirectory: String, _ names: [(StaticString, FileSystem.Protection)]
    ) -> (directory: FileFingerprint, files: [FileFingerprint])? {
        guard descriptor >= 0 else { return (.missing, names.map { _ in .missing }) }
        // The subdirectory's fingerprint; `.missing` when it is not there; nil: refused.
        let judged = Self.path(subdirectory, nil) { path -> FileFingerprint? in
            var info = stat()
            guard fstatat(descriptor, path, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return errno == ENOENT ? .missing : nil }
            return FileSystem.passesDirectoryRule(info) ? FileFingerprint(info) : nil
        }
        guard let directory = judged ?? nil else { return nil }
        guard !directory.isMissing else { return (.missing, names.map { _ in .missing }) }
        return fingerprints(inJudged: subdirectory, names).map { (directory, $0) }
    }

    /// The files' fingerprints alone, in a `subdirectory` that `fingerprints(in:_:)` judged a moment
    /// before in this run (not judged again).
    public func fingerprints(inJudged subdirectory: String, _ names: [(StaticString, FileSystem.Protection)]) -> [FileFingerprint]? {
        guard descriptor >= 0 else { return names.map { _ in .missing } }
        var found: [FileFingerprint] = []
        found.reserveCapacity(names.count)
        for (name, protection) in names {
            guard let fingerprint = Self.path(subdirectory, name, { fingerprint(at: $0, protection: protection) }) ?? nil else {
                return nil
            }
            found.append(fingerprint)
        }
        return found
    }

    /// `lstat` of the relative `path`, and the tests a read makes of a file.
    private func fingerprint(at path: UnsafePointer<CChar>, protection: FileSystem.Protection) -> FileFingerprint? {
        var info = stat()
        guard fstatat(descriptor, path, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return errno == ENOENT ? .missing : nil }
        return FileSystem.passes(info, protection) ? FileFingerprint(info) : nil
    }

    /// `first/second` (or `first`), NUL-terminated, in a buffer on the stack; nil for a name with a "/" or
    /// a NUL, or too long.
    private static func path<T>(_ first: String, _ second: StaticString?, _ body: (UnsafePointer<CChar>) -> T) -> T? {
        var first = first
        let count = first.utf8.count
        let length = count + (second.map { $0.utf8CodeUnitCount + 1 } ?? 0)
        guard count > 0, length < 256, !first.utf8.contains(UInt8(ascii: "/")), !first.utf8.contains(0) else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length + 1) { buffer -> T in
            let base = buffer.baseAddress!
            first.withUTF8 { UnsafeMutableRawPointer(base).copyMemory(from: $0.baseAddress!, byteCount: count) }
            if let second {
                base[count] = UInt8(ascii: "/")
                UnsafeMutableRawPointer(base + count + 1).copyMemory(from: second.utf8Start, byteCount: second.utf8CodeUnitCount)
            }
            base[length] = 0
            return body(UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self))
        }
    }
}
