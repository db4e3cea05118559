import Foundation
import PingEmulator
import Testing

@testable import PingState

/// Caches and locks live under `$XDG_STATE_HOME/pingcli`; what an older version left beside
/// `profile.json` is moved there on first use, under the profile's lock, without losing anything.
@Suite struct StateMigrationTests {
    static let stateFiles = ["tokens.enc", "refresh.state", "jwks.json", "tokens.lock"]

    /// A signed-in harness whose state is laid out as an older pingcli left it: in the config directory.
    func legacyLayout() throws -> FlowHarness {
        let harness = try loggedIn(lifetime: 3600)  // no refresh due: the moved cache is used as it is
        try harness.recordRefreshFailure()
        for file in Self.stateFiles where FileManager.default.fileExists(atPath: harness.stateDirectory + "/" + file) {
            try FileManager.default.moveItem(atPath: harness.stateDirectory + "/" + file, toPath: harness.profileDirectory + "/" + file)
        }
        try #require(FileManager.default.fileExists(atPath: harness.profileDirectory + "/tokens.enc"))
        try #require(FileManager.default.fileExists(atPath: harness.profileDirectory + "/refresh.state"))
        return harness
    }

    func files(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    @Test("state-migration-moves: token --raw on an older layout moves the cache, refresh record and JWK Set; settings stay")
    func moves() throws {
        let harness = try legacyLayout()
        let run = harness.run(["token", "--raw"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == harness.emulator.newestTokenLine)
        #expect(files(harness.profileDirectory) == ["profile.json"])
        #expect(files(harness.stateDirectory).contains("tokens.enc"))
        #expect(files(harness.stateDirectory).contains("jwks.json"))
        #expect(harness.refreshState != nil, "the refresh record moved with the cache")
        #expect(harness.emulator.refreshes.isEmpty, "the moved cache is used as it is")
    }

    @Test("state-migration-status: status, which takes no lock for a read, finds an older layout's session and moves it")
    func status() throws {
        let harness = try legacyLayout()
        let run = harness.run(["status"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains(harness.stateDirectory + "/tokens.enc"), "\(run)")
        #expect(files(harness.profileDirectory) == ["profile.json"])
    }

    @Test("state-migration-lock-held: with the lock held elsewhere, a reader reads the old place and moves nothing")
    func lockHeld() throws {
        let harness = try legacyLayout()
        let (context, _) = try harness.context()
        try FileManager.default.createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
        let descriptor = open(harness.stateDirectory + "/tokens.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX) == 0)
        let cache = try #require(try context.store.readCache(.default))
        #expect(cache.path == harness.profileDirectory + "/tokens.enc")
        #expect(FileManager.default.fileExists(atPath: harness.profileDirectory + "/tokens.enc"), "not moved under another's lock")
        flock(descriptor, LOCK_UN)
        #expect(try context.store.readCache(.default)?.path == harness.stateDirectory + "/tokens.enc")
    }

    @Test("state-migration-leftover-copy: a copy in both places (a crash between copy and unlink) keeps the new one, drops the old")
    func leftoverCopy() throws {
        let harness = try loggedIn()
        let cache = harness.stateDirectory + "/tokens.enc"
        let legacy = harness.profileDirectory + "/tokens.enc"
        try FileManager.default.copyItem(atPath: cache, toPath: legacy)
        let older = Date(timeIntervalSinceNow: -3600)
        try FileManager.default.setAttributes([.modificationDate: older], ofItemAtPath: legacy)
        let run = harness.run(["token", "--raw", "--min-ttl", "7200"])  // a refresh: it takes the lock
        #expect(run.status == 0, "\(run)")
        #expect(!FileManager.default.fileExists(atPath: legacy))
        #expect(harness.run(["token", "--raw"]).stdout == harness.emulator.newestTokenLine)
    }

    @Test("state-migration-newer-old-file: a cache an older pingcli wrote after the move is newer, so it wins over the moved one")
    func newerLegacyWins() throws {
        let harness = try loggedIn()
        let first = harness.emulator.newestTokenLine
        let moved = try Data(contentsOf: URL(fileURLWithPath: harness.stateDirectory + "/tokens.enc"))
        #expect(harness.login().status == 0)  // a second session, as an older version would save it
        let second = harness.emulator.newestTokenLine
        #expect(first != second)
        try FileManager.default.moveItem(atPath: harness.stateDirectory + "/tokens.enc", toPath: harness.profileDirectory + "/tokens.enc")
        try moved.write(to: URL(fileURLWithPath: harness.stateDirectory + "/tokens.enc"))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: harness.stateDirectory + "/tokens.enc")
        try harness.context().0.store.lock(.default).unlock()  // the move happens under the lock
        #expect(files(harness.profileDirectory) == ["profile.json"])
        #expect(harness.run(["token", "--raw"]).stdout == second)
    }

    @Test("state-migration-refused-file: an old cache open to others is refused with the chmod to run, not moved")
    func refusedFile() throws {
        let harness = try legacyLayout()
        let legacy = harness.profileDirectory + "/tokens.enc"
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: legacy)
        let run = harness.run(["token", "--raw"])
        expectOneLineError(
            run, status: 1, contains: ["refusing to use \(legacy)", "chmod 600 \(legacy)"], secrets: harness.emulator.issuedAccessTokens)
        #expect(FileManager.default.fileExists(atPath: legacy))
    }

    @Test("state-logout-wipes-both: logout removes the cache wherever it is")
    func logoutWipes() throws {
        let harness = try legacyLayout()
        #expect(harness.run(["logout"]).status == 0)
        #expect(files(harness.profileDirectory) == ["profile.json"])
        #expect(!FileManager.default.fileExists(atPath: harness.stateDirectory + "/tokens.enc"))
    }
}

extension FlowHarness {
    /// A refresh record beside the cache (as a failed refresh leaves it), so a test can see it move.
    func recordRefreshFailure() throws {
        let (context, _) = try context()
        let moot = RefreshFailure(
            failedAt: clock.now, retryAfter: clock.now, attempts: 1, status: 1, message: "test", obtainedAt: 0, transient: true)
        try context.store.saveRefreshFailure(moot, .default)
    }
}
