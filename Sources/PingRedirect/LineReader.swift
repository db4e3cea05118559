import PingCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// Lines arriving on a descriptor (standard input), read only after `poll()` says bytes are there, so
/// the loopback listener never blocks on them. The descriptor's flags are left alone: a terminal's
/// open file is shared with the shell, which must not find it non-blocking afterwards.
package final class LineReader {
    package let descriptor: Int32
    private var pending: [UInt8] = []
    private var skippingLongLine = false
    /// True once the other end closed (Ctrl-D, /dev/null, the end of a pipe) or reading failed.
    package private(set) var atEnd = false

    /// Longer lines are dropped (a callback address is a few hundred bytes).
    package static let maximumLineBytes = 8 * 1024

    package enum Event: Equatable {
        case line(String)
        case tooLong
    }

    package init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { Sodium.wipe(&pending) }

    /// False while reading would stop the process: a terminal whose foreground is another process group
    /// (`pingcli login &`) answers a read with SIGTTIN.
    package var mayRead: Bool {
        !atEnd && (isatty(descriptor) == 0 || tcgetpgrp(descriptor) == getpgrp())
    }

    /// One `read(2)`, and the lines it completed. At the end of input a last unterminated line counts.
    package func readAvailable() -> [Event] {
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { Sodium.wipe(&chunk) }
        let count = read(descriptor, &chunk, chunk.count)
        if count < 0 {
            if errno != EINTR && errno != EAGAIN { atEnd = true }
            return []
        }
        var events: [Event] = []
        if count == 0 {
            atEnd = true
            if !pending.isEmpty && !skippingLongLine { events.append(.line(String(decoding: pending, as: UTF8.self))) }
            Sodium.wipe(&pending)
            pending = []
            return events
        }
        for byte in chunk[..<count] {
            if byte == UInt8(ascii: "\n") {
                if !skippingLongLine { events.append(.line(String(decoding: pending, as: UTF8.self))) }
                skippingLongLine = false
                Sodium.wipe(&pending)
                pending = []
            } else if !skippingLongLine {
                pending.append(byte)
                if pending.count > Self.maximumLineBytes {
                    skippingLongLine = true
                    events.append(.tooLong)
                    Sodium.wipe(&pending)
                    pending = []
                }
            }
        }
        return events
    }
}
