import PingBase
import PingFlowCore
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// Runs another program (kubectl, git) with `command` (its path or name first), its stdout in a private
/// temporary file (no pipe to fill), its stderr dropped; its exit status and at most 4 MiB of its output.
/// A program that cannot be started is a failure with `rule`.
package func captureOutput(_ command: [String], rule: Rule) throws(PingCLIError) -> (Int32, [UInt8]) {
    let (descriptor, temporary) = try FileAdvice.worded(try FileSystem.makeTemporaryFile(beside: "/tmp/pingcli-tool"))
    defer {
        close(descriptor)
        unlink(temporary)
    }
    let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
    defer { close(null) }
    switch Subprocess.spawn(command, standardOutput: descriptor, standardError: null) {
    case .failure(let error): throw .failure("cannot run \(displaySafe(command[0])): \(error.reason)", rule: rule)
    case .success(let pid):
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var offset: off_t = 0
        while output.count < 4 << 20 {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            guard count > 0 else { break }
            output += buffer[..<count]
            offset += off_t(count)
        }
        return (Subprocess.exitCode(waitStatus: status), output)
    }
}
