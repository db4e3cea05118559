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
        #expect(Self.text(report, now: 500) == Self.text(Self.full(store, name, now: 500), now: 500))
        // Without it, the index answers again.
        try store.clearRefreshFailure(name)
        #expect(Index.index(store).lookupWithSideFiles(name).sideFilesAbsent)
        #expect(Self.fast(store, name, Index.index(store), now: 500).refreshFailure == nil)
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
