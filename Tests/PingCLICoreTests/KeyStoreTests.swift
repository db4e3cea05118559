import CPlatform
import Testing

@testable import PingBase
@testable import PingPlatform
@testable import PingState

#if canImport(Glibc)
    import Glibc
#endif

@Suite("key stores")
struct KeyStoreTests {
    let paths = Paths(
        configDirectory: "/nonexistent/config/pingcli", dataDirectory: "/nonexistent/data/pingcli",
        stateDirectory: "/nonexistent/state/pingcli")

    @Test("kernel-keyring: a copy is for its uid only, has a timeout, is read back whole and is gone once invalidated")
    func kernelKeyringRoundTrip() throws {
        _ = pingcli_keyctl_join_session_keyring(nil)  // a session of this thread's own
        let description = "pingcli:cache-key:test-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        let secret = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        #expect(KernelKeyring.add(description, secret, timeout: 3600))
        #expect(KernelKeyring.read(description, length: 32) == secret)
        // A payload of another length is not a key.
        #expect(KernelKeyring.read(description, length: 16) == nil)
        let line = (readProcKeys() ?? "").split(separator: "\n").first { $0.hasSuffix(description + ": 32") }
        let fields = try #require(line).split(separator: " ", omittingEmptySubsequences: true)
        #expect(fields[4] == "013e0000", "\(fields)")  // user: all but view; possessor: view; group, other: nothing
        #expect(fields[3] != "perm", "no timeout: \(fields)")
        KernelKeyring.invalidate(description)
        #expect(KernelKeyring.read(description, length: 32) == nil)
    }

    @Test("key-store-env: PINGCLI_KEY_STORE picks the store; unset means automatic, or the command when one is set")
    func storeSelection() throws {
        #expect(try KeySource(paths: paths, environment: [:]).kindName == "automatic")
        #expect(try KeySource(paths: paths, environment: ["PINGCLI_KEY_STORE": "file"]).kindName == "file")
        #expect(try KeySource(paths: paths, environment: ["PINGCLI_KEY_STORE": " keyring "]).kindName == "keyring")
        #expect(try KeySource(paths: paths, environment: ["PINGCLI_KEY_COMMAND": "cat k"]).kindName == "command")
        #expect(
            try KeySource(paths: paths, environment: ["PINGCLI_KEY_STORE": "command", "PINGCLI_KEY_COMMAND": "cat k"]).kindName == "command"
        )
        for environment in [
            ["PINGCLI_KEY_STORE": "Keyring"], ["PINGCLI_KEY_STORE": "command"],
            ["PINGCLI_KEY_STORE": "file", "PINGCLI_KEY_COMMAND": "cat k"],
        ] {
            var rule: Rule?
            do throws(KeySource.SettingRefused) { _ = try KeySource(paths: paths, environment: Environment(environment)) } catch {
                rule = error.cliError.rule
            }
            #expect(rule == .keyStoreEnv, "\(environment)")
        }
    }

    @Test("key-command-status, key-command, key-command-output-bounded: a key command's failures are named by their rules")
    func keyCommandRules() {
        func rule(_ command: String) -> Rule? {
            do throws(KeyCommandFailure) {
                _ = try KeyCommand.run(command, timeout: 60)
                return nil
            } catch {
                return error.rule
            }
        }
        #expect(rule("exit 3") == .keyCommandStatus)
        #expect(rule("echo short") == .keyCommand)
        #expect(rule("head -c 5000 /dev/zero") == .keyCommandOutputBounded)
        #expect(rule("printf 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef") == nil)
    }

    @Test("session-bus: DBUS_SESSION_BUS_ADDRESS, or a socket at XDG_RUNTIME_DIR/bus; nothing else counts")
    func sessionBusDetection() {
        #expect(SecretService.hasSessionBus(["DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"]))
        #expect(!SecretService.hasSessionBus([:]))
        #expect(!SecretService.hasSessionBus(["DBUS_SESSION_BUS_ADDRESS": ""]))
        // No socket at /bus.
        #expect(!SecretService.hasSessionBus(["XDG_RUNTIME_DIR": "/"]))
    }

    func readProcKeys() -> String? {
        let descriptor = open("/proc/keys", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let count = read(descriptor, &chunk, chunk.count), count > 0 { bytes += chunk[..<count] }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension KeySource {
    fileprivate var kindName: String {
        switch self {
        case .file: "file"
        case .command: "command"
        case .keyring: "keyring"
        case .automatic: "automatic"
        }
    }
}
