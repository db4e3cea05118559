#if canImport(Glibc)
    import Glibc
#endif

/// What pingcli keeps from token responses; encrypted at rest by the token store.
public struct TokenSet: Codable, Sendable, Equatable {
    public var accessToken: AccessToken
    public var tokenType: String
    /// Seconds since 1970 when the access token expires; nil when the server did not say.
    public var expiresAt: Double?
    public var refreshToken: RefreshToken?
    public var idToken: IDToken?
    public var scope: String?
    /// Seconds since 1970 when this set was obtained.
    public var obtainedAt: Double
    /// A confidential client's secret, kept with the tokens so that only the encrypted cache holds it.
    public var clientSecret: ClientSecret?
    /// The profile's DPoP key pair (RFC 9449), kept only here, inside the encrypted cache; nil for Bearer.
    public var dpopKey: DPoPKey?
    /// A journey's AM session (`tokenId`), kept only here: a new code when the refresh token is gone,
    /// and ended at AM by `logout`. nil for every other sign-in.
    public var amSession: SSOToken? = nil
    /// Seconds since 1970 when AM ends `amSession` at the latest (its `maxSessionExpirationTime`, asked when
    /// the journey ended); nil when AM did not say.
    public var amSessionEnds: Double? = nil
    /// 16 random bytes drawn when a login saves a new session and kept through its refreshes: the
    /// narrower tokens cached beside the session decrypt only with the session that obtained them.
    public var sessionID: [UInt8]? = nil

    package enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresAt = "expires_at"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case scope
        case obtainedAt = "obtained_at"
        case clientSecret = "client_secret"
        case dpopKey = "dpop_key"
        case amSession = "am_session"
        case amSessionEnds = "am_session_ends"
        case sessionID = "session_id"
    }

    public init(
        accessToken: AccessToken, tokenType: String, expiresAt: Double?, refreshToken: RefreshToken?, idToken: IDToken?,
        scope: String?, obtainedAt: Double, clientSecret: ClientSecret? = nil, dpopKey: DPoPKey? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
        self.obtainedAt = obtainedAt
        self.clientSecret = clientSecret
        self.dpopKey = dpopKey
    }

    /// Whether the access token is still good for at least `minimumTTL` seconds. A token without a
    /// known expiry counts as fresh: the server chose not to say.
    public func isFresh(now: Double, minimumTTL: Double) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt - now > minimumTTL
    }

    /// Whether the access token has actually expired (not merely close to it).
    public func isExpired(now: Double) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= now
    }

    /// The set after a refresh ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)): a
    /// refresh token or ID token the server did not send again stays as it was.
    public func merging(_ refreshed: TokenSet) -> TokenSet {
        var next = refreshed
        if next.refreshToken == nil { next.refreshToken = refreshToken }
        if next.idToken == nil { next.idToken = idToken }
        if next.scope == nil { next.scope = scope }
        if next.clientSecret == nil { next.clientSecret = clientSecret }
        if next.dpopKey == nil { next.dpopKey = dpopKey }
        if next.amSession == nil {
            next.amSession = amSession
            next.amSessionEnds = amSessionEnds
        }
        if next.sessionID == nil { next.sessionID = sessionID }
        return next
    }
}
