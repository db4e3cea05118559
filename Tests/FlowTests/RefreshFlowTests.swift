import Foundation
import PingEmulator
import Testing

@testable import PingBase
@testable import PingState

/// The refresh matrix (fresh, held back, transient, client error, invalid_grant, backoff), in-process on
/// the test's clock: a token expires because the clock moved, never because the test slept.
@Suite("refresh: the matrix, in-process")
struct RefreshFlowTests {
    @Test("refresh-fresh: a token that lives longer than --min-ttl is served from the cache without a request")
    func fresh() throws {
        let harness = try loggedIn(lifetime: 3600)
        let run = harness.run(["token", "--raw"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        #expect(run.stdout == harness.emulator.newestTokenLine)
        #expect(harness.emulator.refreshes.isEmpty)
        harness.clock.advance(by: 3600 - 29)
        #expect(harness.run(["token", "--raw"]).status == 0)
        #expect(harness.emulator.refreshes.count == 1, "within --min-ttl (30 s) of expiry it refreshes")
    }

    @Test(
        "refresh-5xx-json-body: HTTP 500 with {\"error\":\"server_error\"} is the server's bad moment: a valid cached token is served with one warning (exit 0), an expired one exits 3"
    )
    func serverErrorWithJSONBody() throws {
        let error = CannedOAuthError(status: 500, error: "server_error", errorDescription: "try later")
        let harness = try loggedIn()
        let cached = harness.emulator.newestTokenLine
        harness.emulator.faults = Faults(tokenErrors: ["refresh_token": error])
        let run = harness.run(["token", "--raw"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == cached)
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.hasPrefix("pingcli: warning: refresh failed"), "\(run)")
        #expect(run.stderr.contains("server_error") && !run.stderr.contains("client's settings"))

        let expired = try loggedIn(lifetime: 1)
        expired.clock.advance(by: 1.5)
        expired.emulator.faults = Faults(tokenErrors: ["refresh_token": error])
        expectOneLineError(
            expired.run(["token", "--raw"]), status: 3, rule: .refreshUnavailable, contains: ["HTTP 500", "server_error"],
            secrets: expired.emulator.issuedAccessTokens + expired.emulator.issuedRefreshTokens)
        #expect(expired.run(["status"]).stdout.contains("refresh token: held"), "nothing was dropped")
    }

    @Test(
        "refresh-429: too many requests is transient: the valid token is served with a warning, Retry-After sets the backoff, a login resets it"
    )
    func tooManyRequests() throws {
        let harness = try loggedIn()
        let cached = harness.emulator.newestTokenLine
        harness.emulator.faults = Faults(responseOverrides: [
            .token: CannedResponse(
                status: 429, contentType: "application/json", body: "{\"error\":\"slow_down\"}", headers: ["Retry-After": "120"])
        ])
        let run = harness.run(["token", "--raw"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == cached)
        #expect(run.stderr.contains("warning") && run.stderr.contains("429"), "\(run)")
        let state = try #require(harness.refreshState)
        let wait = (state["retry_after"] as? Double ?? 0) - (state["failed_at"] as? Double ?? 0)
        #expect(wait == 120, "Retry-After is honoured: \(state)")
        #expect(state["attempts"] as? Int == 1 && state["status"] as? Int == 3)
        let record = String(
            decoding: FileManager.default.contents(atPath: harness.stateDirectory + "/refresh.state") ?? Data(), as: UTF8.self)
        #expect(!record.contains(cached.dropLast()), "no secret in the record")
        #expect(fileMode(harness.stateDirectory + "/refresh.state") == 0o600)
        let status = harness.run(["status"])
        #expect(status.stdout.contains("last refresh:  refresh failed") && status.stdout.contains("no new attempt before"), "\(status)")
        harness.emulator.faults = Faults()
        #expect(harness.login().status == 0)
        #expect(harness.refreshState == nil, "a new login resets the backoff")
    }

    @Test("refresh-4xx-client-error: a 4xx OAuth error other than invalid_grant is the client's settings: exit 1, cache kept")
    func clientError() throws {
        let harness = try loggedIn()
        harness.emulator.faults = Faults(tokenErrors: ["refresh_token": CannedOAuthError(status: 401, error: "invalid_client")])
        for rule in [Rule.refreshClientError, .refreshBackoff] {  // the second within the backoff: the same answer, without a request
            expectOneLineError(
                harness.run(["token", "--raw"]), status: 1, rule: rule, contains: ["invalid_client", "check the client's settings"],
                secrets: harness.emulator.issuedAccessTokens)
        }
        #expect(harness.emulator.refreshes.count == 1)
        #expect(harness.run(["status"]).stdout.contains("refresh token: held"))
    }

    @Test("refresh-rejected: a refresh answered with invalid_grant exits 4 and says to log in again")
    func rejectedRefresh() throws {
        let harness = try loggedIn()
        harness.emulator.faults = Faults(tokenErrors: [
            "refresh_token": CannedOAuthError(status: 400, error: "invalid_grant", errorDescription: "refresh token revoked")
        ])
        let run = harness.run(["token", "--raw"])
        expectOneLineError(
            run, status: 4, rule: .sessionExpired, contains: ["invalid_grant: refresh token revoked"],
            secrets: harness.emulator.issuedAccessTokens)
    }

    @Test("refresh-dead: after invalid_grant the refresh token is not used again")
    func deadRefreshTokenIsDropped() throws {
        let harness = try loggedIn()
        harness.emulator.faults = Faults(failNextRefreshes: 1)
        #expect(harness.run(["token", "--raw"]).status == 4)
        let second = harness.run(["token", "--raw"])
        expectOneLineError(
            second, status: 4, rule: .sessionExpired, contains: ["no refresh token"],
            secrets: harness.emulator.issuedAccessTokens)
        #expect(harness.emulator.refreshes.count == 1, "the dead refresh token was not sent again")
        #expect(harness.run(["status"]).stdout.contains("refresh token: none"))
    }

    @Test("refresh-unreachable-unexpired: a refresh that cannot reach the server serves the unexpired token with a warning, exit 0")
    func networkDownTokenStillValid() throws {
        let harness = try loggedIn()
        let token = harness.emulator.newestTokenLine
        harness.networkDown(true)
        let run = harness.run(["token", "--raw"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == token)
        #expect(run.stderr.hasPrefix("pingcli: warning: refresh failed"))
        #expect(run.stderr.contains("which has not expired yet"))
        #expect(harness.run(["status"]).stdout.contains("refresh token: held"), "nothing was thrown away")
    }

    @Test("refresh-5xx-unexpired: a 503 page during refresh keeps everything and serves the unexpired token")
    func serverErrorTokenStillValid() throws {
        let harness = try loggedIn()
        harness.emulator.faults = Faults(responseOverrides: [
            .token: CannedResponse(status: 503, contentType: "text/html", body: "<h1>maintenance</h1>")
        ])
        let run = harness.run(["token", "--raw"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("warning") && run.stderr.contains("503"))
        harness.emulator.faults = Faults()
        // Within the backoff nobody asks again: the cached token, the same warning, no request.
        let held = harness.run(["token", "--raw"])
        #expect(held.status == 0 && held.stderr.contains("503") && held.stderr.contains("warning"), "\(held)")
        #expect(harness.emulator.refreshes.count == 1)
        // Once the backoff is over (the clock moved past it), the kept refresh token still works.
        harness.clock.advance(by: RefreshFailure.firstBackoff + 1)
        let recovered = harness.run(["token", "--raw"])
        #expect(recovered.status == 0)
        #expect(recovered.stdout == harness.emulator.newestTokenLine, "the kept refresh token still works")
        #expect(harness.emulator.issuedAccessTokens.count == 2)
        #expect(harness.refreshState == nil, "a success resets the backoff")
    }

    @Test("refresh-unreachable-expired: an expired token and an unreachable server exit 3, keeping the refresh token")
    func networkDownTokenExpired() throws {
        let harness = try loggedIn(lifetime: 1)
        harness.networkDown(true)
        harness.clock.advance(by: 1.5)
        let run = harness.run(["token", "--raw"])
        expectOneLineError(
            run, status: 3, rule: .refreshUnreachable, secrets: harness.emulator.issuedRefreshTokens)
        #expect(harness.run(["status"]).stdout.contains("refresh token: held"))
    }

    @Test(
        "refresh-backoff: failures in a row double the backoff (10 s, 20 s), an expired token fails fast with the recorded failure while it holds, and the first request after it goes out"
    )
    func backoffDoubles() throws {
        let harness = try loggedIn(lifetime: 1)
        harness.clock.advance(by: 2)
        harness.emulator.faults = Faults(responseOverrides: [.token: CannedResponse(status: 503, body: "<h1>down</h1>")])
        expectOneLineError(harness.run(["token", "--raw"]), status: 3, rule: .refreshUnavailable, contains: ["503"], secrets: [])
        let first = try #require(harness.refreshState)
        #expect((first["retry_after"] as? Double ?? 0) - (first["failed_at"] as? Double ?? 0) == 10)
        // Held back: the same failure, with the wait, and no request.
        harness.clock.advance(by: 4)
        expectOneLineError(
            harness.run(["token", "--raw"]), status: 3, rule: .refreshBackoff, contains: ["503", "pingcli tries again in 6 s"],
            secrets: [])
        #expect(harness.emulator.refreshes.count == 1)
        harness.clock.advance(by: 6)
        #expect(harness.run(["token", "--raw"]).status == 3)
        let second = try #require(harness.refreshState)
        #expect(second["attempts"] as? Int == 2)
        #expect((second["retry_after"] as? Double ?? 0) - (second["failed_at"] as? Double ?? 0) == 20)
        #expect(harness.emulator.refreshes.count == 2)
    }

    @Test("lock-bounded: a lock held too long is reported with its holder, exit 1, and no refresh is sent")
    func boundedLockWait() throws {
        let harness = try loggedIn()
        let path = harness.stateDirectory + "/tokens.lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX) == 0)
        let record = Array("pid 4242 pingcli token\n".utf8)
        _ = record.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        let started = harness.clock.monotonic
        let run = harness.run(["token", "--raw"])
        #expect(harness.clock.monotonic - started >= 40, "the whole bound passed on the test's clock")
        expectOneLineError(
            run, status: 1, rule: .lockBounded, contains: ["pid 4242 (pingcli token)", "kill 4242"],
            secrets: harness.emulator.issuedAccessTokens)
        #expect(harness.emulator.refreshes.isEmpty)
    }
}

/// The permission bits of a file.
func fileMode(_ path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int(info.st_mode & 0o7777)
}
