import Foundation
import Testing

@testable import PingBase
@testable import PingOAuth
@testable import PingPlatform
@testable import PingSession
@testable import PingState

/// `status --all --json` from the status index and the summaries (`StatusDetails`): the same objects as
/// the full read of each profile's files, and the full read whenever the details cannot answer.
@Suite("status JSON from the summaries")
struct StatusJSONTests {
    typealias Summary = StatusSummaryTests
    typealias Index = StatusIndexTests

    /// The report `status --all --json` makes of `name`: through `index` (asked first), the summary, the files.
    static func fast(_ store: TokenStore, _ name: ProfileName, _ index: StatusIndex, now: Double) -> ProfileStatus {
        ProfileStatus(name, store: store, key: store.commandKey(), now: now, summary: true, index: index)
    }

    /// The report `status --json` makes of `name`: its files, read fully.
    static func full(_ store: TokenStore, _ name: ProfileName, now: Double) -> ProfileStatus {
        ProfileStatus(name, store: store, key: store.commandKey(), now: now)
    }

    static func text(_ report: ProfileStatus, now: Double) -> String { report.json(now: now).rendered(pretty: true) }

    /// The object as `status --all --json` writes it, from its members in order, without the dictionary.
    static func written(_ report: ProfileStatus, now: Double) -> String {
        var bytes: [UInt8] = []
        report.writeJSON(now: now, to: &bytes, prettyAtLevel: 1)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A journey profile with an OTP account, git hosts and an endpoint given at login, and an access
    /// token that is a JWT naming two audiences.
    static func rich() throws -> (Profile, TokenSet) {
        var profile = Summary.profile()
        profile.journey = "Login"
        profile.otp = "work-otp"
        profile.gitHosts = [try GitHost(checking: "git.example.com")]
        profile.discovery = false
        profile.endpointOverrides = ["token_endpoint"]
        var tokens = Summary.tokens()
        tokens.accessToken = AccessToken(unchecked: Summary.jwt(#"{"aud":["api-1","api-2"],"exp":9000}"#))
        tokens.scope = "openid profile"
        return (profile, tokens)
    }

    @Test("status-json-summary-same: each kind of profile's JSON object from the index and the summaries is the full read's")
    func same() throws {
        let store = Summary.store()
        let (richProfile, richTokens) = try Self.rich()
        let names = [
            try Summary.save(store, "person", Summary.profile(), Summary.tokens()),
            try Summary.save(store, "device", Summary.profile(grant: .deviceCode, subject: "device-sub"), Summary.tokens(idToken: false)),
            try Summary.save(
                store, "machine", Summary.profile(grant: .clientCredentials), Summary.tokens(refresh: false, idToken: false, secret: true)),
            try Summary.save(store, "spent", Summary.profile(), Summary.tokens(refresh: false)),
            try Summary.save(store, "out", Summary.profile(), nil),
            try Summary.save(store, "rich", richProfile, richTokens),
        ]
        // First through the summaries (an empty index), then through the index they entered.
        let first = Index.index(store)
        for name in names {
            #expect(Self.text(Self.fast(store, name, first, now: 500), now: 500) == Self.text(Self.full(store, name, now: 500), now: 500))
        }
        first.save()
        for name in names {
            let (lookup, absent) = Index.index(store).lookupWithSideFiles(name)
            guard case .vouched(let line) = lookup else {
                Issue.record("no entry for \(name)")
                continue
            }
            #expect(absent && line.details != nil, "\(name)")
            // A table's lookup steps over the details (without making them) to the same entry.
            guard case .vouched(let tableLine) = Index.index(store).lookup(name) else {
                Issue.record("the table's lookup did not vouch for \(name)")
                continue
            }
            #expect(tableLine.details == nil && Summary.line(Self.fast(store, name, Index.index(store), now: 500)).count > 0)
            var withoutDetails = line
            withoutDetails.details = nil
            #expect(tableLine == withoutDetails, "\(name)")
            for now in [500.0, 1_000, 2_000] {
                let indexed = Self.text(Self.fast(store, name, Index.index(store), now: now), now: now)
                #expect(indexed == Self.text(Self.full(store, name, now: now), now: now), "\(name) at \(now)")
                // `status --all --json` writes each object from its members in order, without the dictionary.
                let report = Self.fast(store, name, Index.index(store), now: now)
                #expect(Self.written(report, now: now) == report.json(now: now).rendered(prettyAtLevel: 1), "\(name)")
            }
        }
        let rich = Self.fast(store, names[5], Index.index(store), now: 500)
        #expect(rich.audience == ["api-1", "api-2"] && rich.gitHosts == ["git.example.com"] && rich.journey == "Login")
        #expect(rich.endpointOverrides.map(\.name) == ["token_endpoint"] && rich.discovery == false && rich.amSession == false)
    }

    @Test(
        "status-json-summary-side-files: a refresh record or narrower tokens beside the cache send the profile to the full read, which shows them"
    )
    func sideFiles() throws {
        let (store, name) = try Index.indexedWork()
        let failure = RefreshFailure(
            failedAt: 490, retryAfter: 560, attempts: 1, status: 503, message: "the token endpoint answered 503", obtainedAt: 1,
            transient: true)
        try store.saveRefreshFailure(failure, name)
        let (_, absent) = Index.index(store).lookupWithSideFiles(name)
        #expect(!absent)
        let report = Self.fast(store, name, Index.index(store), now: 500)
        #expect(report.refreshFailure != nil, "the refresh record was not read")
        #expect(Self.written(report, now: 500) == report.json(now: 500).rendered(prettyAtLevel: 1))
        #expect(Self.text(report, now: 500) == Self.text(Self.full(store, name, now: 500), now: 500))
        // Without it, the index answers again.
        try store.clearRefreshFailure(name)
        #expect(Index.index(store).lookupWithSideFiles(name).sideFilesAbsent)
        #expect(Self.fast(store, name, Index.index(store), now: 500).refreshFailure == nil)
    }

    @Test(
        "status-json-index-directory: the entry keeps the profile's directory once both side files were absent; a name added to it, even with its modification time set back, sends the report to the files"
    )
    func directoryVouches() throws {
        let (store, name) = try Index.indexedWork()
        // A table's entry knows nothing of the side files; a JSON report looks for them and enters the directory.
        #expect(Index.index(store).enteredFiles(name)?.directory.isMissing == true)
        let first = Index.index(store)
        #expect(first.lookupWithSideFiles(name).sideFilesAbsent)
        first.save()
        let directory = store.paths.profileDirectory(name)
        var info = stat()
        #expect(lstat(directory, &info) == 0)
        let entered = try #require(Index.index(store).enteredFiles(name))
        #expect(entered.directory == FileFingerprint(info))
        let (lookup, absent) = Index.index(store).lookupWithSideFiles(name)
        guard case .vouched = lookup else {
            Issue.record("the entry with its directory did not vouch")
            return
        }
        #expect(absent)
        // A refresh record added, and the directory's modification time set back to the one entered: its
        // change time still differs, and the report reads the files, which show the record.
        usleep(30_000)
        try store.saveRefreshFailure(
            RefreshFailure(
                failedAt: 490, retryAfter: 560, attempts: 1, status: 503, message: "the token endpoint answered 503", obtainedAt: 1,
                transient: true), name)
        var times = [info.st_atim, info.st_mtim]
        #expect(utimensat(AT_FDCWD, directory, &times, AT_SYMLINK_NOFOLLOW) == 0)
        #expect(lstat(directory, &info) == 0 && info.st_mtim.tv_nsec == Int(entered.directory.modified.nanoseconds))
        #expect(!Index.index(store).lookupWithSideFiles(name).sideFilesAbsent)
        let report = Self.fast(store, name, Index.index(store), now: 500)
        #expect(report.refreshFailure != nil && Self.text(report, now: 500) == Self.text(Self.full(store, name, now: 500), now: 500))
    }

    @Test("status-json-index-directory-settle: a profile's directory changed in the last seconds is not entered, its files are")
    func directorySettles() throws {
        let store = Summary.store()
        let name = try Summary.saveWork(store)
        usleep(700_000)
        // A name added to the directory and taken away: the files have settled, the directory has not.
        let other = store.paths.profileDirectory(name) + "/x"
        let descriptor = creat(other, 0o600)
        #expect(descriptor >= 0 && close(descriptor) == 0 && unlink(other) == 0)
        // The clock just after the directory's change, however long the machine took to get here.
        var info = stat()
        #expect(lstat(store.paths.profileDirectory(name), &info) == 0)
        let changed = FileFingerprint(info).changed.value
        let index = StatusIndex(store: store, key: store.commandKey(), settle: 0.5, clock: { changed + 0.1 })
        _ = Self.fast(store, name, index, now: 500)
        index.save()
        let entered = try #require(Index.index(store).enteredFiles(name))
        #expect(entered.directory.isMissing && !entered.cache.isMissing)
    }

    @Test("status-json-summary-stale: a cache rewritten after the index was written is read from its new summary, not the old entry")
    func stale() throws {
        let (store, name) = try Index.indexedWork()
        var tokens = Summary.tokens(expiresAt: 3_000)
        tokens.scope = "openid email"
        _ = try Summary.save(store, "work", Summary.profile(), tokens)
        let report = Self.fast(store, name, Index.index(store), now: 500)
        #expect(report.scopes == ["openid", "email"] && report.accessTokenExpiry == 3_000)
        #expect(Self.text(report, now: 500) == Self.text(Self.full(store, name, now: 500), now: 500))
    }

    @Test("json-rendered-at-level: objects rendered apart and joined are the text of their array")
    func renderedAtLevel() {
        let objects: [JSONValue] = [
            .object(["b": .array([.number(1), .string("x\n")]), "a": .object(["c": .null])]), .object([:]), .array([]), .bool(true),
        ]
        let joined = "[\n  " + objects.map { $0.rendered(prettyAtLevel: 1) }.joined(separator: ",\n  ") + "\n]"
        #expect(joined == JSONValue.array(objects).rendered(pretty: true))
    }
}

/// `JSONValue.writeObject`: members in order, written through a pointer, give `.object`'s text.
@Suite("JSON object from ordered members")
struct JSONObjectWriterTests {
    @Test(
        "json-write-object: ordered members give the dictionary's text at each level: escapes in keys and values, nested arrays and objects, numbers, empty"
    )
    func sameAsDictionary() {
        let long = String(repeating: "x", count: 5_000)
        let members: [(key: String, value: JSONValue)] = [
            ("", .null), ("a\"q", .string("tab\there")), ("b", .bool(true)), ("c", .bool(false)), ("d", .number(1)), ("e", .number(2.5)),
            ("f", .array([.string("x"), .number(3), .array([])])), ("g", .object(["z": .null, "y": .object([:])])),
            ("h", .string("\u{1B}[31mred \u{202E}")), ("i", .string("é and ä")), ("j", .string(long)), ("k\u{7F}", .array([])),
        ].sorted { $0.key < $1.key }
        for level in 0...2 {
            var written: [UInt8] = [1, 2]
            JSONValue.writeObject(members, to: &written, prettyAtLevel: level)
            let expected = JSONValue.object(Dictionary(uniqueKeysWithValues: members)).rendered(prettyAtLevel: level)
            #expect(Array(written.dropFirst(2)) == Array(expected.utf8), "level \(level)")
            #expect(written.prefix(2) == [1, 2])
        }
        var empty: [UInt8] = []
        JSONValue.writeObject([], to: &empty, prettyAtLevel: 1)
        #expect(empty == Array("{}".utf8))
    }
}

/// The writer (over bytes now) still orders keys as `String` does, ASCII or not.
@Suite("JSON key order")
struct JSONKeyOrderTests {
    @Test("json-key-order: keys are written in String's order, ASCII or not (a combining mark, a letter beyond ASCII)")
    func order() {
        let keys = ["b", "a", "ab", "", "B", "e\u{301}x", "f", "é", "z", "_x", "a b", "\u{7F}", "ä"]
        let text = JSONValue.object(Dictionary(uniqueKeysWithValues: keys.map { ($0, JSONValue.null) })).rendered(pretty: false)
        let expected =
            "{"
            + keys.sorted().map { key -> String in
                var quoted = ""
                JSONValue.writeString(key, to: &quoted)
                return quoted + ":null"
            }.joined(separator: ",") + "}"
        #expect(text == expected)
    }
}
