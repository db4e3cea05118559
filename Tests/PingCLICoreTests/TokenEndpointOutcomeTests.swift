import Testing

@testable import PingHTTP
@testable import PingOAuth

/// The one reading of a token endpoint answer every flow uses (`TokenEndpoint.classify`): tokens, or a
/// refusal sorted by what the sender can do about it, with RFC 8693's `issued_token_type` for an exchange.
@Suite("token endpoint outcome (RFC 6749 §5, RFC 8693 §2.2.1)")
struct TokenEndpointOutcomeTests {
    func answer(_ status: Int, _ body: String, type: String = "application/json", headers: [String: String] = [:]) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers.merging(["content-type": type]) { $1 }, body: Array(body.utf8))
    }

    let bearer = #"{"access_token":"abc","token_type":"Bearer","expires_in":60"#

    @Test("token-endpoint-tokens: a 200 with a token set is the token set")
    func tokens() {
        let outcome = TokenEndpoint.classify(answer(200, bearer + "}"), now: 1_000)
        guard case .tokens(let tokens) = outcome else { Issue.record("\(outcome)"); return }
        #expect(tokens.accessToken.value == "abc")
        #expect(tokens.expiresAt == 1_060)
    }

    @Test("refresh-unavailable: 5xx and 429 are the server's bad moment whatever the body says, with Retry-After")
    func unavailable() {
        let busy = TokenEndpoint.classify(answer(429, #"{"error":"invalid_grant"}"#, headers: ["retry-after": " 7 "]), now: 0)
        #expect(busy.oauthError?.error == "invalid_grant")
        guard case .refused(_, .unavailable, 429, 7) = busy else { Issue.record("\(busy)"); return }
        let down = TokenEndpoint.classify(answer(503, "<h1>down</h1>", type: "text/html"), now: 0)
        guard case .refused(.httpStatus(503, _), .unavailable, 503, nil) = down else { Issue.record("\(down)"); return }
    }

    @Test("refresh-client-error and invalid_grant: a 4xx OAuth error is the client's, invalid_grant a dead grant")
    func clientAndDeadGrant() {
        let client = TokenEndpoint.classify(answer(400, #"{"error":"invalid_client"}"#), now: 0)
        guard case .refused(.oauthError(400, _), .client, 400, nil) = client else { Issue.record("\(client)"); return }
        let dead = TokenEndpoint.classify(answer(400, #"{"error":"invalid_grant"}"#), now: 0)
        guard case .refused(_, .deadGrant, _, _) = dead else { Issue.record("\(dead)"); return }
        #expect(dead.oauthError?.error == "invalid_grant")
    }

    @Test("refresh-unreadable: a 4xx that is not an OAuth error object is unreadable, not the client's")
    func unreadable() {
        let page = TokenEndpoint.classify(answer(400, "<h1>no</h1>", type: "text/html"), now: 0)
        guard case .refused(.httpStatus(400, _), .unreadable, 400, nil) = page else { Issue.record("\(page)"); return }
        #expect(page.oauthError == nil)
    }

    @Test("target-issued-type: an exchange's answer must name an access token; other grants do not ask")
    func issuedTokenType() {
        let idToken = answer(200, bearer + #","issued_token_type":"urn:ietf:params:oauth:token-type:id_token"}"#)
        let refused = TokenEndpoint.classify(idToken, now: 0, exchange: true)
        guard case .refused(.issuedTokenType("urn:ietf:params:oauth:token-type:id_token"), _, 200, _) = refused else {
            Issue.record("\(refused)")
            return
        }
        #expect(TokenEndpointError.issuedTokenType("x").rule == .targetIssuedType)
        let missing = TokenEndpoint.classify(answer(200, bearer + "}"), now: 0, exchange: true)
        guard case .refused(.issuedTokenType("(missing)"), _, _, _) = missing else { Issue.record("\(missing)"); return }
        let access = answer(200, bearer + #","issued_token_type":"urn:ietf:params:oauth:token-type:access_token"}"#)
        guard case .tokens = TokenEndpoint.classify(access, now: 0, exchange: true) else { Issue.record("access token refused"); return }
        guard case .tokens = TokenEndpoint.classify(idToken, now: 0) else {
            Issue.record("a refresh was asked for issued_token_type"); return
        }
    }

    @Test("device-poll: a classified answer means the same to the poll as the response it came from")
    func devicePollFromOutcome() {
        let pending = TokenEndpoint.classify(answer(400, #"{"error":"authorization_pending"}"#), now: 0)
        guard case .pending = DevicePolling.process(pending) else { Issue.record("not pending"); return }
        let slow = TokenEndpoint.classify(answer(400, #"{"error":"slow_down"}"#), now: 0)
        #expect(DevicePolling.interval(after: DevicePolling.process(slow), current: 5) == 10)
        let busy = TokenEndpoint.classify(answer(502, #"{"error":"slow_down"}"#), now: 0)
        guard case .unavailable(status: 502) = DevicePolling.process(busy) else { Issue.record("not unavailable"); return }
        let denied = TokenEndpoint.classify(answer(400, #"{"error":"access_denied"}"#), now: 0)
        guard case .denied(let oauth) = DevicePolling.process(denied), oauth.error == "access_denied" else {
            Issue.record("not denied")
            return
        }
        guard case .expired = DevicePolling.process(TokenEndpoint.classify(answer(400, #"{"error":"expired_token"}"#), now: 0)) else {
            Issue.record("not expired")
            return
        }
    }
}
