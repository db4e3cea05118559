import PingBase

#if canImport(Glibc)
    import Glibc
#endif

/// Why a file of pingcli's was not used, with the facts only: which path, what was wrong with it (its
/// type, owner or mode, its size), or which call failed with which `errno`. `FileSystem` and `FileLock`
/// throw it; the line the user reads, with its next step ("run chmod 600 …"), is made once in
/// PingFlowCore (`FileFailure.cliError`, `PingFlowCore/FileAdvice.swift`).
public enum FileFailure: Error, Sendable, Equatable {
    /// The system call that failed.
    public enum Operation: Sendable, Equatable {
        /// `mkdir` of a directory on the way to a private one.
        case createDirectory
        /// `stat` of a private directory once made.
        case useDirectory
        /// `realpath` or `stat` of a directory on a file's path (OpenSSH's rule).
        case judgeDirectory
        case open
        case read
        /// `write` of a new file's content.
        case write
        /// `fsync` of a new file (or a short write of one created exclusively).
        case sync
        /// `rename` of a new file over the old one.
        case replace
        /// `link` of a new file into place (created exclusively).
        case create
        /// `mkstemp` of the temporary file beside `path`.
        case createBeside
        case remove
        /// `open` of a lock file.
        case openLock
        /// `flock` of a lock file.
        case lock
        /// `rename` to `target` (an earlier build's state taken).
        case move(to: String)
    }

    /// What a lock guards, for the waiter that gave up.
    public enum LockSubject: Sendable, Equatable {
        /// The profile's tokens (`tokens.lock`).
        case profile(ProfileName)
        /// A running login of the profile (`login.lock`).
        case login(ProfileName)
        /// The OTP store.
        case otpStore
    }

    /// Who the lock file says holds a lock: its pid and the command it wrote.
    public struct LockHolder: Sendable, Equatable {
        public var pid: Int32
        public var command: String
    }

    /// `operation` on `path` failed with `errno`.
    case io(Operation, path: String, errno: Int32)
    /// `path` was to be a directory and is a file of `type`.
    case notDirectory(path: String, FileType)
    /// `path` was to be a regular file and is of `type`.
    case notRegularFile(path: String, FileType)
    /// `path` is a symbolic link (pingcli follows none for its own files).
    case symbolicLink(path: String)
    /// `path` belongs to the user `uid`, not this one.
    case notOwned(path: String, uid: UInt32)
    /// The directory `directory` above `path` belongs to the user `uid`, neither this one nor root.
    case directoryNotOwned(path: String, directory: String, uid: UInt32)
    /// The secret file `path` is open to group or others (`mode`, its permission bits).
    case openToOthers(path: String, mode: UInt32)
    /// Group or others may write the file `path` (`mode`).
    case writableByOthers(path: String, mode: UInt32)
    /// Group or others may write the directory `path` (`mode`).
    case directoryWritableByOthers(path: String, mode: UInt32)
    /// `path` holds more than `limit` bytes.
    case tooLarge(path: String, limit: Int)
    /// The lock on `subject` was held by `holder` (nil: unknown) for longer than `timeout` seconds.
    case lockTimedOut(LockSubject, holder: LockHolder?, timeout: Double)

    /// The rule the failure names (docs/security.md, "Failure rules").
    public var rule: Rule {
        switch self {
        case .io(let operation, _, _):
            switch operation {
            case .createDirectory, .useDirectory, .judgeDirectory: .directoryUnusable
            case .open, .read: .fileRead
            case .write, .sync, .replace, .create, .createBeside, .move: .fileWrite
            case .remove: .fileRemove
            case .openLock, .lock: .lockFile
            }
        case .notDirectory, .notRegularFile: .fileTypeRefused
        case .symbolicLink: .fileSymlinkRefused
        case .notOwned, .directoryNotOwned: .fileOwnerRefused
        case .openToOthers, .writableByOthers, .directoryWritableByOthers: .fileModeRefused
        case .tooLarge: .fileTooLarge
        case .lockTimedOut: .lockBounded
        }
    }
}

/// The type of a file, from its `st_mode`.
public enum FileType: Sendable, Equatable {
    case fifo, directory, device, socket, symbolicLink, regular, special

    public init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFIFO: self = .fifo
        case S_IFDIR: self = .directory
        case S_IFCHR, S_IFBLK: self = .device
        case S_IFSOCK: self = .socket
        case S_IFLNK: self = .symbolicLink
        case S_IFREG: self = .regular
        default: self = .special
        }
    }
}
