import Testing

@testable import PingHTTP
@testable import PingOAuth

/// RFC 8628 §3.5's polling rules as pure functions: what an answer means, and the next interval.
@Suite("device polling")
struct DevicePollingTests {
    func answer(_ status: Int, _ body: String, type: String = "application/json") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["content-type": type], body: Array(body.utf8))
    }

    func outcome(_ status: Int, error code: String) -> DevicePollOutcome {
        DevicePolling.process(answer(status, #"{"error":"\#(code)"}"#), now: 1_000, dpop: false)
    }

    @Test("device-poll-pending: authorization_pending asks again after the same interval")
    func pending() {
        let result = outcome(400, error: "authorization_pending")
        guard case .pending = result else { Issue.record("\(result)"); return }
        #expect(DevicePolling.interval(after: result, current: 5) == 5)
    }

    @Test("device-poll-slow-down: slow_down adds five seconds, for good")
    func slowDown() {
        let result = outcome(400, error: "slow_down")
        guard case .slowDown = result else { Issue.record("\(result)"); return }
        #expect(DevicePolling.interval(after: result, current: 5) == 10)
        #expect(DevicePolling.interval(after: result, current: 10) == 15)
    }

    @Test("device-denied: access_denied is final, with the provider's error")
    func denied() {
        let result = outcome(400, error: "access_denied")
        guard case .denied(let oauth) = result else { Issue.record("\(result)"); return }
        #expect(oauth.error == "access_denied")
    }

    @Test("device-expired: expired_token is final")
    func expired() {
        let result = outcome(400, error: "expired_token")
        guard case .expired = result else { Issue.record("\(result)"); return }
    }

    @Test("device-poll-other-error: any other OAuth error is final and keeps its rule")
    func other() {
        let result = outcome(400, error: "invalid_client")
        guard case .failed(let error) = result else { Issue.record("\(result)"); return }
        #expect(error.rule == .tokenErrorObject)
    }

    @Test("device-poll-unavailable: 5xx and 429 are the server's bad moment whatever the body; the interval doubles up to 60 s")
    func unavailable() {
        for status in [500, 503, 429] {
            let result = outcome(status, error: "slow_down")
            guard case .unavailable(let seen) = result else { Issue.record("\(status): \(result)"); continue }
            #expect(seen == status)
        }
        let page = DevicePolling.process(answer(502, "<h1>bad gateway</h1>", type: "text/html"), now: 1_000, dpop: false)
        guard case .unavailable(502) = page else { Issue.record("\(page)"); return }
        #expect(DevicePolling.interval(after: page, current: 5) == 10)
        #expect(DevicePolling.interval(after: page, current: 40) == DevicePolling.maximumBackoff)
        #expect(DevicePolling.interval(after: .unavailable(status: nil), current: 8) == 16)
    }

    @Test("device-poll-not-json: a 4xx answer that is not an OAuth error object is final")
    func notJSON() {
        let result = DevicePolling.process(answer(400, "<h1>no</h1>", type: "text/html"), now: 1_000, dpop: false)
        guard case .failed = result else { Issue.record("\(result)"); return }
    }

    @Test("device-poll-interval-floor: a server's interval under one second is raised to one")
    func floor() {
        #expect(DevicePolling.firstInterval(0) == DevicePolling.minimumInterval)
        #expect(DevicePolling.firstInterval(5) == 5)
    }
}
