import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The keyring key store against a real Secret Service (Debian's gnome-keyring-daemon on a private
/// session bus) and the kernel's session keyring; issue 21.
@Suite(
    "keyring key store, end to end", .serialized,
    .enabled(if: SecretServiceSession.available, "gnome-keyring, dbus and libsecret-tools are missing: run make deps"))
struct KeyringTests {
    /// The kernel keys this thread's session can see whose description starts with pingcli's prefix, and
    /// that are live: an invalidated (`i`), revoked (`R`) or dead (`D`) key stays listed in /proc/keys until
    /// the kernel's garbage collector runs, which on a busy machine is later, but no search finds it.
    static func kernelKeys() -> [String] {
        (readText("/proc/keys") ?? "").split(separator: "\n").map(String.init).filter { line in
            let flags = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""
            return line.contains(" pingcli:cache-key:") && !flags.contains { "iRD".contains($0) }
        }
    }

    /// A sandbox signed in to a new emulator in a desktop session of its own: the first login puts the
    /// cache key into the Secret Service (and says so), and no key file is written.
    static func signedInWithKeyring() throws -> (Emulator, Sandbox, SecretServiceSession) {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let session = try SecretServiceSession(sandbox: sandbox)
        let login = sandbox.login(emulator, environment: session.environment)
        #expect(login.status == 0, "\(login)")
        #expect(
            login.stderr.contains("The cache key is an item in the Secret Service (a Secret Service answers on the session bus)"),
            "\(login)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.keyFile))
        return (emulator, sandbox, session)
    }

    /// Every file under `root` whose bytes contain `needle`.
    static func files(under root: String, containing needle: [UInt8]) -> [String] {
        var found: [String] = []
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        for case let relative as String in walker {
            let path = root + "/" + relative
            guard let data = FileManager.default.contents(atPath: path), data.count >= needle.count else { continue }
            let bytes = [UInt8](data)
            if (0...(bytes.count - needle.count)).contains(where: { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }) {
                found.append(relative)
            }
        }
        return found
    }

    static func base64URLDecode(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }

    /// The item, as any Secret Service client sees it: a label and attributes that say what it is, and a
    /// 32-byte key that no file under the sandbox holds (not the bytes, not the text the Secret Service
    /// holds). Returns the item's id.
    static func expectItem(_ session: SecretServiceSession, _ sandbox: Sandbox) throws -> String {
        let search = session.secretTool(["search", "--all", "application", "pingcli"])
        #expect(search.status == 0, "\(search)")
        let listing = search.stdout + search.stderr
        #expect(listing.contains("label = pingcli token cache key (\(sandbox.root)/data/pingcli)"), "\(search)")
        #expect(listing.contains("schema = io.github.pingcli.CacheKey"), "\(search)")
        let id = try #require(readText(sandbox.root + "/data/pingcli/keyring-item")).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(listing.contains("attribute.pingcli-key-id = \(id)"), "\(search)")
        let secret = session.secretTool(["lookup", "application", "pingcli", "pingcli-key-id", id]).stdout
        let key = try #require(Self.base64URLDecode(secret.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(key.count == 32)
        // Nothing of the key on disk: not the bytes, not the text the Secret Service holds.
        #expect(Self.files(under: sandbox.root, containing: key).isEmpty)
        #expect(Self.files(under: sandbox.root, containing: Array(secret.trimmingCharacters(in: .whitespacesAndNewlines).utf8)).isEmpty)
        return id
    }

    @Test(
        "keyring-login: the key is a Secret Service item, no file under HOME holds it, token --raw is served from the kernel keyring with the daemon stopped"
    )
    func loginKeepsTheKeyInTheSecretService() throws {
        let (emulator, sandbox, session) = try Self.signedInWithKeyring()

        let id = try Self.expectItem(session, sandbox)

        // The kernel's copy: permissions for its uid only and a timeout, in this session's keyring.
        let kernel = Self.kernelKeys().filter { $0.contains(id) }
        #expect(kernel.count == 1, "\(kernel)")
        #expect(kernel.first?.contains(" 013e0000 ") == true, "\(kernel)")
        #expect(kernel.first?.contains(" perm ") == false, "the kernel copy has no timeout: \(kernel)")

        let status = sandbox.run(["status", "--json"], environment: session.environment)
        #expect(status.stdout.contains(#""key_store" : "keyring""#) || status.stdout.contains(#""key_store": "keyring""#), "\(status)")

        // The daemon stopped: the kernel keyring still serves the key within its timeout.
        session.stopKeyring()
        let token = sandbox.run(["token", "--raw"], environment: session.environment)
        #expect(token.status == 0, "\(token)")
        #expect(token.stdout == emulator.newestTokenLine)

        // A new login session without the kernel copy and without the daemon: one line, exit 1, nothing lost.
        SecretServiceSession.joinNewKernelSession()
        let cache = try Data(contentsOf: URL(fileURLWithPath: sandbox.stateDirectory + "/tokens.enc"))
        let gone = sandbox.run(["token", "--raw"], environment: session.environment)
        #expect(gone.status == 1, "\(gone)")
        #expect(gone.stdout.isEmpty)
        #expect(gone.rule == "keyring-unavailable", "\(gone)")
        #expect(
            gone.stderr.hasPrefix("pingcli: cannot read the cache key from the Secret Service: no keyring answers on the session bus"),
            "\(gone)")
        #expect(gone.stderr.split(separator: "\n").count == 1, "\(gone)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.stateDirectory + "/tokens.enc")) == cache)

        // The keyring back: the same cache opens again, and the key is in this session's kernel keyring.
        try session.startKeyring()
        let back = sandbox.run(["token", "--raw"], environment: session.environment)
        #expect(back.status == 0, "\(back)")
        #expect(back.stdout == emulator.newestTokenLine)
        #expect(Self.kernelKeys().contains { $0.contains(id) })

        // logout --all drops the kernel copy.
        let logout = sandbox.run(["logout", "--all"], environment: session.environment)
        #expect(logout.status == 0, "\(logout)")
        #expect(!Self.kernelKeys().contains { $0.contains(id) })
    }

    @Test(
        "keyring-copied-home: ~/.config/pingcli and ~/.local/share/pingcli copied to another machine give login required, never a token"
    )
    func copiedHomeIsWorthNothing() throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        let original = Sandbox()
        let session = try SecretServiceSession(sandbox: original)
        #expect(original.login(emulator, environment: session.environment).status == 0)

        // Another machine: its own Secret Service, its own login session, the same files.
        let copy = Sandbox()
        for directory in ["config", "data"] {
            try FileManager.default.createDirectory(atPath: copy.root + "/" + directory, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: original.root + "/\(directory)/pingcli", toPath: copy.root + "/\(directory)/pingcli")
        }
        let elsewhere = try SecretServiceSession(sandbox: copy)
        let token = copy.run(["token", "--raw"], environment: elsewhere.environment)
        #expect(token.status == 4, "\(token)")
        #expect(token.stdout.isEmpty)
        #expect(token.rule == "keyring-copied-home", "\(token)")
        #expect(token.stderr.contains("run pingcli login"), "\(token)")
        let status = copy.run(["status"], environment: elsewhere.environment)
        #expect(status.status == 4, "\(status)")
        #expect(!status.stdout.contains(emulator.issuedAccessTokens.last ?? "-"))
    }

    @Test("keyring-locked: a locked keyring is one line, exit 1, nothing lost; after unlocking the same cache works")
    func lockedKeyringLosesNothing() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let session = try SecretServiceSession(sandbox: sandbox)
        #expect(sandbox.login(emulator, environment: session.environment).status == 0)
        let first = emulator.newestTokenLine
        SecretServiceSession.joinNewKernelSession()  // a new login session: no kernel copy yet
        try session.lock()
        let cache = try Data(contentsOf: URL(fileURLWithPath: sandbox.stateDirectory + "/tokens.enc"))
        for arguments in [["token", "--raw"], ["status"], ["key", "migrate", "--to", "file"]] {
            let locked = sandbox.run(arguments, environment: session.environment)
            #expect(locked.status == 1, "\(arguments): \(locked)")
            #expect(locked.stdout.isEmpty || arguments[0] == "status")
            #expect(locked.rule == (arguments[0] == "status" ? "status-problem" : "keyring-locked"), "\(arguments): \(locked)")
            #expect(locked.stderr.contains("the keyring is locked and was not unlocked"), "\(arguments): \(locked)")
            #expect(locked.stderr.split(separator: "\n").count == 1 || arguments[0] == "status", "\(locked)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.stateDirectory + "/tokens.enc")) == cache)
        #expect(!FileManager.default.fileExists(atPath: sandbox.keyFile))
        // Unlocked again (the daemon restarted with the password): the same token comes back.
        session.stopKeyring()
        try session.startKeyring()
        let token = sandbox.run(["token", "--raw"], environment: session.environment)
        #expect(token.status == 0, "\(token)")
        #expect(token.stdout == first)
    }

    @Test("keyring-migrate: key migrate moves the file key into the Secret Service and back, the same caches readable throughout")
    func migrateBothWays() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let session = try SecretServiceSession(sandbox: sandbox)
        let fileStore = session.environment.merging(["PINGCLI_KEY_STORE": "file"]) { $1 }
        let login = sandbox.login(emulator, environment: fileStore)
        #expect(login.status == 0, "\(login)")
        let fileKey = try #require(FileManager.default.contents(atPath: sandbox.keyFile))
        let line = emulator.newestTokenLine

        // PINGCLI_KEY_STORE=keyring never falls back to the file: it says to migrate.
        let refused = sandbox.run(["token", "--raw"], environment: session.environment.merging(["PINGCLI_KEY_STORE": "keyring"]) { $1 })
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("pingcli key migrate --to keyring"), "\(refused)")
        #expect(refused.rule == "key-store-setting", "\(refused)")

        let toKeyring = sandbox.run(["key", "migrate", "--to", "keyring"], environment: session.environment)
        #expect(toKeyring.status == 0, "\(toKeyring)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.keyFile))
        #expect(Self.files(under: sandbox.root, containing: [UInt8](fileKey)).isEmpty)
        let moved = session.secretTool(["search", "application", "pingcli"])
        #expect((moved.stdout + moved.stderr).contains("attribute.pingcli-key-id"), "\(moved)")
        SecretServiceSession.joinNewKernelSession()
        let viaKeyring = sandbox.run(["token", "--raw"], environment: session.environment)
        #expect(viaKeyring.stdout == line, "\(viaKeyring)")
        #expect(sandbox.run(["status", "--json"], environment: session.environment).stdout.contains("keyring"))

        let toFile = sandbox.run(["key", "migrate", "--to", "file"], environment: session.environment)
        #expect(toFile.status == 0, "\(toFile)")
        #expect(FileManager.default.contents(atPath: sandbox.keyFile) == fileKey)
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/data/pingcli/keyring-item"))
        let removed = session.secretTool(["search", "application", "pingcli"])
        #expect(removed.status == 0 || removed.status == 1, "\(removed)")
        #expect(!(removed.stdout + removed.stderr).contains("pingcli"), "\(removed)")
        #expect(Self.kernelKeys().isEmpty, "the kernel copy outlived the move: \(Self.kernelKeys())")
        let viaFile = sandbox.run(["token", "--raw"], environment: session.environment)
        #expect(viaFile.stdout == line, "\(viaFile)")
        #expect(sandbox.run(["status", "--json"], environment: session.environment).stdout.contains(#""file""#))
    }

    @Test(
        "keyring-no-bus: without a session bus the first login keeps a key file and says so in one line; PINGCLI_KEY_STORE=keyring refuses")
    func noBusMeansAFileSaidInOneLine() throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        let required = Sandbox()
        let refused = required.login(emulator, environment: ["PINGCLI_KEY_STORE": "keyring"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.rule == "session-bus", "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: required.keyFile))

        let sandbox = Sandbox()
        let login = sandbox.login(emulator)
        #expect(login.status == 0, "\(login)")
        let notice = login.stderr.split(separator: "\n").filter { $0.contains("cache key") }
        #expect(
            notice == [
                "No session bus (DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service: the cache key is the file \(sandbox.keyFile) (PINGCLI_KEY_STORE=keyring to require a keyring)"
            ], "\(login)")
        #expect(FileManager.default.fileExists(atPath: sandbox.keyFile))
        let status = sandbox.run(["status"])
        #expect(status.stdout.contains("key store:     file"), "\(status)")
        // The next login says nothing more: the key exists.
        let again = sandbox.login(emulator)
        #expect(!again.stderr.contains("cache key"), "\(again)")
    }

    @Test("key-store-setting: PINGCLI_KEY_STORE's values and conflicts are usage errors (exit 2); a damaged keyring-item is exit 1")
    func keyStoreSettingGate() throws {
        let sandbox = Sandbox()
        for (environment, expected) in [
            (["PINGCLI_KEY_STORE": "vault"], "PINGCLI_KEY_STORE must be keyring, file or command, not \"vault\""),
            (
                ["PINGCLI_KEY_STORE": "keyring", "PINGCLI_KEY_COMMAND": "cat k"],
                "PINGCLI_KEY_STORE=keyring and PINGCLI_KEY_COMMAND are both set"
            ),
            (["PINGCLI_KEY_STORE": "command"], "PINGCLI_KEY_STORE=command needs PINGCLI_KEY_COMMAND"),
        ] {
            let run = sandbox.run(["status"], environment: environment)
            #expect(run.status == 2, "\(environment): \(run)")
            #expect(run.stderr.contains(expected), "\(run)")
            #expect(run.rule == "key-store-env", "\(run)")
        }
        try FileManager.default.createDirectory(atPath: sandbox.root + "/data/pingcli", withIntermediateDirectories: true)
        chmod(sandbox.root + "/data/pingcli", 0o700)
        try "not-an-id\n".write(toFile: sandbox.root + "/data/pingcli/keyring-item", atomically: true, encoding: .utf8)
        chmod(sandbox.root + "/data/pingcli/keyring-item", 0o600)
        let emulator = try startEmulator()
        defer { emulator.stop() }
        let damaged = sandbox.login(emulator)
        #expect(damaged.status == 1, "\(damaged)")
        #expect(damaged.rule == "keyring-item-damaged", "\(damaged)")
        // PINGCLI_KEY_STORE=file with the key in the Secret Service: exit 1, says how to move it.
        try "0123456789abcdef0123456789abcdef\n".write(
            toFile: sandbox.root + "/data/pingcli/keyring-item", atomically: true, encoding: .utf8)
        chmod(sandbox.root + "/data/pingcli/keyring-item", 0o600)
        let file = sandbox.login(emulator, environment: ["PINGCLI_KEY_STORE": "file"])
        #expect(file.status == 1, "\(file)")
        #expect(file.stderr.contains("pingcli key migrate --to file"), "\(file)")
        #expect(file.rule == "key-store-setting", "\(file)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.keyFile))
    }
}
