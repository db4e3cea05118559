import PingBase
import PingCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// Where a command writes. stdout carries only what the user asked for; everything else goes to stderr.
public struct Console: Sendable {
    public var writeOut: @Sendable (String) -> Void
    public var writeErr: @Sendable (String) -> Void
    /// Whether stdout is a terminal (a person reading) rather than a pipe or file (a program).
    public var outputIsTerminal: Bool {
        get { output.answer }
        set { output = .known(newValue) }
    }
    /// Whether stderr is a terminal (the device flow then also shows its address as a QR code).
    public var errorIsTerminal: Bool {
        get { error.answer }
        set { error = .known(newValue) }
    }
    /// What the two answers come from: given, or asked of the kernel when a command asks (`token --raw`
    /// asks neither, and makes no `ioctl` for them).
    private var output: TerminalCheck
    private var error: TerminalCheck
    /// Bytes exactly as given (`pingcli api`'s response body); nil: through `writeOut` as UTF-8.
    public var writeOutBytes: (@Sendable ([UInt8]) -> Void)? = nil

    public init(
        writeOut: @escaping @Sendable (String) -> Void, writeErr: @escaping @Sendable (String) -> Void, outputIsTerminal: Bool = false,
        errorIsTerminal: Bool = false
    ) {
        self.writeOut = writeOut
        self.writeErr = writeErr
        output = .known(outputIsTerminal)
        error = .known(errorIsTerminal)
    }

    /// Writes a line to stdout.
    public func out(_ line: String) { writeOut(Self.terminalSafe(line) + "\n") }
    /// Writes bytes to stdout untouched: what the user asked for, exactly as received.
    public func outRaw(_ bytes: [UInt8]) {
        if let writeOutBytes { writeOutBytes(bytes) } else { writeOut(String(decoding: bytes, as: UTF8.self)) }
    }
    /// Writes a line to stderr.
    public func err(_ line: String) { writeErr(Self.terminalSafe(line) + "\n") }

    /// The last line of defence: whatever a message was built from, no character that acts on a
    /// terminal (escape sequences, CR, bidi overrides…) reaches it. Newlines and tabs that pingcli
    /// itself writes stay; server text was already made one line by `displaySafe`.
    package static func terminalSafe(_ text: String) -> String {
        // Printable ASCII, newlines and tabs (a token, most messages) need no scalar walk.
        // Eight bytes at a time where none is a control character, DEL or beyond ASCII.
        let plain = text.utf8.withContiguousStorageIfAvailable { bytes in
            ByteScan.firstNotPlainText(in: bytes, from: 0) == bytes.count
        }
        if plain == true { return text }
        guard text.unicodeScalars.contains(where: { $0 != "\n" && $0 != "\t" && isTerminalActive($0) }) else { return text }
        var output = ""
        output.unicodeScalars.append(
            contentsOf: text.unicodeScalars.map { $0 != "\n" && $0 != "\t" && isTerminalActive($0) ? " " : $0 })
        return output
    }

    /// The process's real stdout and stderr, written with `write(2)` so output is never lost in a buffer.
    public static let standard: Console = {
        var console = Console(writeOut: { writeAll(1, $0) }, writeErr: { writeAll(2, $0) })
        (console.output, console.error) = (.descriptor(1), .descriptor(2))
        console.writeOutBytes = { writeAll(1, bytes: $0) }
        return console
    }()

    /// Writes the text's own UTF-8 storage: no copy of it (a token, or `status --all`'s report of a
    /// thousand profiles, whose copies cost a page fault per 4 KB) is made to be written and wiped.
    package static func writeAll(_ descriptor: Int32, _ text: String) {
        var text = text
        text.withUTF8 { writeAll(descriptor, $0) }
    }

    package static func writeAll(_ descriptor: Int32, bytes written: [UInt8]) {
        var bytes = written
        bytes.withUnsafeBufferPointer { writeAll(descriptor, $0) }
        Sodium.wipe(&bytes)  // the bytes may be a token
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        var offset = 0
        while offset < bytes.count {
            let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                if descriptor == 1 { StandardOutput.failed(count < 0 ? errno : EIO) }
                break
            }
            offset += count
        }
    }
}

/// Whether a descriptor is a terminal: an answer given (tests, a console of another kind), or `isatty(3)`
/// asked each time a command wants to know, so that a command that never asks (`token --raw`) makes no
/// `ioctl` for it.
public enum TerminalCheck: Sendable {
    case known(Bool)
    case descriptor(Int32)

    public var answer: Bool {
        switch self {
        case .known(let answer): answer
        case .descriptor(let descriptor): isatty(descriptor) == 1
        }
    }
}

/// Whether a write to standard output failed (`/dev/full`, a full disk, an I/O error): the command's
/// output is then lost, and a command that otherwise succeeded must not exit 0 (`finished`). A closed
/// pipe is not seen here: SIGPIPE ends the process first, as it does `cat`.
public enum StandardOutput {
    /// The error of the first failed write, 0 while none failed.
    nonisolated(unsafe) private static var failure: Int32 = 0

    static func failed(_ error: Int32) { if failure == 0 { failure = error } }

    /// The exit status the process ends with: `status`, or 1 with one line on stderr when the command
    /// would have succeeded but its output could not be written.
    public static func finished(_ status: Int32) -> Int32 {
        guard status == 0, failure != 0 else { return status }
        Console.writeAll(2, failedLine(strerror(failure).map { String(cString: $0) } ?? "error \(failure)"))
        return 1
    }

    /// The line, the same as the front's (Sources/pingcli-front).
    package static func failedLine(_ reason: String) -> String {
        "pingcli: could not write to standard output (\(reason)): the output is lost; make room or send it elsewhere, then run the command again\n"
    }
}
