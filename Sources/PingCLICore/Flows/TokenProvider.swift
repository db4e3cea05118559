/// A token set that is ready to use, with anything the user should be warned about.
public struct FreshTokens: Sendable {
    public var tokens: TokenSet
    public var profile: Profile
    /// Set when the tokens are served despite a failed refresh (the access token has not expired yet).
    public var warning: String?
}

/// Hands out an access token that is good for at least `minimumTTL` seconds, refreshing it when needed
/// ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)).
///
/// The fast path reads and decrypts the cache without locking: writes are atomic renames, so a reader
/// sees a whole old or a whole new file. A refresh holds the profile's lock and re-reads the cache
/// under it, so of many processes that need a refresh at once exactly one talks to the server and the
/// rest use its result. Refresh tokens rotate, so the newest is always the one saved.
public struct TokenProvider {
    public let profileName: ProfileName
    public let context: FlowContext

    public init(profile: ProfileName, context: FlowContext) {
        self.profileName = profile
        self.context = context
    }

    func notLoggedIn() -> PingCLIError {
        .loginRequired(
            "not logged in for profile \"\(profileName)\": run pingcli login --profile \(profileName) --issuer URL --client-id ID")
    }

    func sessionExpired(_ reason: String) -> PingCLIError {
        .loginRequired("session expired for profile \"\(profileName)\" (\(reason)): run pingcli login --profile \(profileName)")
    }

    /// Loads the profile and its tokens as they are on disk. `lockHeld` says the caller holds the profile's lock.
    public func cached(lockHeld: Bool = false) throws(PingCLIError) -> (Profile, TokenSet) {
        guard let profile = try context.store.loadProfile(profileName) else { throw notLoggedIn() }
        do throws(PingCLIError) {
            guard let tokens = try context.store.loadTokens(profileName, profile: profile) else { throw notLoggedIn() }
            return (profile, tokens)
        } catch {
            // A login to another issuer may have replaced profile.json and not yet tokens.enc (which is bound
            // to the issuer). Login writes both under the lock, so read both again holding it before
            // believing the cache is damaged.
            guard !lockHeld else { throw error }
            let lock = try context.store.lock(profileName)
            defer { lock.unlock() }
            return try cached(lockHeld: true)
        }
    }

    /// Tokens whose access token lives at least `minimumTTL` more seconds, refreshed if needed.
    /// `forceRefresh` refreshes even a fresh token (used after a 401), unless another process already did.
    public func fresh(minimumTTL: Double, forceRefresh: Bool = false) throws(PingCLIError) -> FreshTokens {
        let (profile, tokens) = try cached()
        if !forceRefresh && tokens.isFresh(now: context.clock(), minimumTTL: minimumTTL) {
            return FreshTokens(tokens: tokens, profile: profile)
        }
        let lock = try context.store.lock(profileName)
        defer { lock.unlock() }
        // Another process may have refreshed (or logged in) while we waited for the lock.
        let (currentProfile, current) = try cached(lockHeld: true)
        let refreshedMeanwhile = current.accessToken != tokens.accessToken
        if current.isFresh(now: context.clock(), minimumTTL: minimumTTL) && (!forceRefresh || refreshedMeanwhile) {
            return FreshTokens(tokens: current, profile: currentProfile)
        }
        return try refresh(current, profile: currentProfile)
    }

    /// One refresh request, with the lock held by the caller.
    private func refresh(_ tokens: TokenSet, profile: Profile) throws(PingCLIError) -> FreshTokens {
        let now = context.clock()
        guard let refreshToken = tokens.refreshToken else {
            // Nothing can extend this session: say so now rather than hand out a token about to die.
            let when =
                tokens.isExpired(now: now) ? "has expired" : "expires \(tokens.expiresAt.map { describeInterval($0 - now) } ?? "soon")"
            throw sessionExpired("the access token \(when) and there is no refresh token")
        }
        let request = TokenEndpoint.refreshRequest(
            endpoint: profile.metadata.tokenEndpoint, refreshToken: refreshToken, clientID: profile.clientID)
        let transport = context.transport(caFile: profile.caFile)

        /// A failure that leaves the session usable later: keep everything, serve an unexpired token.
        func transient(_ error: PingCLIError) throws(PingCLIError) -> FreshTokens {
            guard !tokens.isExpired(now: context.clock()) else { throw error }
            return FreshTokens(
                tokens: tokens, profile: profile, warning: "\(error.message); using the cached access token, which has not expired yet")
        }

        let response: HTTPResponse
        do {
            response = try transport.send(request)
        } catch {
            return try transient(error.asCLIError(doing: "refresh"))
        }
        let refreshed: TokenSet
        do {
            refreshed = try TokenEndpoint.process(response, now: context.clock())
        } catch {
            if error.isInvalidGrant {
                // The refresh token is dead: stop using it, but keep an access token that still works.
                var dead = tokens
                dead.refreshToken = nil
                try context.store.saveTokens(dead, profileName, profile: profile)
                if case .oauthError(_, let oauth) = error { throw sessionExpired("the refresh token was rejected: \(oauth.summary)") }
                throw sessionExpired("the refresh token was rejected")
            }
            if case .oauthError = error {
                throw .failure(
                    "refresh failed: \(error.message): check the client's settings, or run pingcli login --profile \(profileName)")
            }
            // 5xx pages, HTML from a proxy, garbage: the server is having a bad moment.
            let status: ExitStatus = response.status >= 500 || response.status == 429 ? .unreachable : .failure
            return try transient(PingCLIError(status, "refresh failed: \(error.message)"))
        }
        let previousSubject = tokens.idToken.flatMap { try? IDTokenClaims.decode($0.value) }?.subject
        if let idToken = refreshed.idToken {
            _ = try TokenExchange.validateIDToken(
                idToken, issuer: profile.issuer, clientID: profile.clientID, nonce: nil, now: context.clock(),
                previousSubject: previousSubject, doing: "refresh")
        }
        let merged = tokens.merging(refreshed)
        try context.store.saveTokens(merged, profileName, profile: profile)
        return FreshTokens(tokens: merged, profile: profile)
    }
}
