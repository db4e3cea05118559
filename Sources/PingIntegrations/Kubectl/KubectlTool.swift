import PingBase
import PingFlowCore
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// The kubectl on PATH, as `setup kubectl` asks it two things: its version (which ExecCredential
/// version to write) and what it reads from a kubeconfig (`kubectl config view -o json`), to check an
/// edited file before it replaces the old one. Both answers pass `KubectlAnswer`'s gates.
package struct KubectlTool {
    package let path: String

    /// The first executable `kubectl` on `PATH`; nil when there is none.
    package static func find(_ environment: Environment) -> KubectlTool? {
        for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") where directory.hasPrefix("/") {
            let candidate = "\(directory)/kubectl"
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return KubectlTool(path: candidate)
            }
        }
        return nil
    }

    /// `client.authentication.k8s.io/v1` for kubectl 1.22 and later (or when it does not say), else v1beta1.
    package func execAPIVersion() -> String {
        guard let (status, output) = try? capture(["version", "--client", "-o", "json"]), status == 0,
            let version = try? KubectlAnswer.clientVersion(output)
        else { return ExecCredential.v1 }
        return version.major > 1 || version.minor >= 22 ? ExecCredential.v1 : ExecCredential.v1beta1
    }

    /// The users kubectl reads from `file`: each name and its exec command and arguments.
    package func users(in file: String) throws(PingCLIError) -> [KubectlAnswer.User] {
        try view(file, KubectlAnswer.users)
    }

    /// Whether kubectl reads the user named `entry.name` in `file` as it reads `entry` written alone: the
    /// same meaning, whatever the text (a file kubectl rewrote has its own quoting and order, and kubectl
    /// drops the fields it does not know and adds its defaults, to both readings alike). The entry alone
    /// goes to a private temporary file: it holds no secret, and no other user of the kubeconfig is copied.
    package func readsAlike(_ entry: KubeconfigUsers.ExecEntry, in file: String) throws(PingCLIError) -> Bool {
        let name = entry.name
        guard let existing = try view(file, { (bytes) throws(KubectlAnswer.Refused) in try KubectlAnswer.user(named: name, bytes) })
        else { return false }
        let (descriptor, temporary) = try FileAdvice.worded(try FileSystem.makeTemporaryFile(beside: "/tmp/pingcli-kubectl-entry"))
        defer { unlink(temporary) }
        let text = Array((["apiVersion: v1", "kind: Config", "users:"] + entry.lines()).joined(separator: "\n").utf8) + [10]
        let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == text.count else { return false }
        return try view(temporary, { (bytes) throws(KubectlAnswer.Refused) in try KubectlAnswer.user(named: name, bytes) }) == existing
    }

    /// kubectl's reading of `file` (`kubectl config view -o json`), through `gate`.
    private func view<Answer>(
        _ file: String, _ gate: ([UInt8]) throws(KubectlAnswer.Refused) -> Answer
    ) throws(PingCLIError) -> Answer {
        let (status, output) = try capture(["config", "view", "--kubeconfig", file, "-o", "json"])
        guard status == 0 else {
            throw .failure(
                "kubectl cannot read the kubeconfig \(displaySafe(file)) (kubectl config view exited \(status)): run it to see why, or name another file with --kubeconfig",
                rule: .setupKubectlTool
            )
        }
        do {
            return try gate(output)
        } catch {
            throw .failure("kubectl config view answered something pingcli does not read: \(error.reason)", rule: .setupKubectlTool)
        }
    }

    /// Runs kubectl with `arguments`, its stdout in a private temporary file (no pipe to fill), its
    /// stderr dropped; its exit status and at most 4 MiB of its output.
    package func capture(_ arguments: [String]) throws(PingCLIError) -> (Int32, [UInt8]) {
        try captureOutput([path] + arguments, rule: .setupKubectlTool)
    }
}
