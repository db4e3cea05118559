import Foundation
import Testing

@testable import PingCrypto
@testable import PingOAuth
@testable import PingPlatform
@testable import PingSession
@testable import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// The status summary a table line is read from (`StatusSummary`): the same line as the full read, and
/// the full read again whenever it no longer vouches for the files.
@Suite("status summary")
struct StatusSummaryTests {
    /// A store in a new temporary directory, with a key file.
    static func store() -> TokenStore {
        let root = makeTemporaryDirectory("summary")
        return TokenStore(paths: Paths(configDirectory: root + "/config", dataDirectory: root + "/data", stateDirectory: root + "/state"))
    }

    static func profile(grant: Profile.GrantType? = nil, subject: String? = nil) -> Profile {
        var profile = Profile(
            issuer: "https://i.example", clientID: "c", scopes: ["openid"],
            metadata: ProviderMetadata(
                issuer: "https://i.example", authorizationEndpoint: "https://i.example/a", tokenEndpoint: "https://i.example/t"),
            grantType: grant, subject: subject)
        if grant == .clientCredentials { profile.tokenEndpointAuthMethod = .clientSecretBasic }
        return profile
    }

    /// An ID token whose payload names a subject and a display name (decoded, never verified, by status).
    static let idToken = IDToken(
        unchecked: jwt(#"{"iss":"https://i.example","sub":"user-1","aud":"c","exp":9000,"iat":1,"email":"u@example.com"}"#))

    /// A JWS with an RS256 header, `payload` and a made-up signature (status decodes, never verifies).
    static func jwt(_ payload: String) -> String {
        func part(_ json: String) -> String { Sodium.base64(Array(json.utf8), .urlSafeUnpadded) }
        return part(#"{"alg":"RS256"}"#) + "." + part(payload) + ".c2ln"
    }

    static func tokens(expiresAt: Double? = 1_000, refresh: Bool = true, idToken: Bool = true, secret: Bool = false) -> TokenSet {
        TokenSet(
            accessToken: "a", tokenType: "Bearer", expiresAt: expiresAt, refreshToken: refresh ? "r" : nil,
            idToken: idToken ? Self.idToken : nil, scope: "openid", obtainedAt: 1,
            clientSecret: secret ? (try? ClientSecret(checking: "s")) : nil)
    }

    /// Saves `profile` and `tokens` (nil: the signed-out record) as `name`.
    static func save(_ store: TokenStore, _ name: String, _ profile: Profile, _ tokens: TokenSet?) throws -> ProfileName {
        let name = try ProfileName(name)
        try store.writeProfile(profile, as: name)
        try store.writeTokens(tokens, name, profile: profile, key: store.commandKey())
        return name
    }

    /// A profile of each kind the table tells apart: a person, a device sign-in, a machine, spent (no
    /// refresh token), forever (no expiry) and signed out.
    static func saveEveryKind(_ store: TokenStore) throws -> [ProfileName] {
        [
            try save(store, "person", profile(), tokens()),
            try save(store, "device", profile(grant: .deviceCode, subject: "device-sub"), tokens(idToken: false)),
            try save(store, "machine", profile(grant: .clientCredentials), tokens(refresh: false, idToken: false, secret: true)),
            try save(store, "spent", profile(), tokens(refresh: false)),
            try save(store, "forever", profile(), tokens(expiresAt: nil, refresh: false, idToken: false)),
            try save(store, "out", profile(), nil),
        ]
    }

    /// A person's profile "work", signed in.
    static func saveWork(_ store: TokenStore) throws -> ProfileName { try save(store, "work", profile(), tokens()) }

    /// What the table shows of a report (`StatusTable`, `ProfilesCommand.list`), and the exit status it decides.
    static func line(_ report: ProfileStatus) -> [String] {
        [
            report.profile, report.issuer ?? "nil", report.clientID ?? "nil", report.grant ?? "nil", report.subject ?? "nil",
            report.name ?? "nil", "\(report.state)", report.accessTokenExpiry.map { "\($0)" } ?? "nil",
            "\(report.accessTokenExpired.map { "\($0)" } ?? "nil")", "\(report.refreshToken)", report.problem ?? "nil",
            "\(report.problemStatus.map { "\($0)" } ?? "nil")",
        ]
    }

    static func report(_ store: TokenStore, _ name: ProfileName, now: Double = 500, summary: Bool, details: Bool = true) -> ProfileStatus {
        ProfileStatus(name, store: store, key: store.commandKey(), now: now, details: details, extras: false, summary: summary)
    }

    static func flipLastByte(_ path: String) throws {
        var bytes = try #require(try FileSystem.read(path, protection: .secret))
        bytes[bytes.count - 1] ^= 1
        try FileSystem.atomicWrite(path, bytes)
    }

    @Test(
        "status-summary-same-line: the summary gives every table line the full read gives (a person, a machine, expired, signed out), now and later"
    )
    func sameLine() throws {
        let store = Self.store()
        let names = try Self.saveEveryKind(store)
        for name in names {
            #expect(store.readStatusSummary(name, key: store.commandKey()) != nil, "no summary for \(name)")
            for now in [500.0, 1_000, 2_000] {
                for details in [true, false] {
                    let fast = Self.line(Self.report(store, name, now: now, summary: true, details: details))
                    #expect(fast == Self.line(Self.report(store, name, now: now, summary: false, details: details)))
                }
            }
        }
        let person = Self.report(store, names[0], summary: true)
        #expect(person.subject == "user-1" && person.name == "u@example.com" && person.state == .loggedIn)
        #expect(Self.report(store, names[1], summary: true).subject == "device-sub")
        #expect(Self.report(store, names[2], now: 2_000, summary: true).state == .loggedIn, "a machine with a secret renews")
        let spent = Self.report(store, names[3], now: 2_000, summary: true)
        #expect(spent.state == .sessionExpired && spent.problem == "session expired: run pingcli login --profile spent")
        #expect(Self.report(store, names[5], summary: true).problem == "not logged in: run pingcli login --profile out")
    }

    @Test("status-summary-tampered: a summary altered, another profile's or another key's is not trusted; the files are read instead")
    func tampered() throws {
        let store = Self.store()
        let one = try Self.save(store, "one", Self.profile(), Self.tokens())
        let two = try Self.save(store, "two", Self.profile(subject: "other"), Self.tokens(refresh: false, idToken: false))
        try Self.flipLastByte(store.paths.statusSummaryFile(one))
        #expect(store.readStatusSummary(one, key: store.commandKey()) == nil)
        #expect(Self.line(Self.report(store, one, summary: true)) == Self.line(Self.report(store, one, summary: false)))
        #expect(Self.report(store, one, summary: true).state == .loggedIn)
        // Two's summary in one's place: sealed for another profile name, it does not open.
        try FileSystem.atomicWrite(
            store.paths.statusSummaryFile(one), try #require(try FileSystem.read(store.paths.statusSummaryFile(two))))
        #expect(store.readStatusSummary(one, key: store.commandKey()) == nil)
        #expect(Self.report(store, one, summary: true).subject == "user-1")
        // Sealed under another key: the same.
        let otherKey = KeySource.command("printf %064d 0", timeout: 10)
        #expect(store.readStatusSummary(two, key: CommandKey(source: otherKey)) == nil)
        // The summary removed: the files are read, and the next write makes it again.
        try FileSystem.remove(store.paths.statusSummaryFile(two))
        #expect(Self.report(store, two, summary: true).subject == "other")
        _ = try Self.save(store, "two", Self.profile(subject: "other"), Self.tokens())
        #expect(store.readStatusSummary(two, key: store.commandKey())?.refreshToken == true)
    }

    @Test("status-summary-damaged-cache: a damaged or exposed cache and an edited profile.json are still reported in a table")
    func damagedFiles() throws {
        let store = Self.store()
        let damaged = try Self.save(store, "damaged", Self.profile(), Self.tokens())
        try Self.flipLastByte(store.paths.tokensFile(damaged))
        let report = Self.report(store, damaged, summary: true)
        #expect(report.state == .problem && report.problem?.contains(store.paths.tokensFile(damaged)) == true, "\(report)")
        #expect(Self.line(report) == Self.line(Self.report(store, damaged, summary: false)))

        let exposed = try Self.save(store, "exposed", Self.profile(), Self.tokens())
        chmod(store.paths.tokensFile(exposed), 0o644)
        let open = Self.report(store, exposed, summary: true)
        #expect(open.state == .problem && open.problem?.contains("chmod 600") == true, "\(open)")

        // profile.json sending tokens elsewhere (its bytes and its binding changed): refused, as by token.
        let edited = try Self.save(store, "edited", Self.profile(), Self.tokens())
        var moved = Self.profile()
        moved.metadata.tokenEndpoint = "https://i.example/elsewhere"
        try store.writeProfile(moved, as: edited)
        let changed = Self.report(store, edited, summary: true)
        #expect(changed.state == .problem && changed.problemStatus != nil, "\(changed)")
        #expect(Self.line(changed) == Self.line(Self.report(store, edited, summary: false)))
    }

    @Test("status-summary-stale: an older cache put back, alone or with its summary, is refused as rolled back in a table")
    func stale() throws {
        let store = Self.store()
        let name = try Self.saveWork(store)
        let oldCache = try #require(try FileSystem.read(store.paths.tokensFile(name), protection: .secret))
        let oldSummary = try #require(try FileSystem.read(store.paths.statusSummaryFile(name), protection: .secret))
        _ = try Self.save(store, "work", Self.profile(), Self.tokens(expiresAt: 3_000))
        #expect(Self.report(store, name, summary: true).accessTokenExpiry == 3_000)

        // The old cache alone: the summary no longer matches it, and the full read refuses it.
        try FileSystem.atomicWrite(store.paths.tokensFile(name), oldCache)
        #expect(store.readStatusSummary(name, key: store.commandKey()) == nil)
        let alone = Self.report(store, name, summary: true)
        #expect(alone.state == .problem && alone.problem?.contains("older") == true, "\(alone)")
        // The old cache with its own summary (a backup of the whole directory): the recorded generation is newer.
        try FileSystem.atomicWrite(store.paths.statusSummaryFile(name), oldSummary)
        #expect(store.readStatusSummary(name, key: store.commandKey()) == nil)
        #expect(Self.line(Self.report(store, name, summary: true)) == Self.line(alone))
    }

    @Test("status-summary-profile-differs: no summary is written when profile.json on disk is not the profile the cache is bound to")
    func notWrittenForAnotherProfile() throws {
        let store = Self.store()
        let name = try Self.saveWork(store)
        #expect(FileSystem.exists(store.paths.statusSummaryFile(name)))
        try store.writeTokens(Self.tokens(), name, profile: Self.profile(subject: "someone else"), key: store.commandKey())
        #expect(!FileSystem.exists(store.paths.statusSummaryFile(name)))
        #expect(Self.report(store, name, summary: true).state == .problem)
        // removeTokens (and so profiles remove) takes the summary with the cache.
        _ = try Self.saveWork(store)
        try store.removeTokens(name)
        #expect(!FileSystem.exists(store.paths.statusSummaryFile(name)))
    }
}
