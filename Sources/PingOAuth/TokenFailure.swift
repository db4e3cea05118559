/// What a refused token request means for the one who sent it: wait and try again, fix the client, or
/// sign in again (AppAuth's split between errors that need re-authentication and passing ones). The one
/// place that decides which answers are the server's bad moment; the refresh and the device poll both
/// ask it.
public enum TokenFailureKind: Sendable, Equatable {
    /// HTTP 5xx or 429, whatever the body says: the server's bad moment.
    case unavailable
    /// An answer that is not an OAuth error object (an HTML page from a proxy, garbage): passing too.
    case unreadable
    /// A 4xx OAuth error other than `invalid_grant` (RFC 6749 §5.2): the client's settings.
    case client
    /// `invalid_grant`: the grant (refresh token, code, device code) is dead; only a new sign-in helps.
    case deadGrant

    /// Whether `status` is the server's bad moment (5xx, or 429 Too Many Requests).
    public static func isUnavailable(status: Int) -> Bool { status >= 500 || status == 429 }

    /// The kind of a response with `status` that `TokenEndpoint.process` refused with `error`.
    public init(status: Int, error: TokenEndpointError) {
        if Self.isUnavailable(status: status) {
            self = .unavailable
        } else if error.isInvalidGrant {
            self = .deadGrant
        } else if case .oauthError = error {
            self = .client
        } else {
            self = .unreadable
        }
    }

    /// Whether trying again later may succeed (and a still-valid cached token may be served meanwhile).
    public var isTransient: Bool { self == .unavailable || self == .unreadable }
}
