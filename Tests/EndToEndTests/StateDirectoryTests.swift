import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Through the built binary: tokens and locks under `$XDG_STATE_HOME/pingcli`, settings under
/// `$XDG_CONFIG_HOME/pingcli`, and an older layout moved on first use by many processes at once.
@Suite("state directory", .serialized)
struct StateDirectoryTests {
    static let stateFiles = ["tokens.enc", "refresh.state", "jwks.json", "tokens.lock"]

    func names(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// Moves the state files beside profile.json, where versions before this one kept them.
    func makeLegacy(_ sandbox: Sandbox, stateDirectory: String) throws {
        for file in Self.stateFiles where FileManager.default.fileExists(atPath: stateDirectory + "/" + file) {
            let target = sandbox.profileDirectory + "/" + file
            // Across file systems FileManager copies; keep the file's mode as the old version wrote it.
            try FileManager.default.moveItem(atPath: stateDirectory + "/" + file, toPath: target)
            chmod(target, 0o600)
        }
        #expect(names(stateDirectory).isEmpty)
        #expect(names(sandbox.profileDirectory).contains("tokens.enc"))
    }

    @Test("state-layout: login writes the cache, lock and JWK Set under XDG_STATE_HOME and only profile.json under XDG_CONFIG_HOME")
    func layout() throws {
        let (emulator, sandbox) = try loggedIn()
        defer { emulator.stop() }
        #expect(names(sandbox.profileDirectory) == ["profile.json"])
        #expect(names(sandbox.stateDirectory) == ["jwks.json", "tokens.enc", "tokens.lock"])
        #expect(fileMode(sandbox.stateDirectory) == 0o700)
        #expect(fileMode(sandbox.root + "/state/pingcli") == 0o700)
        let status = sandbox.run(["status"])
        #expect(status.stdout.contains(sandbox.stateDirectory + "/tokens.enc"), "\(status)")

        // Without XDG_STATE_HOME: ~/.local/state/pingcli.
        let home = Sandbox()
        let other = try startEmulator()
        defer { other.stop() }
        #expect(home.login(other, environment: ["XDG_STATE_HOME": ""]).status == 0)
        #expect(FileManager.default.fileExists(atPath: home.root + "/home/.local/state/pingcli/profiles/default/tokens.enc"))
    }

    @Test(
        "state-migration-convoy: 20 processes starting at once on an older layout all get the token; the state is moved once, nothing lost")
    func convoy() throws {
        let (emulator, sandbox) = try loggedIn()
        defer { emulator.stop() }
        try makeLegacy(sandbox, stateDirectory: sandbox.stateDirectory)
        let token = emulator.newestTokenLine
        let (runs, _) = runConcurrently(sandbox, count: 20) { index in index % 2 == 0 ? ["token", "--raw"] : ["status"] }
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.first { $0.status != 0 }.map(\.description) ?? "")")
        #expect(runs.enumerated().filter { $0.offset % 2 == 0 }.allSatisfy { $0.element.stdout == token })
        #expect(names(sandbox.profileDirectory) == ["profile.json"])
        #expect(names(sandbox.stateDirectory) == ["jwks.json", "tokens.enc", "tokens.lock"])
        #expect(refreshes(emulator).isEmpty)
        #expect(sandbox.run(["token", "--raw"]).stdout == token)
    }

    @Test("state-migration-other-filesystem: XDG_STATE_HOME on another file system (tmpfs): copied durably, then the old file removed")
    func otherFileSystem() throws {
        let shm = "/dev/shm/pingcli-state-\(UUID().uuidString)"
        var here = stat()
        var there = stat()
        try #require(mkdir(shm, 0o700) == 0, "no /dev/shm")
        defer { try? FileManager.default.removeItem(atPath: shm) }
        stat(FileManager.default.temporaryDirectory.path, &here)
        stat(shm, &there)
        guard here.st_dev != there.st_dev else {
            print("state-migration-other-filesystem: skipped: /dev/shm is on the same file system as the temporary directory")
            return
        }
        let (emulator, sandbox) = try emulatorAndSandbox()
        defer { emulator.stop() }
        let environment = ["XDG_STATE_HOME": shm]
        #expect(sandbox.login(emulator, environment: environment).status == 0)
        let state = shm + "/pingcli/profiles/default"
        try makeLegacy(sandbox, stateDirectory: state)
        let token = sandbox.run(["token", "--raw"], environment: environment)
        #expect(token.status == 0, "\(token)")
        #expect(token.stdout == emulator.newestTokenLine)
        #expect(names(sandbox.profileDirectory) == ["profile.json"])
        #expect(names(state).contains("tokens.enc"))
        #expect(fileMode(state + "/tokens.enc") == 0o600)
    }
}
