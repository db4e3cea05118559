import Foundation
import LoopbackClient
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
    private var pid: pid_t = 0

    /// `TPM2TOOLS_TCTI` for this simulator.
    var tcti: String { "swtpm:host=127.0.0.1,port=\(port)" }

    /// A simulator with the state in `state` (a new directory when nil: a TPM with a fresh owner seed).
    init(state: String? = nil) throws {
        let directory = state ?? (NSTemporaryDirectory() + "swtpm-" + UUID().uuidString)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.state = directory
        // swtpm needs two port numbers: take a free pair from the kernel, then hand it over (retried if lost).
        for _ in 0..<10 {
            let port = TLSFront.freePort()
            guard port < 65535, Self.isFree(port + 1) else { continue }
            let log = open(directory + "/swtpm.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            let (pid, error) = spawnProcess(
                Self.executable,
                [
                    "socket", "--tpm2", "--server", "type=tcp,port=\(port),bindaddr=127.0.0.1", "--ctrl",
                    "type=tcp,port=\(port + 1),bindaddr=127.0.0.1", "--tpmstate", "dir=\(directory)", "--flags",
                    "not-need-init,startup-clear",
                ], environment: ["PATH": "/usr/bin:/bin"], stdout: log, stderr: log)
            close(log)
            try #require(error == 0, "swtpm: \(String(cString: strerror(error)))")
            // A bound on a real process starting, not a timed assertion: at most 20 s. swtpm binds the control
            // port first and the command port pingcli connects to last (strace: bind 47002, then 47001), so
            // the wait ends when both listen: the control port alone left a moment in which pingcli's
            // connection was refused (`tpm-seal-migration` failed so once under load).
            if awaitListening(pid, port: port + 1, looks: 1000), awaitListening(pid, port: port, looks: 1000) {
                self.pid = pid
                self.port = port
                return
            }
        }
        throw SoftwareTPMError.notStarted(readText(directory + "/swtpm.log") ?? "")
    }

    private static func isFree(_ port: UInt16) -> Bool {
        let probe = openConnection(port: port)
        if probe >= 0 { close(probe) }
        return probe < 0
    }

    /// Stops the simulator (its state stays until released). SIGKILL: the test runner's children may
    /// inherit a blocked SIGTERM, and nothing of the state needs saving.
    func stop() { killAndReap(&pid) }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: state)
    }
}

/// SIGKILL to `pid` and its exit status collected; `pid` becomes 0 (0: nothing runs, nothing to do).
func killAndReap(_ pid: inout pid_t) {
    guard pid > 0 else { return }
    kill(pid, SIGKILL)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    pid = 0
}

enum SoftwareTPMError: Error {
    case notStarted(String)
}
