import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The refresh record beside the cache, as JSON.
func refreshState(_ sandbox: Sandbox) -> [String: Any]? {
    guard let text = readText(sandbox.stateDirectory + "/refresh.state") else { return nil }
    return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
}

/// A session whose access token had expired by the time it was saved, with no one waiting for that: the
/// provider said it lives a nanosecond (`expires_in` 1e-9), so its expiry is the instant pingcli received
/// it on its own clock. Tokens issued afterwards live an hour.
func expiredSession() throws -> (Emulator, Sandbox) {
    let emulator = try startEmulator { $0.accessTokenLifetime = 3600 }
    emulator.faults.tokenResponseOverrides = ["expires_in": .number(1e-9)]
    let sandbox = Sandbox(stopping: emulator)
    let login = sandbox.login(emulator)
    #expect(login.status == 0, "\(login)")
    emulator.faults = Faults()
    return (emulator, sandbox)
}

@Suite("refresh under failure: status classes and the backoff", .serialized)
struct RefreshBackoffTests {
    @Test(
        "refresh-convoy-503: 50 callers against a token endpoint answering 503 send one refresh; every caller gets its still-valid cached token with one warning"
    )
    func convoy503() throws {
        let (emulator, sandbox, cached) = try expiringSession()
        emulator.faults = Faults(
            responseOverrides: [.token: CannedResponse(status: 503, body: "<h1>down</h1>")], delays: [.token: 0.3])
        let (runs, seconds) = runConcurrently(sandbox, count: 50) { _ in ["token", "--raw"] }
        #expect(refreshes(emulator).count == 1, "\(refreshes(emulator).count) refresh requests")
        for run in runs {
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout == cached)
            #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("warning") && run.stderr.contains("503"), "\(run)")
        }
        print("refresh-convoy-503: 50 callers, \(refreshes(emulator).count) refresh request(s), \(String(format: "%.2f", seconds)) s")
    }

    @Test("refresh-convoy-expired: with the cached token expired, callers behind a failed refresh fail fast with the same message, exit 3")
    func convoyExpired() throws {
        let (emulator, sandbox) = try expiredSession()
        emulator.faults = Faults(responseOverrides: [.token: CannedResponse(status: 503, body: "<h1>down</h1>")], delays: [.token: 0.3])
        let (runs, _) = runConcurrently(sandbox, count: 20) { _ in ["token", "--raw"] }
        #expect(refreshes(emulator).count == 1)
        // The caller that refreshed met the server's refusal; the others the backoff it left, in the same words.
        #expect(runs.filter { $0.rule == "refresh-unavailable" }.count == 1, "\(runs.map(\.rule))")
        for run in runs {
            let rule = run.rule == "refresh-unavailable" ? "refresh-unavailable" : "refresh-backoff"
            expectOneLineError(run, status: 3, rule: rule, contains: ["refresh failed", "503"], secrets: emulator.issuedRefreshTokens)
        }
        // Repeated failure doubles the backoff.
        try FileManager.default.removeItem(atPath: sandbox.stateDirectory + "/refresh.state")
        #expect(sandbox.run(["token", "--raw"]).status == 3)
        var state = try #require(refreshState(sandbox))
        state["retry_after"] = state["failed_at"]  // the first backoff is over
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: sandbox.stateDirectory + "/refresh.state"))
        #expect(sandbox.run(["token", "--raw"]).status == 3)
        let second = try #require(refreshState(sandbox))
        #expect(second["attempts"] as? Int == 2)
        #expect((second["retry_after"] as? Double ?? 0) - (second["failed_at"] as? Double ?? 0) == 20)
        #expect(refreshes(emulator).count == 3)
    }

    @Test(
        "refresh-hanging: against a token endpoint that never answers, callers whose cached token is valid give up after the short timeout and get it"
    )
    func hangingServer() throws {
        let (emulator, sandbox, cached) = try expiringSession()
        emulator.faults = Faults(delays: [.token: 60])
        let before = emulator.arrivedRequestCount
        let (runs, seconds) = runConcurrently(sandbox, count: 4) { _ in ["token", "--raw"] }
        for run in runs {
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout == cached)
            #expect(run.stderr.contains("warning"))
        }
        #expect(emulator.arrivedRequestCount == before + 1, "one refresh request, however many callers")
        print("refresh-hanging: 4 callers done in \(String(format: "%.2f", seconds)) s")
    }

    @Test(
        "min-ttl-still-works: a refused refresh asked for by --min-ttl says the token still works and how to use it; without it the token is served"
    )
    func minTTLStillWorks() throws {
        let (emulator, sandbox) = try loggedIn()
        emulator.faults.tokenErrors["refresh_token"] = CannedOAuthError(error: "invalid_grant")
        let run = sandbox.run(["token", "--raw", "--min-ttl", "7200"])
        #expect(run.status == 4 && run.stdout.isEmpty, "\(run)")
        #expect(
            run.stderr.hasPrefix(
                "pingcli: profile \"default\" cannot renew its access token (the refresh token was rejected: invalid_grant); the cached one still works for "
            ) && run.stderr.hasSuffix(", less than --min-ttl asks: lower --min-ttl to use it, or run pingcli login --profile default\n"),
            "\(run)")
        #expect(run.rule == "session-expired", "\(run)")
        #expect(!run.stderr.contains("session expired"), "\(run)")
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine, "it still works")
    }
}
