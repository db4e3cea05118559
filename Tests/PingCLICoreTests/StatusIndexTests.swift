import Foundation
import Testing

@testable import PingCrypto
@testable import PingPlatform
@testable import PingSession
@testable import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// The status index (`StatusIndex`): one sealed file of table lines, each vouched for by the
/// fingerprints of the three files it was made from, on real files and the kernel's `fstatat`.
@Suite("status index")
struct StatusIndexTests {
    typealias Summary = StatusSummaryTests

    /// An index of `store` for which every file changed before now has settled (the real rule asks
    /// for three seconds: `status-index-settle` shows it).
    static func index(_ store: TokenStore, key: CommandKey? = nil) -> StatusIndex {
        StatusIndex(store: store, key: key ?? store.commandKey(), settle: 3, clock: { FileFingerprint.now() + 10 })
    }

    /// The table's report of `name` through `index` (asked first, then the summary or the files).
    static func report(_ store: TokenStore, _ name: ProfileName, _ index: StatusIndex?, now: Double = 500) -> ProfileStatus {
        ProfileStatus(name, store: store, key: store.commandKey(), now: now, extras: false, summary: true, index: index)
    }

    static func vouches(_ index: StatusIndex, _ name: ProfileName) -> Bool {
        if case .vouched = index.lookup(name) { return true }
        return false
    }

    /// Looks every profile up in a fresh index of the store, reading what it does not vouch for, and saves it.
    static func rebuild(_ store: TokenStore, _ names: [ProfileName]) {
        let index = Self.index(store)
        for name in names { _ = Self.report(store, name, index) }
        index.save()
    }

    /// A new store with the signed-in "work" profile, entered in the index.
    static func indexedWork() throws -> (TokenStore, ProfileName) {
        let store = Summary.store()
        let name = try Summary.saveWork(store)
        rebuild(store, [name])
        return (store, name)
    }

    /// The file's inode (a rewrite, by rename, makes a new one).
    static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    /// Changes a byte of the file in place: the same inode and size, a new change time.
    static func editInPlace(_ path: String) throws {
        // One tick of the kernel's coarse clock (at most 10 ms) after the last change, so the edit gets a
        // time of its own, as an edit a person makes after a table was written always has.
        usleep(30_000)
        let descriptor = open(path, O_RDWR)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var byte: UInt8 = 0
        #expect(pread(descriptor, &byte, 1, 0) == 1)
        byte ^= 0x20
        #expect(pwrite(descriptor, &byte, 1, 0) == 1)
    }

