import PingCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// Lines a person types at the terminal: echoed for names and choices, without echo for secrets
/// (passwords, one-time codes, answers to security questions). Secrets come only from a terminal: when
/// `readSecret` is given a descriptor that is not one, it reads nothing. Tests pass scripted closures.
public struct TerminalInput: Sendable {
    /// One line, without its newline; nil at end of input.
    public var readLine: @Sendable () -> String?
    /// One line read with echo off; nil at end of input or when the input is not a terminal.
    public var readSecret: @Sendable () -> String?

    public init(readLine: @escaping @Sendable () -> String?, readSecret: @escaping @Sendable () -> String?) {
        self.readLine = readLine
        self.readSecret = readSecret
    }

    /// The terminal open at `descriptor` (stdin when it is one, or `/dev/tty`); `echo` writes the
    /// newline a person's Enter did not show while echo was off.
    public static func terminal(_ descriptor: Int32, echo: @escaping @Sendable (String) -> Void) -> TerminalInput {
        TerminalInput(
            readLine: { line(descriptor) },
            readSecret: {
                var saved = termios()
                guard isatty(descriptor) == 1, tcgetattr(descriptor, &saved) == 0 else { return nil }
                var quiet = saved
                quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL)
                // Ctrl-C, a hang-up or a kill while echo is off must not leave the terminal silent.
                EchoRestore.arm(descriptor, saved)
                guard tcsetattr(descriptor, TCSAFLUSH, &quiet) == 0 else {
                    EchoRestore.disarm()
                    return nil
                }
                defer {
                    _ = tcsetattr(descriptor, TCSAFLUSH, &saved)
                    EchoRestore.disarm()
                    echo("\n")
                }
                return line(descriptor)
            })
    }

    /// At most 4 KiB of one line, the bytes wiped after use; nil at end of input before any byte.
    private static func line(_ descriptor: Int32) -> String? {
        var bytes: [UInt8] = []
        defer { Sodium.wipe(&bytes) }
        var byte: UInt8 = 0
        var sawAny = false
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return sawAny ? String(decoding: bytes, as: UTF8.self) : nil }
            sawAny = true
            if byte == 10 { break }
            if byte != 13 && bytes.count < 4096 { bytes.append(byte) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The terminal's settings put back by a signal that ends pingcli while echo is off (SIGINT from
/// Ctrl-C, SIGTERM, SIGHUP, SIGQUIT): the handler calls only tcsetattr(3) and sigaction(2), then the
/// signal goes on to what was there before (another cleanup, or the default: the process dies of it).
enum EchoRestore {
    nonisolated(unsafe) static var descriptor: Int32 = -1
    /// On the heap: AddressSanitizer reported the copy into a `termios` global as an overflow of it.
    nonisolated(unsafe) static let saved = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    nonisolated(unsafe) static var previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 4)
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    static func arm(_ terminal: Int32, _ settings: termios) {
        saved.pointee = settings
        descriptor = terminal
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        for (index, signal) in signals.enumerated() { sigaction(signal, &action, previous + index) }
    }

    static func disarm() {
        guard descriptor >= 0 else { return }
        for (index, signal) in signals.enumerated() { sigaction(signal, previous + index, nil) }
        descriptor = -1
    }

    static let handler: @convention(c) (Int32) -> Void = { signal in
        if EchoRestore.descriptor >= 0 { _ = tcsetattr(EchoRestore.descriptor, TCSANOW, EchoRestore.saved) }
        let index: Int =
            switch signal {
            case SIGINT: 0
            case SIGTERM: 1
            case SIGHUP: 2
            default: 3
            }
        sigaction(signal, EchoRestore.previous + index, nil)
        // Blocked while this handler runs: delivered, with the earlier action, when it returns.
        raise(signal)
    }
}
