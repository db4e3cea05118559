import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's swtpm on unix sockets (`sock`, `sock.ctrl`) in a directory of its own, made 0700 for the user
/// running the test: only those who may enter that directory reach this TPM. Its state is beside the
/// sockets; stopped, and the directory removed, when released.
final class UnixSocketTPM {
    let directory: String
    private var pid: pid_t = 0

    /// `TPM2TOOLS_TCTI` for this simulator.
    var tcti: String { "swtpm:path=\(directory)/sock" }

    init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
        #expect(chmod(directory, 0o700) == 0)
        let log = open(directory + "/swtpm.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        let (pid, error) = spawnProcess(
            SoftwareTPM.executable,
            [
                "socket", "--tpm2", "--server", "type=unixio,path=\(directory)/sock", "--ctrl", "type=unixio,path=\(directory)/sock.ctrl",
                "--tpmstate", "dir=\(directory)/state", "--flags", "not-need-init,startup-clear",
            ], environment: ["PATH": "/usr/bin:/bin"], stdout: log, stderr: log)
        close(log)
        try #require(error == 0, "swtpm: \(String(cString: strerror(error)))")
        self.pid = pid
        // A bound on a real process starting, not a timed assertion: at most 20 s.
        for _ in 0..<1000 {
            let probe = openUnixConnection(directory + "/sock.ctrl")
            if probe >= 0 {
                close(probe)
                return
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { break }
            usleep(20_000)
        }
        stop()
        throw SoftwareTPMError.notStarted(readText(directory + "/swtpm.log") ?? "")
    }

    /// SIGKILL, as `SoftwareTPM.stop`: nothing of the state needs saving.
    func stop() { killAndReap(&pid) }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A connection to the unix socket at `path`, or -1.
func openUnixConnection(_ path: String) -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return -1 }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
        close(descriptor)
        return -1
    }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        for (index, byte) in bytes.enumerated() { buffer[index] = byte }
    }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard connected == 0 else {
        close(descriptor)
        return -1
    }
    return descriptor
}