    @Test("status-index-same-line: the index gives every table line the full read gives, for each kind of profile, now and later")
    func sameLine() throws {
        let store = Summary.store()
        let names = try Summary.saveEveryKind(store)
        let first = Self.index(store)
        for name in names { #expect(!Self.vouches(first, name), "an empty index vouched for \(name)") }
        #expect(!FileSystem.exists(store.paths.statusIndexFile))
        Self.rebuild(store, names)
        #expect(FileSystem.exists(store.paths.statusIndexFile))
        for name in names {
            #expect(Self.vouches(Self.index(store), name), "no entry for \(name)")
            for now in [500.0, 1_000, 2_000] {
                let indexed = Summary.line(Self.report(store, name, Self.index(store), now: now))
                #expect(indexed == Summary.line(Summary.report(store, name, now: now, summary: false)), "\(name) at \(now)")
            }
        }
        // Sealed: neither the issuer nor a subject is in the file's bytes.
        let bytes = try #require(try FileSystem.read(store.paths.statusIndexFile, limit: 1 << 20, protection: .secret))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("i.example") && !text.contains("user-1"))
        // An index that vouched for everything it holds is not written again.
        let written = try #require(Self.inode(store.paths.statusIndexFile))
        Self.rebuild(store, names)
        #expect(Self.inode(store.paths.statusIndexFile) == written)
    }

    @Test(
        "status-index-stale: a cache rewritten, an edit in place, a cache put back, a generation recorded, a mode opened: the index no longer vouches, the files say what is wrong"
    )
    func stale() throws {
        let store = Summary.store()
        let name = try Summary.saveWork(store)
        let oldCache = try #require(try FileSystem.read(store.paths.tokensFile(name), protection: .secret))
        Self.rebuild(store, [name])
        #expect(Self.vouches(Self.index(store), name))

        // A new cache (a refresh, another login): the new line, and the index entered again.
        _ = try Summary.save(store, "work", Summary.profile(), Summary.tokens(expiresAt: 3_000))
        #expect(!Self.vouches(Self.index(store), name))
        #expect(Self.report(store, name, Self.index(store)).accessTokenExpiry == 3_000)
        Self.rebuild(store, [name])
        #expect(Self.vouches(Self.index(store), name))

        // The old cache put back (a backup): refused as rolled back.
        try FileSystem.atomicWrite(store.paths.tokensFile(name), oldCache)
        let rolledBack = Self.report(store, name, Self.index(store))
        #expect(rolledBack.state == .problem && rolledBack.problem?.contains("older") == true, "\(rolledBack)")
        _ = try Summary.saveWork(store)
        Self.rebuild(store, [name])

        // An edit in place of the cache (same inode, same size): damaged, and said so.
        try Self.editInPlace(store.paths.tokensFile(name))
        #expect(!Self.vouches(Self.index(store), name))
        let damaged = Self.report(store, name, Self.index(store))
        #expect(damaged.state == .problem && damaged.problem?.contains(store.paths.tokensFile(name)) == true, "\(damaged)")
        _ = try Summary.saveWork(store)
        Self.rebuild(store, [name])

        // An edit in place of profile.json: the line is the full read's (not the indexed one).
        try Self.editInPlace(store.paths.profileFile(name))
        #expect(!Self.vouches(Self.index(store), name))
        #expect(Summary.line(Self.report(store, name, Self.index(store))) == Summary.line(Summary.report(store, name, summary: false)))
        try store.writeProfile(Summary.profile(), as: name)
        _ = try Summary.saveWork(store)
        Self.rebuild(store, [name])

        // A newer generation recorded (another cache written for the profile elsewhere): refused as older.
        try GenerationRecord(path: store.paths.generationFile(name)).write(1_000)
        let older = Self.report(store, name, Self.index(store))
        #expect(older.state == .problem && older.problem?.contains("older") == true, "\(older)")
        try FileSystem.remove(store.paths.generationFile(name))
        Self.rebuild(store, [name])

        // The cache opened to others: the read's refusal, with its chmod.
        #expect(Self.vouches(Self.index(store), name))
        chmod(store.paths.tokensFile(name), 0o644)
        #expect(!Self.vouches(Self.index(store), name))
        let exposed = Self.report(store, name, Self.index(store))
        #expect(exposed.state == .problem && exposed.problem?.contains("chmod 600") == true, "\(exposed)")
    }

    @Test(
        "status-index-gates: a profile directory others may write, a symbolic link, another user's file: not vouched for, refused as by a read"
    )
    func gates() throws {
        let (store, name) = try Self.indexedWork()
        let directory = store.paths.profileDirectory(name)
        chmod(directory, 0o777)
        #expect(!Self.vouches(Self.index(store), name))
        #expect(Self.report(store, name, Self.index(store)).state == .problem)
        chmod(directory, 0o700)
        #expect(Self.vouches(Self.index(store), name))

        // profile.json replaced by a link to a copy of itself: refused, as every read refuses links.
        let copy = directory + "/profile.copy"
        try FileSystem.atomicWrite(copy, try #require(try FileSystem.read(store.paths.profileFile(name))))
        try FileSystem.remove(store.paths.profileFile(name))
        #expect(symlink(copy, store.paths.profileFile(name)) == 0)
        #expect(!Self.vouches(Self.index(store), name))
        #expect(Self.report(store, name, Self.index(store)).problem?.contains("symbolic link") == true)
        try FileSystem.remove(store.paths.profileFile(name))
        #expect(rename(copy, store.paths.profileFile(name)) == 0)
        _ = try Summary.saveWork(store)
        Self.rebuild(store, [name])
        #expect(Self.vouches(Self.index(store), name))

        // Another user's cache (the tests run as root, who can give it away).
        if geteuid() == 0 {
            #expect(chown(store.paths.tokensFile(name), 65_534, 65_534) == 0)
            #expect(!Self.vouches(Self.index(store), name))
            #expect(Self.report(store, name, Self.index(store)).problem?.contains("another user") == true)
        }
    }

    @Test(
        "status-index-sealed: an index altered, made under another key or for another profiles directory is not opened; a removed profile leaves it"
    )
    func sealed() throws {
        let store = Summary.store()
        let names = [
            try Summary.save(store, "one", Summary.profile(), Summary.tokens()), try Summary.save(store, "two", Summary.profile(), nil),
        ]
        Self.rebuild(store, names)
        #expect(Self.vouches(Self.index(store), names[0]))
        let good = try #require(try FileSystem.read(store.paths.statusIndexFile, limit: 1 << 20, protection: .secret))
        try Summary.flipLastByte(store.paths.statusIndexFile)
        #expect(!Self.vouches(Self.index(store), names[0]) && !Self.vouches(Self.index(store), names[1]))
        try FileSystem.atomicWrite(store.paths.statusIndexFile, good)
        #expect(!Self.vouches(Self.index(store, key: CommandKey(source: .command("printf %064d 0", timeout: 10))), names[0]))
        // The same data directory for another configuration directory: its profiles are other files.
        let other = TokenStore(
            paths: Paths(
                configDirectory: store.paths.configDirectory + "-other", dataDirectory: store.paths.dataDirectory,
                stateDirectory: store.paths.stateDirectory))
        try FileSystem.ensurePrivateDirectory(other.paths.profilesDirectory)
        #expect(!Self.vouches(Self.index(other, key: store.commandKey()), names[0]))
        #expect(Self.vouches(Self.index(store), names[0]))

        // A profile removed: its line goes with the index at once, and the next table's index leaves it out.
        try store.deleteProfile(names[1])
        #expect(!FileSystem.exists(store.paths.statusIndexFile))
        Self.rebuild(store, [names[0]])
        let after = try #require(try FileSystem.read(store.paths.statusIndexFile, limit: 1 << 20, protection: .secret))
        #expect(after.count < good.count)
        #expect(Self.vouches(Self.index(store), names[0]) && !Self.vouches(Self.index(store), names[1]))
        // A profile that is gone from the directory without `profiles remove`: left out of the next index.
        _ = try Summary.save(store, "three", Summary.profile(), Summary.tokens())
        Self.rebuild(store, [names[0], try ProfileName("three")])
        let three = try #require(try FileSystem.read(store.paths.statusIndexFile, limit: 1 << 20, protection: .secret))
        Self.rebuild(store, [names[0]])
        let without = try #require(try FileSystem.read(store.paths.statusIndexFile, limit: 1 << 20, protection: .secret))
        #expect(without.count < three.count && Self.vouches(Self.index(store), names[0]))
    }

    @Test("status-index-settle: files changed in the last seconds, or between the look and the read, are not entered")
    func settle() throws {
        let store = Summary.store()
        let name = try Summary.saveWork(store)
        // The real clock: the files were written just now, so nothing is entered and nothing written.
        let now = StatusIndex(store: store, key: store.commandKey())
        #expect(Self.report(store, name, now).state == .loggedIn)
        now.save()
        #expect(!FileSystem.exists(store.paths.statusIndexFile))
        // Changed between the index's look and the read it would enter: not entered.
        let index = Self.index(store)
        guard case .unknown(let files?) = index.lookup(name) else {
            Issue.record("an empty index vouched, or the files were refused")
            return
        }
        _ = try Summary.save(store, "work", Summary.profile(), Summary.tokens(expiresAt: 4_000))
        index.enter(name, try #require(store.readStatusSummary(name, key: store.commandKey())), madeFrom: files)
        index.save()
        #expect(!FileSystem.exists(store.paths.statusIndexFile))

        let settled = FileFingerprint(
            device: 1, inode: 2, size: 3, modified: .init(seconds: 100, nanoseconds: 0), changed: .init(seconds: 100, nanoseconds: 5))
        #expect(
            settled.isSettled(now: 104, settle: 3) && !settled.isSettled(now: 103, settle: 3)
                && FileFingerprint.missing.isSettled(now: 0, settle: 3))
    }

    @Test(
        "status-index-leftovers: a writer's leftover temporary file goes once it is a minute old, never while another table may be writing it"
    )
    func leftovers() throws {
        let store = Summary.store()
        try FileSystem.ensurePrivateDirectory(store.paths.dataDirectory)
        let (descriptor, leftover) = try FileSystem.makeTemporaryFile(beside: store.paths.statusIndexFile)
        close(descriptor)
        FileSystem.removeTemporaryFiles(of: store.paths.statusIndexFile, olderThan: 60)
        #expect(FileSystem.exists(leftover), "a file being written now was removed")
        var times = [timeval(tv_sec: time(nil) - 120, tv_usec: 0), timeval(tv_sec: time(nil) - 120, tv_usec: 0)]
        #expect(utimes(leftover, &times) == 0)
        FileSystem.removeTemporaryFiles(of: store.paths.statusIndexFile, olderThan: 60)
        #expect(!FileSystem.exists(leftover))
    }

    @Test(
        "status-index-open-in-place: the index is decrypted in the bytes read: draft-irtf-cfrg-xchacha's AEAD vector (A.3.1) opens in place; a changed byte, another key or nonce fail and leave no plaintext"
    )
    func openInPlace() {
        let hex = CBORTests.hex
        let plaintext = Array(
            "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let (associated, key, nonce) = (hex("50515253c0c1c2c3c4c5c6c7"), (0x80...0x9F).map { UInt8($0) }, (0x40...0x57).map { UInt8($0) })
        let sealed = hex(
            "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb"
                + "96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e"
                + "c0875924c1c7987947deafd8780acf49")
        #expect(Sodium.seal(plaintext: plaintext, associatedData: associated, nonce: nonce, key: key) == sealed)
        let prefix: [UInt8] = [1, 2, 3]
        var bytes = prefix + sealed
        #expect(Sodium.openInPlace(&bytes, from: 3, associatedData: associated, nonce: nonce, key: key))
        #expect(bytes == prefix + plaintext)
        for (index, wrongKey, wrongNonce) in [
            (40, key, nonce), (3 + sealed.count - 1, key, nonce), (0, key.reversed(), nonce), (0, key, nonce.reversed()),
        ] {
            var damaged = prefix + sealed
            if index > 0 { damaged[index] ^= 1 }
            #expect(!Sodium.openInPlace(&damaged, from: 3, associatedData: associated, nonce: wrongNonce, key: wrongKey))
            // Nothing decrypted is left: libsodium clears the output of a failed open, here the ciphertext.
            #expect(damaged.count == 3 + sealed.count && damaged[..<3] == prefix[...])
            #expect(damaged[3..<(3 + plaintext.count)].allSatisfy { $0 == 0 })
        }
    }
}
