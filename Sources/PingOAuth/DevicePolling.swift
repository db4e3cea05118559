import PingHTTP

/// The error codes a device-code poll of the token endpoint may answer with
/// ([RFC 8628 §3.5](https://www.rfc-editor.org/rfc/rfc8628#section-3.5)); any other code is final.
public enum DevicePollError: String, Sendable {
    case authorizationPending = "authorization_pending"
    case slowDown = "slow_down"
    case accessDenied = "access_denied"
    case expiredToken = "expired_token"
}

/// What one answer to a device-code poll means ([RFC 8628 §3.5](https://www.rfc-editor.org/rfc/rfc8628#section-3.5)).
public enum DevicePollOutcome: Sendable {
    /// The user approved: the token set.
    case tokens(TokenSet)
    /// `authorization_pending`: ask again after the same interval.
    case pending
    /// `slow_down`: the interval grows, for this and every later poll.
    case slowDown
    /// The server's bad moment (HTTP 5xx or 429, whatever the body says), or no answer at all (nil): not an
    /// answer, so poll again, less often.
    case unavailable(status: Int?)
    /// `access_denied`: the user declined at the provider.
    case denied(OAuthErrorResponse)
    /// `expired_token`: the device code expired before the user approved.
    case expired
    /// Any other refusal: final.
    case failed(TokenEndpointError)
}

/// The device flow's polling rules, pure: what an answer means, and how long to wait before the next poll.
public enum DevicePolling {
    /// Shortest pause between polls, whatever the server says: a server answering `interval: 0` is not
    /// hammered.
    public static let minimumInterval: Double = 1
    /// RFC 8628 §3.5: `slow_down` adds five seconds to the interval, for good.
    public static let slowDownIncrement: Double = 5
    /// Longest pause after repeated transient failures.
    public static let maximumBackoff: Double = 60

    /// The token endpoint's answer to a poll, read by `TokenEndpoint.classify` and then RFC 8628's codes.
    public static func process(_ response: HTTPResponse, now: Double, dpop: Bool) -> DevicePollOutcome {
        process(TokenEndpoint.classify(response, now: now, dpop: dpop))
    }

    /// What a classified answer means for the poll: the server's bad moment is not an answer; RFC 8628's
    /// four codes (§3.5) wait, slow down or end it; any other refusal is final.
    public static func process(_ answer: TokenEndpointOutcome) -> DevicePollOutcome {
        switch answer {
        case .tokens(let tokens): return .tokens(tokens)
        case .refused(_, .unavailable, let status, _): return .unavailable(status: status)
        case .refused(let error, _, _, _):
            guard case .oauthError(_, let oauth) = error, let code = DevicePollError(rawValue: oauth.error) else { return .failed(error) }
            switch code {
            case .authorizationPending: return .pending
            case .slowDown: return .slowDown
            case .accessDenied: return .denied(oauth)
            case .expiredToken: return .expired
            }
        }
    }

    /// The first interval: the server's, but never under `minimumInterval`.
    public static func firstInterval(_ advertised: Double) -> Double { max(advertised, minimumInterval) }

    /// The interval after `outcome`: `slow_down` adds five seconds (§3.5); an unavailable server or a
    /// connection timeout doubles it (§3.5, "exponential backoff"), up to `maximumBackoff`.
    public static func interval(after outcome: DevicePollOutcome, current: Double) -> Double {
        switch outcome {
        case .slowDown: current + slowDownIncrement
        case .unavailable: min(current * 2, maximumBackoff)
        case .tokens, .pending, .denied, .expired, .failed: current
        }
    }
}
