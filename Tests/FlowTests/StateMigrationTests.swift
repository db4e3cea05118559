import Foundation
import PingEmulator
import Testing

@testable import PingCrypto
@testable import PingFlowCore
@testable import PingState

/// Caches and locks live beside `profile.json`; what the builds of one earlier round left under
/// `$XDG_STATE_HOME/pingcli` is taken once, under the profile's lock, without losing anything, never
/// over a newer record, never once this machine recorded a generation for the profile, and removed.
@Suite struct StateMigrationTests {
    static let stateFiles = ["tokens.enc", "refresh.state", "jwks.json", "tokens.lock"]

    /// A signed-in harness whose state is laid out as an earlier build left it: under XDG_STATE_HOME,
    /// and no generation recorded.
    func legacyLayout() throws -> FlowHarness {
        let harness = try loggedIn(lifetime: 3600)  // no refresh due: the moved cache is used as it is
        try harness.recordRefreshFailure()
        try FileManager.default.createDirectory(atPath: harness.legacyStateDirectory, withIntermediateDirectories: true)
        for file in Self.stateFiles where FileManager.default.fileExists(atPath: harness.profileDirectory + "/" + file) {
            try FileManager.default.moveItem(
                atPath: harness.profileDirectory + "/" + file, toPath: harness.legacyStateDirectory + "/" + file)
        }
        try FileManager.default.removeItem(atPath: harness.generationFile)
        try #require(FileManager.default.fileExists(atPath: harness.legacyStateDirectory + "/tokens.enc"))
        try #require(FileManager.default.fileExists(atPath: harness.legacyStateDirectory + "/refresh.state"))
        return harness
    }

    func files(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    @Test(
        "state-migration-moves: token --raw on an earlier build's layout takes the cache, refresh record and JWK Set; the state directory is removed"
    )
    func moves() throws {
        let harness = try legacyLayout()
        let run = harness.run(["token", "--raw"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == harness.emulator.newestTokenLine)
        #expect(files(harness.profileDirectory).contains("tokens.enc") && files(harness.profileDirectory).contains("jwks.json"))
        #expect(harness.refreshState != nil, "the refresh record moved with the cache")
        #expect(!FileManager.default.fileExists(atPath: harness.legacyStateDirectory), "the old directory is removed")
        #expect(!FileManager.default.fileExists(atPath: harness.root + "/state/pingcli"))
        #expect(harness.emulator.refreshes.isEmpty, "the moved cache is used as it is")
    }

    @Test("state-migration-status: status, which takes no lock for a read, finds an earlier build's session and takes it")
    func status() throws {
        let harness = try legacyLayout()
        let run = harness.run(["status"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains(harness.profileDirectory + "/tokens.enc"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: harness.legacyStateDirectory + "/tokens.enc"))
    }

    @Test("state-migration-lock-held: with the lock held elsewhere, a reader reads the old place and moves nothing")
    func lockHeld() throws {
        let harness = try legacyLayout()
        let (context, _) = try harness.context()
        let descriptor = open(harness.profileDirectory + "/tokens.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX) == 0)
        let cache = try #require(try context.store.readCache(.default))
        #expect(cache.path == harness.legacyStateDirectory + "/tokens.enc")
        #expect(FileManager.default.fileExists(atPath: harness.legacyStateDirectory + "/tokens.enc"), "not moved under another's lock")
        flock(descriptor, LOCK_UN)
        #expect(try context.store.readCache(.default)?.path == harness.profileDirectory + "/tokens.enc")
    }

    @Test(
        "state-migration-never-over-newer: a cache this version wrote beside profile.json is never replaced by a state copy, whatever its time; the copy is removed"
    )
    func neverOverNewer() throws {
        let harness = try loggedIn()
        let older = try Data(contentsOf: URL(fileURLWithPath: harness.profileDirectory + "/tokens.enc"))
        #expect(harness.login().status == 0)  // a second session, written by this version
        let second = harness.emulator.newestTokenLine
        try FileManager.default.removeItem(atPath: harness.generationFile)  // even with no generation recorded
        try FileManager.default.createDirectory(atPath: harness.legacyStateDirectory, withIntermediateDirectories: true)
        try older.write(to: URL(fileURLWithPath: harness.legacyStateDirectory + "/tokens.enc"))
        chmod(harness.legacyStateDirectory + "/tokens.enc", 0o600)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: harness.legacyStateDirectory + "/tokens.enc")
        let store = try harness.context().0.store
        try StoreAdvice.worded(store.takeLock(.default)).unlock()  // the move happens under the lock
        #expect(!FileManager.default.fileExists(atPath: harness.legacyStateDirectory + "/tokens.enc"))
        #expect(harness.run(["token", "--raw"]).stdout == second)
    }

    @Test("state-migration-refused-file: an old cache open to others is refused with the chmod to run, not moved")
    func refusedFile() throws {
        let harness = try legacyLayout()
        let legacy = harness.legacyStateDirectory + "/tokens.enc"
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: legacy)
        let run = harness.run(["token", "--raw"])
        expectOneLineError(
            run, status: 1, contains: ["refusing to use \(legacy)", "chmod 600 \(legacy)"], secrets: harness.emulator.issuedAccessTokens)
        #expect(FileManager.default.fileExists(atPath: legacy))
    }

    @Test(
        "state-logout-after-migration: logout on an earlier build's layout leaves the sealed record beside profile.json and no state copy")
    func logoutWipes() throws {
        let harness = try legacyLayout()
        #expect(harness.run(["logout"]).status == 0)
        #expect(files(harness.profileDirectory).contains("tokens.enc"))
        #expect(!FileManager.default.fileExists(atPath: harness.legacyStateDirectory + "/tokens.enc"))
        let status = harness.run(["status"])
        #expect(status.stdout.contains("not logged in"), "\(status)")
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
