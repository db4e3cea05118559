import PingBase

#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive advisory lock on a file beside the cache (`flock`). The kernel releases it when the
/// process ends, however it ends, so a crash can never leave the cache locked.
///
/// The lock file gets the same gate as a secret file: opened with `O_NOFOLLOW | O_NONBLOCK |
/// O_CLOEXEC` (a symbolic link is refused, never followed to create its target; a FIFO cannot block
/// the open), then `fstat`: a regular file of this user, closed to group and others. The wait is
/// bounded; the holder writes its pid and command into the file so that a waiter that gives up can
/// say who holds it.
public final class FileLock {
    private var descriptor: Int32
    /// What the lock file said when this process took the lock: the last holder's record, with any
    /// note it left (`note`).
    private var previousRecord = ""
    private var recordLength = 0

    /// Waits at most `timeout` seconds (on `clock`) for the lock on `path`, creating the file (0600) if
    /// needed. `subject` (the profile's tokens, a login of it, the OTP store) only goes into the failure,
    /// `holder` ("pingcli token") into the lock file, for a waiter's message.
    public init(
        path: String, timeout: Double, clock: WaitClock = .system, subject: FileFailure.LockSubject, holder: String
    ) throws(FileFailure) {
        guard let opened = try FileSystem.openChecked(path, flags: O_RDWR | O_CREAT, mode: 0o600, protection: .secret) else {
            throw .io(.openLock, path: path, errno: errno)
        }
        descriptor = opened
        let deadline = clock.now() + timeout
        var pause = 0.002
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            if failure == EINTR { continue }
            guard failure == EWOULDBLOCK || failure == EAGAIN else {
                close(descriptor)
                descriptor = -1  // a throwing init still runs deinit: it must not close this number again
                throw .io(.lock, path: path, errno: failure)
            }
            guard clock.now() < deadline else {
                let owner = Self.holder(descriptor)
                close(descriptor)
                descriptor = -1  // deinit runs for a class whose init throws: a second close would hit a reused number
                throw .lockTimedOut(subject, holder: owner, timeout: timeout)
            }
            clock.sleep(pause)
            pause = min(pause * 2, 0.05)
        }
        previousRecord = Self.read(descriptor)
        // Say who holds it: "pid 1234 pingcli token". Nothing secret; a waiter reads it to name us. The
        // last note a holder left stays after it for whoever comes next (`note`).
        let holderLine = Array("pid \(getpid()) \(holder)\n".utf8)
        recordLength = holderLine.count
        let kept = previousRecord.split(separator: "\n").dropFirst().last.map { Array($0.utf8) + [10] } ?? []
        let record = holderLine + kept
        if ftruncate(descriptor, 0) == 0 {
            _ = record.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
    }

    private init(held: ()) { descriptor = -1 }

    /// A lock this process already holds (a sign-in run under the lock its caller took): taking it
    /// again must not wait for ourselves, and releasing it is the caller's business.
    package static func alreadyHeld() -> FileLock { FileLock(held: ()) }

    /// The note the last holders left (`note`), when there is one.
    package var previousNote: LockNote? { LockNote(record: previousRecord) }

    /// A note after the holder's record, replacing the one kept there, for whoever takes the lock later
    /// (`previousNote`; each holder keeps the last note): a failed sign-in, so callers that waited for it
    /// do not start another (`HelperSignIn`). Nothing secret.
    package func note(_ note: LockNote) {
        guard descriptor >= 0, ftruncate(descriptor, off_t(recordLength)) == 0 else { return }
        let bytes = Array("\(note.line)\n".utf8)
        _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(recordLength)) }
    }

    /// The lock file's text (at most 256 bytes).
    private static func read(_ descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
    }

    /// Who the lock file says holds it (its first line), if it says.
    private static func holder(_ descriptor: Int32) -> FileFailure.LockHolder? {
        let line = read(descriptor).prefix { $0 != "\n" }
        let words = line.split(separator: " ")
        guard words.count >= 2, words[0] == "pid", let pid = Int32(words[1]), pid > 0 else { return nil }
        return FileFailure.LockHolder(pid: pid, command: words.dropFirst(2).joined(separator: " "))
    }

    public func unlock() {
        if descriptor >= 0 {
            // LOCK_UN first: closing alone leaves the lock held while a process forked meanwhile still has
            // a copy of the descriptor (until its exec closes it); the test runner forks while other
            // tests lock.
            _ = flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }
    }

    deinit { unlock() }
}

/// What a lock holder leaves in the lock file for the next holders (`FileLock.note`). Its line is
/// written and read here only: a caller sees the case.
package enum LockNote: Equatable, Sendable {
    /// A sign-in under the lock failed at this time (the flow clock's seconds).
    case signInFailed(at: Double)

    private static let signInFailedWord = "sign-in-failed "

    package var line: String {
        switch self {
        case .signInFailed(let time): Self.signInFailedWord + String(time)
        }
    }

    /// The note in a lock file's text (the lines after the holder's record), if it holds one.
    package init?(record: String) {
        for line in record.split(separator: "\n").dropFirst() where line.hasPrefix(Self.signInFailedWord) {
            guard let time = Double(line.dropFirst(Self.signInFailedWord.count)) else { continue }
            self = .signInFailed(at: time)
            return
        }
        return nil
    }
}
