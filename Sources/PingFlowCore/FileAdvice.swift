import PingBase
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// Where a failure of a file gets its words: `FileSystem` and `FileLock` throw `FileFailure` with the
/// facts (which path, what was wrong, which call failed), and this is the one place that turns it into
/// the line the user reads, with its rule, its exit status and the next step ("run chmod 600 …").
extension FileFailure {
    package var cliError: PingCLIError { PingCLIError(.failure, message, rule: rule) }

    /// One line: what was refused or failed, and what to do next.
    package var message: String {
        switch self {
        case .io(let operation, let path, let code): Self.message(operation, path, Self.text(code))
        case .notDirectory(let path, let type):
            "refusing to use \(path): it is \(type.phrase), not a directory: remove it, or use another profile"
        case .notRegularFile(let path, let type): "refusing to use \(path): it is \(type.phrase), not a regular file: remove it"
        case .symbolicLink(let path):
            "refusing to use \(path): it is a symbolic link, and pingcli follows none for its own files: replace it with the file itself, or remove it"
        case .notOwned(let path, let uid):
            "refusing to use \(path): it belongs to another user (uid \(uid)): remove it, or run pingcli as its owner"
        case .directoryNotOwned(let path, let directory, let uid):
            "refusing to use \(path): the directory \(directory) belongs to another user (uid \(uid)), who could replace it: move it to a directory of yours"
        case .openToOthers(let path, let mode):
            "refusing to use \(path): the file is open to group or others (mode \(String(mode, radix: 8))): run chmod 600 \(path)"
        case .writableByOthers(let path, let mode):
            "refusing to use \(path): group or others may write it (mode \(String(mode, radix: 8))): run chmod 600 \(path)"
        case .directoryWritableByOthers(let path, let mode):
            "refusing to use \(path): group or others may write the directory (mode \(String(mode, radix: 8))) and replace what is in it: run chmod go-w \(path)"
        case .tooLarge(let path, let limit): "\(path) is larger than \(limit) bytes: it is not a pingcli file"
        case .lockTimedOut(let subject, let holder, let timeout): Self.message(subject, holder, timeout)
        }
    }

    private static func message(_ operation: Operation, _ path: String, _ reason: String) -> String {
        switch operation {
        case .createDirectory: "cannot create directory \(path): \(reason): check its parent's permissions"
        case .useDirectory: "cannot use directory \(path): \(reason)"
        case .judgeDirectory: "cannot use \(path): \(reason)"
        case .open: "cannot open \(path): \(reason)"
        case .read: "cannot read \(path): \(reason)"
        case .write: "cannot write \(path): \(reason): check free space"
        case .sync: "cannot write \(path): \(reason)"
        case .replace: "cannot replace \(path): \(reason)"
        case .create: "cannot create \(path): \(reason)"
        case .createBeside: "cannot create a file beside \(path): \(reason): check the directory's permissions and free space"
        case .remove: "cannot remove \(path): \(reason)"
        case .openLock: "cannot open lock file \(path): \(reason)"
        case .lock: "cannot lock \(path): \(reason)"
        case .move(let target): "cannot move \(path) to \(target): \(reason)"
        }
    }

    /// The waiter's line: what is locked, by whom, and what to do about a holder that is stuck.
    private static func message(_ subject: LockSubject, _ holder: LockHolder?, _ timeout: Double) -> String {
        let owner: String
        let advice: String
        if let holder {
            owner = "pid \(holder.pid)" + (holder.command.isEmpty ? "" : " (\(displaySafe(holder.command, limit: 60)))")
            advice = "if it is stuck, end it (kill \(holder.pid))"
        } else {
            (owner, advice) = ("another process", "if a pingcli process is stuck, end it")
        }
        switch subject {
        case .login(let profile): return "another pingcli login of profile \"\(profile)\" is running (\(owner)): \(advice), then try again"
        case .profile(let profile):
            return "profile \"\(profile)\" is locked by \(owner) for more than \(Int(timeout)) s: \(advice), then try again"
        case .otpStore: return "the OTP store is locked by \(owner) for more than \(Int(timeout)) s: \(advice), then try again"
        }
    }

    /// The system's words for `errno` `code` ("Permission denied").
    private static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}

extension Paths.HomeMissing {
    package var cliError: PingCLIError {
        .failure("neither \(variable) nor HOME is set to an absolute path: set HOME", rule: .homeMissing)
    }
}

extension ProfileName.Refused {
    package var cliError: PingCLIError {
        .usage(
            "profile name \"\(displaySafe(text, limit: 70))\" is not allowed: use 1-64 letters, digits, '.', '_' or '-', not starting with '.'",
            rule: .profileNameGate)
    }
}

extension FileType {
    /// "a FIFO (named pipe)", "a directory", … for a refusal.
    package var phrase: String {
        switch self {
        case .fifo: "a FIFO (named pipe)"
        case .directory: "a directory"
        case .device: "a device"
        case .socket: "a socket"
        case .symbolicLink: "a symbolic link"
        case .regular: "a regular file"
        case .special: "a special file"
        }
    }
}

package enum FileAdvice {
    /// Runs file steps for a caller that words its failures now (a command, a flow): a `FileFailure`
    /// becomes its line (`FileFailure.cliError`).
    @inlinable
    package static func worded<T>(_ body: @autoclosure () throws(FileFailure) -> T) throws(PingCLIError) -> T {
        do { return try body() } catch { throw error.cliError }
    }
}
