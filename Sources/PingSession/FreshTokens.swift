import PingOAuth
import PingState

/// A token set that is ready to use, with anything the user should be warned about.
public struct FreshTokens: Sendable {
    public var tokens: TokenSet
    public var profile: Profile
    /// Set when the tokens are served despite a failed refresh (the access token has not expired yet).
    public var warning: String?

    package init(tokens: TokenSet, profile: Profile, warning: String? = nil) {
        self.tokens = tokens
        self.profile = profile
        self.warning = warning
    }
}

/// Which token a caller wants fresh: the access token, or the ID token (for clusters whose OIDC
/// authenticator checks it).
public enum TokenKind: Sendable {
    case access
    case id
}

extension TokenSet {
    /// When the chosen token expires: the access token's `expires_at`, or the ID token's `exp` claim
    /// (nil when there is no ID token or it cannot be decoded: the cache is authenticated, so that only
    /// happens for a set without one).
    package func expiry(of kind: TokenKind) -> Double? {
        switch kind {
        case .access: return expiresAt
        case .id: return idToken.flatMap { try? IDTokenClaims.decode($0.value) }?.expiration
        }
    }

    /// Whether the chosen token lives at least `minimumTTL` more seconds. A missing ID token is never fresh.
    package func isFresh(_ kind: TokenKind, now: Double, minimumTTL: Double) -> Bool {
        switch kind {
        case .access: return isFresh(now: now, minimumTTL: minimumTTL)
        case .id: return expiry(of: .id).map { $0 - now > minimumTTL } ?? false
        }
    }

    /// Whether the chosen token has actually expired (a missing ID token counts as expired).
    package func isExpired(_ kind: TokenKind, now: Double) -> Bool {
        switch kind {
        case .access: return isExpired(now: now)
        case .id: return expiry(of: .id).map { $0 <= now } ?? true
        }
    }
}
