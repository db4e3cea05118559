import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Through the built binary: a profile's cache, lock and JWK Set beside its profile.json under
/// `$XDG_CONFIG_HOME/pingcli`, the key and the generation records under `$XDG_DATA_HOME/pingcli`, and
/// an earlier build's layout under `$XDG_STATE_HOME` taken once by many processes at once.
@Suite("profile directory", .serialized)
struct StateDirectoryTests {
    static let stateFiles = ["tokens.enc", "refresh.state", "jwks.json", "tokens.lock"]

    func names(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// Moves the state files under XDG_STATE_HOME, where the builds of one earlier round kept them, and
    /// forgets the generation record (those builds wrote none).
    func makeLegacy(_ sandbox: Sandbox, stateDirectory: String) throws {
        try FileManager.default.createDirectory(
            atPath: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for file in Self.stateFiles where FileManager.default.fileExists(atPath: sandbox.profileDirectory + "/" + file) {
            let target = stateDirectory + "/" + file
            // Across file systems FileManager copies; keep the file's mode as the old version wrote it.
            try FileManager.default.moveItem(atPath: sandbox.profileDirectory + "/" + file, toPath: target)
            chmod(target, 0o600)
        }
        try FileManager.default.removeItem(atPath: sandbox.root + "/data/pingcli/generations/default")
        // Nor any status summary (`status.enc`).
        try FileManager.default.removeItem(atPath: sandbox.profileDirectory + "/status.enc")
        #expect(names(sandbox.profileDirectory) == ["profile.json"])
        #expect(names(stateDirectory).contains("tokens.enc"))
    }

    @Test(
        "profile-layout: login writes the cache, lock and JWK Set beside profile.json under XDG_CONFIG_HOME, the key and the generation record under XDG_DATA_HOME, nothing under XDG_STATE_HOME"
    )
    func layout() throws {
        let (_, sandbox) = try loggedIn()
        #expect(names(sandbox.profileDirectory) == ["jwks.json", "profile.json", "status.enc", "tokens.enc", "tokens.lock"])
        #expect(fileMode(sandbox.profileDirectory) == 0o700)
        #expect(fileMode(sandbox.profileDirectory + "/status.enc") == 0o600)
        #expect(names(sandbox.root + "/data/pingcli") == ["generations", "key"])
        #expect(readText(sandbox.root + "/data/pingcli/generations/default") == "1\n")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/state"))
        let status = sandbox.run(["status"])
        #expect(status.stdout.contains(sandbox.profileDirectory + "/tokens.enc"), "\(status)")

        // Without XDG_CONFIG_HOME: ~/.config/pingcli.
        let home = Sandbox()
        let other = try startEmulator()
        defer { other.stop() }
        #expect(home.login(other, environment: ["XDG_CONFIG_HOME": ""]).status == 0)
        #expect(FileManager.default.fileExists(atPath: home.root + "/home/.config/pingcli/profiles/default/tokens.enc"))
    }

    @Test(
        "state-migration-convoy: 20 processes starting at once on an earlier build's layout all get the token; the state is taken once, nothing lost, the state directory removed"
    )
    func convoy() throws {
        let (emulator, sandbox) = try loggedIn()
        try makeLegacy(sandbox, stateDirectory: sandbox.legacyStateDirectory)
        let token = emulator.newestTokenLine
        let (runs, _) = runConcurrently(sandbox, count: 20) { index in index % 2 == 0 ? ["token", "--raw"] : ["status"] }
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.first { $0.status != 0 }.map(\.description) ?? "")")
        #expect(runs.enumerated().filter { $0.offset % 2 == 0 }.allSatisfy { $0.element.stdout == token })
        #expect(names(sandbox.profileDirectory) == ["jwks.json", "profile.json", "tokens.enc", "tokens.lock"])
        #expect(!FileManager.default.fileExists(atPath: sandbox.legacyStateDirectory))
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
        let environment = ["XDG_STATE_HOME": shm]
        #expect(sandbox.login(emulator, environment: environment).status == 0)
        let state = shm + "/pingcli/profiles/default"
        try makeLegacy(sandbox, stateDirectory: state)
        let token = sandbox.run(["token", "--raw"], environment: environment)
        #expect(token.status == 0, "\(token)")
        #expect(token.stdout == emulator.newestTokenLine)
        #expect(names(sandbox.profileDirectory).contains("tokens.enc"))
        #expect(fileMode(sandbox.profileDirectory + "/tokens.enc") == 0o600)
        #expect(!FileManager.default.fileExists(atPath: state + "/tokens.enc"))
    }
}
