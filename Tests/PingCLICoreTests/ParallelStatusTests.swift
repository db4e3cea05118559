import Foundation
import Testing

@testable import PingCrypto
@testable import PingOAuth
@testable import PingPlatform
@testable import PingSession
@testable import PingState

@Suite("status of many profiles on several threads")
struct ParallelStatusTests {
    @Test("parallel-map: the results of map, in order, from more than one thread where there is more than one core")
    func parallelMapKeepsOrder() {
        let items = Array(0..<1_000)
        // Threads take chunks as they come (a late thread takes what is left): each item waits until a
        // second thread has taken one (10 s at most in all), so that where there are two cores both are seen.
        let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let seen = ThreadsSeen()
        let results = parallelMap(items) { item in
            seen.arrive(waitingFor: cores > 1 ? 2 : 1)
            return (item * 3, pthread_self())
        }
        #expect(results.map(\.0) == items.map { $0 * 3 })
        if cores > 1 {
            #expect(Set(results.map { UInt($0.1) }).count > 1, "one thread did everything")
        }
        #expect(parallelMap(Array(0..<10)) { $0 + 1 } == Array(1...10))
        #expect(parallelMap([Int]()) { $0 }.isEmpty)
    }

    @Test("status-key-once: 100 profiles read on several threads run the key command once and all read as logged in")
    func keyCommandRunsOnce() throws {
        let root = makeTemporaryDirectory("parallel")
        let key = Sodium.randomBytes(32)
        let hex = key.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        let paths = Paths(configDirectory: root + "/config", dataDirectory: root + "/data", stateDirectory: root + "/state")
        let keySource = KeySource.command("echo run >> \(root)/runs; echo \(hex)", timeout: 10)
        let store = TokenStore(paths: paths, keySource: keySource)
        let profile = Profile(
            issuer: "https://i.example", clientID: "c", scopes: ["openid"],
            metadata: ProviderMetadata(
                issuer: "https://i.example", authorizationEndpoint: "https://i.example/a", tokenEndpoint: "https://i.example/t"))
        let tokens = TokenSet(
            accessToken: "a", tokenType: "Bearer", expiresAt: nil, refreshToken: "r", idToken: nil, scope: nil, obtainedAt: 1)
        let writer = store.commandKey()
        let names = try (0..<100).map { try ProfileName("p\($0)") }
        for name in names {
            try store.writeProfile(profile, as: name)
            try store.writeTokens(tokens, name, profile: profile, key: writer)
        }
        try? FileSystem.remove(root + "/runs")

        let shared = store.commandKey()
        let reports = parallelMap(names) { ProfileStatus($0, store: store, key: shared, now: 2) }
        #expect(reports.map(\.profile) == names.map(\.value))
        #expect(reports.filter { !$0.loggedIn }.isEmpty, "\(reports.compactMap(\.problem).prefix(3))")
        let runs = try FileSystem.read(root + "/runs").map { String(decoding: $0, as: UTF8.self) }
        #expect(runs == "run\n", "the key command ran \(runs?.split(separator: "\n").count ?? 0) times")
    }
}

@Suite("start-up budget")
struct StartUpBudgetTests {
    @Test(
        "no-foundation: no file of pingcli's layers or its executable imports Foundation (linking FoundationEssentials cost 0.5 ms of every start)"
    )
    func noFoundation() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources")
            .standardizedFileURL.path
        let targets = PingModules.product
        let files = try targets.flatMap { target in
            try FileManager.default.subpathsOfDirectory(atPath: root + "/" + target).filter { $0.hasSuffix(".swift") }.map {
                target + "/" + $0
            }
        }
        #expect(files.count > 50, "found \(files.count) files under \(root)")
        for file in files {
            let text = String(decoding: try #require(try FileSystem.read(root + "/" + file)), as: UTF8.self)
            let imports = text.split(separator: "\n").filter { $0.drop(while: { $0 == " " }).hasPrefix("import Foundation") }
            #expect(imports.isEmpty, "\(file) imports Foundation: see docs/performance.md")
        }
    }
}

/// The threads that have run a transform; `arrive` waits until `count` of them have, or until 10 s
/// after this was made (one deadline for every item: a second thread that never comes costs 10 s, once).
private final class ThreadsSeen: @unchecked Sendable {
    private let lock = NSLock()
    private var threads: Set<UInt> = []
    private let deadline = Date().addingTimeInterval(10)

    func arrive(waitingFor count: Int) {
        lock.withLock { _ = threads.insert(UInt(pthread_self())) }
        while lock.withLock({ threads.count }) < count && Date() < deadline { usleep(1_000) }
    }
}
