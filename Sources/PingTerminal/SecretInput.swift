import PingBase
import PingCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// Secret text from standard input: piped whole, or typed (pasted) on the terminal with its echo off, so
/// it never shows on the screen or in the terminal's scrollback.
package enum SecretInput {
    /// Reads at most `limit` bytes from `descriptor`. On a terminal, `prompt` goes to `console`'s stderr,
    /// echo is turned off for one line and restored however the read ends.
    package static func read(_ descriptor: Int32, limit: Int, prompt: String, console: Console) throws(PingCLIError) -> [UInt8] {
        var settings = termios()
        guard isatty(descriptor) == 1, tcgetattr(descriptor, &settings) == 0 else { return try readAll(descriptor, limit: limit) }
        console.writeErr(prompt)
        // The one piece every secret prompt shares: echo back on however the read ends (Ctrl-C, Ctrl-Z and fg).
        let read = try EchoOff.run(descriptor, echoNewline: true) { () throws(PingCLIError) in
            try readAll(descriptor, limit: limit, stopAtNewline: true)
        }
        guard let read else {
            throw .failure("cannot turn the terminal's echo off, so nothing was read: pipe the input instead", rule: .secretInput)
        }
        return read
    }

    /// Everything until end of file (or the first newline), refused past `limit` bytes.
    package static func readAll(_ descriptor: Int32, limit: Int, stopAtNewline: Bool = false) throws(PingCLIError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: stopAtNewline ? 1 : 4096)
        defer { Sodium.wipe(&chunk) }
        while true {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                Sodium.wipe(&bytes)
                throw .failure("cannot read standard input: \(String(cString: strerror(errno)))", rule: .secretInput)
            }
            if count == 0 || (stopAtNewline && chunk[0] == 10) { return bytes }
            bytes += chunk[..<count]
            guard bytes.count <= limit else {
                Sodium.wipe(&bytes)
                throw .failure("standard input holds more than \(limit) bytes: give only what was asked for", rule: .inputBounded)
            }
        }
    }
}
