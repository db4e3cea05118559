import PingBase
import PingCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// `PINGCLI_KEY_COMMAND` (`KeySource.command`): a program that prints the cache key, run with a bound on
/// its time and its output.
package enum KeyCommand {
    /// The most a key command may print: a key is 32 bytes, or 44 in base64.
    package static let outputLimit = 4096

    /// Runs the key command with `/bin/sh -c` in a process group of its own, stdin from /dev/null, its
    /// stderr passed through (for prompts), and decodes what it prints. It gets `timeout` seconds and
    /// 4 KiB of output; past either, its whole process group is killed (a shell's children too).
    package static func run(_ command: String, timeout: Double) throws(KeyCommandFailure) -> [UInt8] {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw .notStarted(reason: FileSystem.errnoText()) }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }  // the child gets the write end as fd 1 only
        // Its own process group, so killing the group reaches everything it started.
        let spawned = Subprocess.spawn(["/bin/sh", "-c", command], standardOutput: pipeEnds[1], ownProcessGroup: true)
        close(pipeEnds[1])
        let pid: pid_t
        switch spawned {
        case .success(let started): pid = started
        case .failure(let error):
            close(pipeEnds[0])
            throw .notStarted(reason: error.reason)
        }
        let deadline = MonotonicClock.now() + timeout
        var output: [UInt8] = []
        defer { Sodium.wipe(&output) }
        let finished = readBounded(pipeEnds[0], into: &output, until: deadline) && output.count <= outputLimit
        let exit = finished ? waitExit(pid, until: deadline) : nil
        // Kill before closing our end, so that nothing in the group writes "Broken pipe" to stderr.
        if exit == nil { kill(-pid, SIGKILL) }
        close(pipeEnds[0])
        guard let status = exit else {
            var ignored: Int32 = 0
            while waitpid(pid, &ignored, 0) < 0 && errno == EINTR {}
            if output.count > outputLimit { throw .outputBounded(limit: outputLimit) }
            throw .timedOut(seconds: timeout)
        }
        guard status == 0 else {
            throw status & 0x7F == 0 ? .exitStatus((status >> 8) & 0xFF) : .signal(status & 0x7F)
        }
        guard let key = decodeKey(output) else {
            throw .notAKey(length: output.count)
        }
        return key
    }

    /// Reads until end of file (true), or until `deadline` or more than the output limit (false).
    private static func readBounded(_ descriptor: Int32, into output: inout [UInt8], until deadline: Double) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1024)
        defer { Sodium.wipe(&chunk) }
        while output.count <= outputLimit {
            let remaining = deadline - MonotonicClock.now()
            if remaining <= 0 { return false }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 && errno != EINTR { return false }
            if ready <= 0 { continue }
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if count <= 0 { return true }
            output.append(contentsOf: chunk[..<count])
        }
        return false
    }

    /// The child's wait status once it exits, or nil if it is still running at `deadline`.
    private static func waitExit(_ pid: pid_t, until deadline: Double) -> Int32? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return status }
            if result < 0 && errno != EINTR { return -1 }
            if MonotonicClock.now() >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// Accepts exactly 32 raw bytes, or (surrounding whitespace ignored) 64 hex digits or the base64 or
    /// base64url text of 32 bytes.
    package static func decodeKey(_ output: [UInt8]) -> [UInt8]? {
        if output.count == Sodium.aeadKeyLength { return output }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard let first = output.firstIndex(where: { !isSpace($0) }), let last = output.lastIndex(where: { !isSpace($0) })
        else { return nil }
        let text = Array(output[first...last])
        if text.count == 64, let bytes = Sodium.hexDecode(text) { return bytes }
        var base64 = text
        while base64.last == UInt8(ascii: "=") { base64.removeLast() }
        let urlSafe = base64.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }
        if let bytes = Base64URL.decode(String(decoding: urlSafe, as: UTF8.self)), bytes.count == Sodium.aeadKeyLength {
            return bytes
        }
        return nil
    }
}

/// Why `PINGCLI_KEY_COMMAND` gave no key (`KeyCommand.run`), worded in PingFlowCore (`StoreAdvice.swift`).
public enum KeyCommandFailure: Error, Sendable, Equatable {
    /// It could not be started (`reason`: the system's words).
    case notStarted(reason: String)
    /// It printed more than `limit` bytes and was stopped.
    case outputBounded(limit: Int)
    /// It ran longer than `seconds` and was stopped.
    case timedOut(seconds: Double)
    /// It ended with this exit status, or by this signal.
    case exitStatus(Int32)
    case signal(Int32)
    /// It printed `length` bytes that are not a key.
    case notAKey(length: Int)

    public var rule: Rule {
        switch self {
        case .notStarted, .notAKey: .keyCommand
        case .outputBounded: .keyCommandOutputBounded
        case .timedOut: .keyCommandTimeout
        case .exitStatus, .signal: .keyCommandStatus
        }
    }
}
