// The front: what `pingcli` is on an installed system. A small program in Embedded Swift (no runtime
// metadata, no relocations to speak of, a static PIE) that answers `pingcli token --raw` on a plain cache
// hit, the one command scripts run in loops, and runs the full pingcli (`../libexec/pingcli/pingcli`
// beside it), unchanged, with the same arguments and environment, for anything else: every other command,
// every option it does not know, every setting that could change the answer, every file that is not what a
// cache hit finds. Its answer is the full binary's by construction: it reads the same files through the
// same gates, and prints the token only when the profile's status summary (`status.enc`, sealed under the
// cache key by the full binary after it checked that a full read of exactly these bytes finds this token)
// matches `profile.json` and `tokens.enc` byte for byte and is not older than the recorded generation.
// Anything it cannot vouch for falls through, so errors, refreshes and locks have one implementation.
// docs/performance.md ("The front"); `FrontTests` run it beside the full binary over every refused state.
import CFront

@_cdecl("main")
func frontMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    // Before any secret is read, as the full binary does first.
    front_harden()
    if let request = FrontRequest(argc: Int(argc), argv: argv), let status = FrontAnswer.answered(request) { return status }
    return runFullBinary(argv)
}

/// `execve` of the full binary: `../libexec/pingcli/pingcli` from the directory this program is in (its
/// real path: a symbolic link to the front is followed first; without /proc, the name it was run by).
/// Returns only when that fails.
func runFullBinary(_ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    var own = [UInt8](repeating: 0, count: 4096)
    let length = own.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { front_own_path($0, 4096) }
    }
    var path: [UInt8] = []
    if length > 0 {
        var end = length
        while end > 0 && own[end - 1] != UInt8(ascii: "/") { end -= 1 }
        path.append(contentsOf: own[0..<end])
    }
    path.append(contentsOf: Bytes.fullBinary)
    path.append(0)
    path.withUnsafeBufferPointer { buffer in
        buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { _ = execve($0, argv, front_environment()) }
    }
    let failure = front_errno()
    var line = Array("pingcli: cannot run the full pingcli at ".utf8)
    line.append(contentsOf: path.dropLast())
    line.append(contentsOf: Array(" (".utf8))
    if let text = strerror(failure) { line.append(contentsOf: Bytes.of(text)) }
    line.append(contentsOf: Array("): reinstall pingcli, whose front needs it beside it\n".utf8))
    Bytes.writeAll(2, line)
    return 1
}

/// Byte helpers: the front makes no `String`.
enum Bytes {
    /// Where the full binary lies, from the directory of the front.
    static let fullBinary = Array("../libexec/pingcli/pingcli".utf8)

    /// The C string at `pointer`, without its NUL.
    static func of(_ pointer: UnsafePointer<CChar>) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
    }

    static func equal(_ pointer: UnsafePointer<CChar>, _ text: StaticString) -> Bool {
        startsWith(pointer, text) && pointer[text.utf8CodeUnitCount] == 0
    }

    /// Whether the C string at `pointer` starts with `text` (read no further than its NUL).
    static func startsWith(_ pointer: UnsafePointer<CChar>, _ text: StaticString) -> Bool {
        let expected = text.utf8Start
        var index = 0
        while index < text.utf8CodeUnitCount {
            if UInt8(bitPattern: pointer[index]) != expected[index] { return false }
            index += 1
        }
        return true
    }

    /// Writes all of `bytes`, as the full binary's console does: again after EINTR, stopping at an error.
    /// Returns 0, or the error that stopped it (EIO for a write that wrote nothing).
    @discardableResult
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBufferPointer { buffer -> Int32 in
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 && front_errno() == EINTR { continue }
                if count <= 0 { return count < 0 ? front_errno() : EIO }
                offset += count
            }
            return 0
        }
    }

    /// The full binary's line (`StandardOutput.failedLine`) for a write to standard output that failed.
    static func writeFailedLine(_ failure: Int32) {
        var line = Array("pingcli: could not write to standard output (".utf8)
        if let text = strerror(failure) { line.append(contentsOf: of(text)) }
        line.append(contentsOf: Array("): the output is lost; make room or send it elsewhere, then run the command again\n".utf8))
        writeAll(2, line)
    }

    /// Big-endian number in `bytes[start..<start + width]`.
    static func number(_ bytes: [UInt8], at start: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in start..<(start + width) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
