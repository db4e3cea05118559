import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real TPM 2.0 simulator for a test: Debian's `swtpm socket --tpm2` on free loopback ports (the
/// command port and the control port after it) with a fresh state directory, already started up
/// (`startup-clear`); stopped, and its state removed, by `stop()` or when released.
final class SoftwareTPM {
    static let executable = "/usr/bin/swtpm"
    /// swtpm, and the tpm2-tss libraries pingcli loads (and the swtpm TCTI it loads through them).
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: executable)
            && ["libtss2-esys.so.0", "libtss2-tctildr.so.0", "libtss2-tcti-swtpm.so.0", "libtss2-mu.so.0"].allSatisfy { library in
                guard let handle = dlopen(library, RTLD_LAZY | RTLD_LOCAL) else { return false }
                dlclose(handle)
                return true
            }
    }

    let port: UInt16
    let state: String
    /// The directory of the unix sockets (`sock`, `sock.ctrl`) when the simulator listens there.
    let socketDirectory: String?
    private var pid: pid_t = 0

    /// `TPM2TOOLS_TCTI` for this simulator.
    var tcti: String { socketDirectory.map { "swtpm:path=\($0)/sock" } ?? "swtpm:host=127.0.0.1,port=\(port)" }

    /// A simulator with the state in `state` (a new directory when nil: a TPM with a fresh owner seed).
    init(state: String? = nil) throws {
        let directory = state ?? (NSTemporaryDirectory() + "swtpm-" + UUID().uuidString)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.state = directory
        socketDirectory = nil
        // swtpm needs two port numbers: take a free pair from the kernel, then hand it over (retried if lost).
        for _ in 0..<10 {
            let port = TLSFront.freePort()
            guard port < 65535, Self.isFree(port + 1) else { continue }
            let server = ["--server", "type=tcp,port=\(port),bindaddr=127.0.0.1", "--ctrl", "type=tcp,port=\(port + 1),bindaddr=127.0.0.1"]
            if let pid = try Self.start(server, state: directory, probe: { openConnection(port: port + 1) }) {
                self.pid = pid
                self.port = port
                return
            }
        }
        throw SoftwareTPMError.notStarted(readText(directory + "/swtpm.log") ?? "")
    }

    /// A simulator on unix sockets in `socketDirectory` (made 0700 for the user running the test): only
    /// those who may enter that directory reach this TPM. Its state is beside the sockets.
    init(socketDirectory: String) throws {
        try FileManager.default.createDirectory(atPath: socketDirectory + "/state", withIntermediateDirectories: true)
        chmod(socketDirectory, 0o700)
        self.state = socketDirectory
        self.socketDirectory = socketDirectory
        port = 0
        let server = ["--server", "type=unixio,path=\(socketDirectory)/sock", "--ctrl", "type=unixio,path=\(socketDirectory)/sock.ctrl"]
        guard
            let pid = try Self.start(
                server, state: socketDirectory + "/state", probe: { openUnixConnection(socketDirectory + "/sock.ctrl") })
        else { throw SoftwareTPMError.notStarted(readText(socketDirectory + "/state/swtpm.log") ?? "") }
        self.pid = pid
    }

    /// swtpm started with `server` (its command and control sockets), or nil when it did not come up.
    private static func start(_ server: [String], state: String, probe: () -> Int32) throws -> pid_t? {
        let log = open(state + "/swtpm.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        let (pid, error) = spawnProcess(
            Self.executable, ["socket", "--tpm2"] + server + ["--tpmstate", "dir=\(state)", "--flags", "not-need-init,startup-clear"],
            environment: ["PATH": "/usr/bin:/bin"], stdout: log, stderr: log)
        close(log)
        try #require(error == 0, "swtpm: \(String(cString: strerror(error)))")
        // A bound on a real process starting, not a timed assertion: at most 20 s.
        for _ in 0..<1000 {
            let connection = probe()
            if connection >= 0 {
                close(connection)
                return pid
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { return nil }
            usleep(20_000)
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return nil
    }

    private static func isFree(_ port: UInt16) -> Bool {
        let probe = openConnection(port: port)
        if probe >= 0 { close(probe) }
        return probe < 0
    }

    /// Stops the simulator (its state stays until released). SIGKILL: the test runner's children may
    /// inherit a blocked SIGTERM, and nothing of the state needs saving.
    func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        pid = 0
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: state)
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

enum SoftwareTPMError: Error {
    case notStarted(String)
}
