import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The refresh record beside the cache, as JSON.
func refreshState(_ sandbox: Sandbox) -> [String: Any]? {
    guard let text = readText(sandbox.profileDirectory + "/refresh.state") else { return nil }
    return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
}

/// A session whose access token has already expired (1 s lifetime); tokens issued afterwards live an hour.
func expiredSession() throws -> (Emulator, Sandbox) {
    let (emulator, sandbox) = try loggedIn { $0.accessTokenLifetime = 1 }
    emulator.accessTokenLifetime = 3600
    Thread.sleep(forTimeInterval: 1.5)
    return (emulator, sandbox)
}

@Suite("refresh under failure: status classes and the backoff", .serialized)
struct RefreshBackoffTests {
    @Test(
        "refresh-5xx-json-body: HTTP 500 with {\"error\":\"server_error\"} is the server's bad moment: a valid cached token is served with one warning (exit 0), an expired one exits 3"
    )
    func serverErrorWithJSONBody() throws {
        let error = OAuthErrorResponse(status: 500, error: "server_error", errorDescription: "try later")
        let (emulator, sandbox, cached) = try expiringSession()
        defer { emulator.stop() }
        emulator.faults = Faults(tokenErrors: ["refresh_token": error])
        let run = sandbox.run(["token", "--raw"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == cached)
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.hasPrefix("pingcli: warning: refresh failed"), "\(run)")
        #expect(run.stderr.contains("server_error") && !run.stderr.contains("client's settings"))

        let (expired, expiredSandbox) = try expiredSession()
        defer { expired.stop() }
        expired.faults = Faults(tokenErrors: ["refresh_token": error])
        expectOneLineError(
            expiredSandbox.run(["token", "--raw"]), status: 3, contains: ["refresh failed", "HTTP 500", "server_error", "try again later"],
            secrets: expired.issuedAccessTokens + expired.issuedRefreshTokens)
        #expect(expiredSandbox.run(["status"]).stdout.contains("refresh token: held"), "nothing was dropped")
    }

    @Test(
        "refresh-429: too many requests is transient: the valid token is served with a warning, Retry-After sets the backoff, a login resets it"
    )
    func tooManyRequests() throws {
        let (emulator, sandbox, cached) = try expiringSession()
        defer { emulator.stop() }
        emulator.faults = Faults(responseOverrides: [
            .token: CannedResponse(
                status: 429, contentType: "application/json", body: "{\"error\":\"slow_down\"}", headers: ["Retry-After": "120"])
        ])
        let run = sandbox.run(["token", "--raw"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == cached)
        #expect(run.stderr.contains("warning") && run.stderr.contains("429"), "\(run)")
        let state = try #require(refreshState(sandbox))
        let wait = (state["retry_after"] as? Double ?? 0) - (state["failed_at"] as? Double ?? 0)
        #expect(wait == 120, "Retry-After is honoured: \(state)")
        #expect(state["attempts"] as? Int == 1 && state["status"] as? Int == 3)
        #expect(!(readText(sandbox.profileDirectory + "/refresh.state") ?? "").contains(cached.dropLast()), "no secret in the record")
        #expect(fileMode(sandbox.profileDirectory + "/refresh.state") == 0o600)
        let status = sandbox.run(["status"])
        #expect(status.stdout.contains("last refresh:  refresh failed") && status.stdout.contains("no new attempt before"), "\(status)")
        emulator.faults = Faults()
        #expect(sandbox.login(emulator).status == 0)
        #expect(refreshState(sandbox) == nil, "a new login resets the backoff")
    }

    @Test("refresh-4xx-client-error: a 4xx OAuth error other than invalid_grant is the client's settings: exit 1, cache kept")
    func clientError() throws {
        let (emulator, sandbox, _) = try expiringSession()
        defer { emulator.stop() }
        emulator.faults = Faults(tokenErrors: ["refresh_token": OAuthErrorResponse(status: 401, error: "invalid_client")])
        for _ in 0..<2 {  // the second within the backoff: the same answer, without a request
            expectOneLineError(
                sandbox.run(["token", "--raw"]), status: 1, contains: ["invalid_client", "check the client's settings"],
                secrets: emulator.issuedAccessTokens)
        }
        #expect(refreshes(emulator).count == 1)
        #expect(sandbox.run(["status"]).stdout.contains("refresh token: held"))
    }

    @Test(
        "refresh-convoy-503: 50 callers against a token endpoint answering 503 send one refresh; every caller gets its still-valid cached token with one warning"
    )
    func convoy503() throws {
        let (emulator, sandbox, cached) = try expiringSession()
        defer { emulator.stop() }
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
        defer { emulator.stop() }
        emulator.faults = Faults(responseOverrides: [.token: CannedResponse(status: 503, body: "<h1>down</h1>")], delays: [.token: 0.3])
        let (runs, _) = runConcurrently(sandbox, count: 20) { _ in ["token", "--raw"] }
        #expect(refreshes(emulator).count == 1)
        for run in runs {
            expectOneLineError(run, status: 3, contains: ["refresh failed", "503"], secrets: emulator.issuedRefreshTokens)
        }
        // Repeated failure doubles the backoff.
        try FileManager.default.removeItem(atPath: sandbox.profileDirectory + "/refresh.state")
        #expect(sandbox.run(["token", "--raw"]).status == 3)
        var state = try #require(refreshState(sandbox))
        state["retry_after"] = state["failed_at"]  // the first backoff is over
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: sandbox.profileDirectory + "/refresh.state"))
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
        defer { emulator.stop() }
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
}
