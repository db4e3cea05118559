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
                // Echo off through the one piece every secret prompt shares (`EchoOff`); the newline a
                // person's Enter did not show is written after.
                let read = EchoOff.run(descriptor, echoNewline: false) { line(descriptor) }
                if read != nil { echo("\n") }
                return read ?? nil
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
