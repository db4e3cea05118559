import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel keyring's copy of the cache key against another uid that holds the same session keyring
/// (`su` without `-l`, `sudo -u`, `setpriv`, `runuser` keep it): issue 30.
@Suite(
    "keyring: another uid in the session",
    .enabled(if: SecretServiceSession.available && geteuid() == 0, "needs gnome-keyring, dbus, libsecret-tools and root for setpriv"))
struct KeyringOtherUserTests {
    /// `keyctl pipe` of pingcli's kernel key for `id`, as hex, run as `uid` (nil: this process's) in
    /// this thread's session keyring.
    static func readKernelKey(_ id: String, as uid: Int?) -> CLIRun {
        let script = "keyctl pipe \"$(keyctl search @s user pingcli:cache-key:$1)\" | od -An -tx1 | tr -d ' \\n'"
        let command = ["/bin/sh", "-c", script, "sh", id]
        let environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        guard let uid else { return runProcess(command[0], Array(command.dropFirst()), environment: environment, timeout: 30) }
        return runProcess(
            "/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--"] + command, environment: environment,
            timeout: 30)
    }

    @Test(
        "keyring-other-uid: a process of another uid holding the session keyring (setpriv --reuid=nobody) cannot find or read the kernel copy of the cache key; the owner can"
    )
    func otherUserReadsNothing() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        SecretServiceSession.joinNewKernelSession()
        defer { SecretServiceSession.joinNewKernelSession() }
        let session = try SecretServiceSession(sandbox: sandbox)
        #expect(sandbox.login(emulator, environment: session.environment).status == 0)
        let id = try #require(readText(sandbox.root + "/data/pingcli/keyring-item")).trimmingCharacters(in: .whitespacesAndNewlines)
        let secret = session.secretTool(["lookup", "application", "pingcli", "pingcli-key-id", id]).stdout
        let key = try #require(KeyringTests.base64URLDecode(secret.trimmingCharacters(in: .whitespacesAndNewlines)))
        let hex = key.map { String(format: "%02x", $0) }.joined()
        #expect(key.count == 32)

        let own = Self.readKernelKey(id, as: nil)
        #expect(own.stdout == hex, "the owner reads its kernel copy (so this test can fail): \(own)")
        let other = Self.readKernelKey(id, as: 65534)
        #expect(!other.stdout.contains(hex), "another uid read the cache key from the session keyring")
        #expect(other.stdout.isEmpty, "\(other)")
        // The copy is short-lived: a timeout of at most ten minutes, shown in /proc/keys.
        let line = try #require(KeyringTests.kernelKeys().first { $0.contains(id) })
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        #expect(fields.count > 4 && fields[4] == "013e0000", "user permissions only: \(line)")
        #expect(fields.count > 3 && (fields[3].hasSuffix("m") || fields[3].hasSuffix("s")), "a timeout of minutes: \(line)")
        session.stopKeyring()
    }
}
