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
    /// `keyctl pipe` of pingcli's kernel key `name` (`pingcli:cache-key:ID` or `pingcli:cache-wrap:ID`),
    /// as hex, run as `uid` (nil: this process's) in this thread's session keyring.
    static func readKernelKey(_ name: String, as uid: Int?) -> CLIRun {
        let script = "keyctl pipe \"$(keyctl search @s user $1)\" | od -An -tx1 | tr -d ' \\n'"
        let command = ["/bin/sh", "-c", script, "sh", name]
        let environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        guard let uid else { return runProcess(command[0], Array(command.dropFirst()), environment: environment, timeout: 30) }
        return runProcess(
            "/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--"] + command, environment: environment,
            timeout: 30)
    }

    /// `keyctl pipe` of the key with `serial`, as hex, by this uid in a new session keyring of its own
    /// (another login session: an SSH login, a cron job), which holds none of this session's keys.
    static func readInOtherSession(_ serial: Int) -> CLIRun {
        let script = "keyctl pipe \(serial) | od -An -tx1 | tr -d ' \\n'"
        return runProcess(
            "/usr/bin/keyctl", ["session", "-", "/bin/sh", "-c", script], environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"],
            timeout: 30)
    }

    /// A signed-in keyring profile: the sandbox, its Secret Service, the item's id and the cache key as hex.
    static func signedIn() throws -> (Sandbox, SecretServiceSession, String, String) {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let session = try SecretServiceSession(sandbox: sandbox)
        #expect(sandbox.login(emulator, environment: session.environment).status == 0)
        let id = try #require(readText(sandbox.root + "/data/pingcli/keyring-item")).trimmingCharacters(in: .whitespacesAndNewlines)
        let secret = session.secretTool(["lookup", "application", "pingcli", "pingcli-key-id", id]).stdout
        let key = try #require(KeyringTests.base64URLDecode(secret.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(key.count == 32)
        return (sandbox, session, id, key.map { String(format: "%02x", $0) }.joined())
    }

    /// Runs `body` with a signed-in keyring profile (`signedIn()`: the item's id and the cache key as hex)
    /// in a login session of its own, then stops the keyring and leaves the session.
    static func inNewKernelSession(_ body: (String, String) throws -> Void) throws {
        SecretServiceSession.joinNewKernelSession()
        defer { SecretServiceSession.joinNewKernelSession() }
        let (_, session, id, hex) = try signedIn()
        try body(id, hex)
        session.stopKeyring()
    }

    /// The /proc/keys line of the kernel key `name`.
    static func procLine(_ name: String) -> [Substring] {
        let line = (readText("/proc/keys") ?? "").split(separator: "\n").first { $0.hasSuffix(name) || $0.contains(" \(name): ") }
        return line?.split(separator: " ", omittingEmptySubsequences: true) ?? []
    }

    @Test(
        "keyring-other-uid: a process of another uid holding the session keyring (setpriv --reuid=nobody) reads only the wrapping half of the kernel copy, never the cache key; the owner reads both halves"
    )
    func otherUserReadsNothing() throws {
        try Self.inNewKernelSession { id, hex in
            let (sealed, wrap) = ("pingcli:cache-key:\(id)", "pingcli:cache-wrap:\(id)")
            let own = (Self.readKernelKey(sealed, as: nil).stdout, Self.readKernelKey(wrap, as: nil).stdout)
            #expect(own.0.count == 2 * 72 && own.1.count == 2 * 32, "the owner reads both halves (so this test can fail): \(own)")
            #expect(!own.0.contains(hex) && !own.1.contains(hex), "a kernel key holds the cache key itself")
            let other = (Self.readKernelKey(sealed, as: 65534), Self.readKernelKey(wrap, as: 65534))
            #expect(other.0.stdout.isEmpty, "another uid read the sealed half: \(other.0)")
            #expect(!other.1.stdout.contains(hex), "another uid read the cache key from the session keyring")
            // Permissions and a short life, as /proc/keys shows them.
            let (sealedLine, wrapLine) = (Self.procLine(sealed), Self.procLine(wrap))
            #expect(sealedLine.count > 4 && sealedLine[4] == "013e0000", "this uid only: \(sealedLine)")
            #expect(wrapLine.count > 4 && wrapLine[4] == "3f000000", "this session's holders only: \(wrapLine)")
            #expect(sealedLine.count > 3 && (sealedLine[3].hasSuffix("m") || sealedLine[3].hasSuffix("s")), "minutes: \(sealedLine)")
        }
    }

    @Test(
        "keyring-other-session: a process of the same uid in another login session, given both serial numbers, reads the sealed half but not the wrapping key: no cache key"
    )
    func otherSessionReadsNothing() throws {
        try Self.inNewKernelSession { id, hex in
            let sealedLine = Self.procLine("pingcli:cache-key:\(id)")
            let wrapLine = Self.procLine("pingcli:cache-wrap:\(id)")
            let sealedSerial = try #require(sealedLine.first.flatMap { Int($0, radix: 16) }, "\(sealedLine)")
            let wrapSerial = try #require(wrapLine.first.flatMap { Int($0, radix: 16) }, "\(wrapLine)")
            let sealed = Self.readInOtherSession(sealedSerial)
            #expect(sealed.stdout.count == 2 * 72 && !sealed.stdout.contains(hex), "the sealed half, and only that: \(sealed)")
            let wrap = Self.readInOtherSession(wrapSerial)
            #expect(wrap.stdout.isEmpty, "another session read the wrapping key: \(wrap)")
        }
    }
}
