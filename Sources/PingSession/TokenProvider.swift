import PingBase
import PingFlowCore
import PingHTTP
import PingOAuth
import PingPlatform
import PingState

/// Hands out an access token that is good for at least `minimumTTL` seconds, refreshing it when needed
/// ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)).
///
/// The fast path reads and decrypts the cache without locking: writes are atomic renames, so a reader
/// sees a whole old or a whole new file. A refresh holds the profile's lock and re-reads the cache
/// under it, so of many processes that need a refresh at once exactly one talks to the server and the
/// rest use its result. Refresh tokens rotate, so the newest is always the one saved.
///
/// A failed refresh is recorded beside the cache with a backoff (`RefreshFailure`): until it ends,
/// nobody sends another one; the cached access token is served with a warning while it is valid, and
/// otherwise the recorded failure is reported at once. The key is loaded before any lock is taken.
public struct TokenProvider {
    public let profileName: ProfileName
    public let context: SessionContext
    /// The token that must be fresh: the access token unless `--id-token` asked for the ID token.
    public var kind: TokenKind = .access
    package let key: CommandKey

    /// Seconds a refresh may take while the cached access token is still valid (it can be served instead).
    package static let shortRefreshTimeout = 5

    public init(profile: ProfileName, context: SessionContext) {
        self.profileName = profile
        self.context = context
        self.key = context.store.commandKey()
    }

    /// `hasSettings`: the profile's settings are saved, so `login --profile NAME` alone signs it in again.
    package func notLoggedIn(hasSettings: Bool) -> PingCLIError {
        let note = hasSettings ? "" : unknownProfileNote(profileName, store: context.store)
        return PingCLIError(
            .loginRequired,
            "not logged in for profile \"\(profileName)\"\(note): run \(loginCommand(for: profileName, hasSettings: hasSettings))",
            rule: .notLoggedIn)
    }

    package func sessionExpired(_ reason: String) -> PingCLIError {
        PingCLIError(
            .loginRequired, "session expired for profile \"\(profileName)\" (\(reason)): run pingcli login --profile \(profileName)",
            rule: .sessionExpired)
    }

    /// A refresh token the server rejected (`invalid_grant`): it is dropped from the cache, keeping an
    /// access token that still works, and the session-expired error is returned. The lock is held.
    /// `stillWorks`: say so when the access token has not expired (the refresh was for `--min-ttl`).
    package func droppingRejectedRefreshToken(
        _ tokens: TokenSet, profile: Profile, oauth: OAuthErrorResponse?, stillWorks: Bool = true
    ) throws(PingCLIError) -> PingCLIError {
        var dead = tokens
        dead.refreshToken = nil
        try StoreAdvice.worded(context.store.writeTokens(dead, profileName, profile: profile, key: key))
        let rejected = "the refresh token was rejected\(oauth.map { ": \($0.summary)" } ?? "")"
        // Refreshed only because --min-ttl asked for more than the token has left: it still works.
        if stillWorks, let expiresAt = tokens.expiresAt, !tokens.isExpired(now: context.clock()) {
            return PingCLIError(
                .loginRequired,
                "profile \"\(profileName)\" cannot renew its access token (\(rejected)); the cached one still works for \(describeInterval(expiresAt - context.clock()).dropFirst(3)), less than --min-ttl asks: lower --min-ttl to use it, or run pingcli login --profile \(profileName)",
                rule: .sessionExpired)
        }
        return sessionExpired(rejected)
    }

    /// Takes the profile's lock, with the key loaded first: a key command never runs under the lock.
    package func lock() throws(PingCLIError) -> FileLock {
        _ = try? key.get()
        return try StoreAdvice.worded(context.store.takeLock(profileName))
    }

    /// Loads the profile and its tokens as they are on disk. `lockHeld` says the caller holds the profile's lock.
    public func cached(lockHeld: Bool = false) throws(PingCLIError) -> (Profile, TokenSet) {
        // The profile, its cache, the key and the generation record are read one after the other: the
        // directories above them are judged once (OpenSSH's rule), not once per file. Never across the wait
        // for the lock below.
        var sharedChecks = FileSystem.beginSharedPathChecks()
        defer { FileSystem.endSharedPathChecks(sharedChecks) }
        guard let profile = try savedProfile() else { throw notLoggedIn(hasSettings: false) }
        do throws(PingCLIError) {
            guard let tokens = try savedTokens(profile) else { throw notLoggedIn(profile: profile) }
            return (profile, tokens)
        } catch {
            // A login to another issuer may have replaced profile.json and not yet tokens.enc (which is bound
            // to the profile). Login writes both under the lock, so read both again holding it before
            // believing the cache is damaged or the profile changed.
            guard !lockHeld else { throw error }
            FileSystem.endSharedPathChecks(sharedChecks)
            sharedChecks = false
            let lock = try lock()
            defer { lock.unlock() }
            return try cached(lockHeld: true)
        }
    }

    // A cache hit's two reads, their failures worded here rather than through the generic
    // `StoreAdvice.worded`, which the optimiser does not specialise across modules: its generic call and
    // the `Profile?` it copied cost every cache hit 8,000 instructions.
    private func savedProfile() throws(PingCLIError) -> Profile? {
        do { return try context.store.readProfile(profileName) } catch { throw error.cliError }
    }

    private func savedTokens(_ profile: Profile) throws(PingCLIError) -> TokenSet? {
        do { return try context.store.readTokens(profileName, profile: profile, key: key) } catch { throw error.cliError }
    }

    /// Tokens whose access token (or ID token, per `kind`) lives at least `minimumTTL` more seconds,
    /// refreshed if needed. `forceRefresh` refreshes even a fresh token (used after a 401), unless
    /// another process already did.
    public func fresh(minimumTTL: Double, forceRefresh: Bool = false) throws(PingCLIError) -> FreshTokens {
        let (profile, tokens) = try cached()
        if kind == .id && tokens.idToken == nil { throw noIDToken() }
        if !forceRefresh && tokens.isFresh(kind, now: context.clock(), minimumTTL: minimumTTL) {
            return FreshTokens(tokens: tokens, profile: profile)
        }
        return try renewed(tokens, profile: profile, minimumTTL: minimumTTL, forceRefresh: forceRefresh)
    }

    /// `fresh` past a cache hit: the backoff, the lock, the refresh. Kept out of `fresh` (never inlined):
    /// its values made `fresh`'s stack frame 20 KB, five pages a cache hit faulted in for nothing.
    @inline(never)
    private func renewed(_ tokens: TokenSet, profile: Profile, minimumTTL: Double, forceRefresh: Bool) throws(PingCLIError) -> FreshTokens {
        // A refresh failed moments ago: do not queue for the lock to send it again.
        if let served = try heldBack(tokens, profile: profile, force: forceRefresh) { return served }
        let lock = try lock()
        defer { lock.unlock() }
        // Another process may have refreshed (or logged in, or failed) while we waited for the lock.
        let (currentProfile, current) = try cached(lockHeld: true)
        let refreshedMeanwhile = current.accessToken != tokens.accessToken
        if current.isFresh(kind, now: context.clock(), minimumTTL: minimumTTL) && (!forceRefresh || refreshedMeanwhile) {
            return FreshTokens(tokens: current, profile: currentProfile)
        }
        if let served = try heldBack(current, profile: currentProfile, force: forceRefresh && !refreshedMeanwhile) { return served }
        return try refresh(current, profile: currentProfile)
    }

    /// While a recorded failure's backoff lasts, what the process that recorded it got: the cached token
    /// with the failure as a warning when the failure was transient and the token is still valid (and
    /// not known to be rejected), else the failure itself. nil when no backoff holds.
    private func heldBack(_ tokens: TokenSet, profile: Profile, force: Bool) throws(PingCLIError) -> FreshTokens? {
        let now = context.clock()
        guard let failure = try FileAdvice.worded(try context.store.activeRefreshFailure(profileName, for: tokens, now: now)) else {
            return nil
        }
        guard failure.transient, !force, !tokens.isExpired(kind, now: now) else { throw failure.error(now: now) }
        return FreshTokens(tokens: tokens, profile: profile, warning: "\(failure.message); \(servingCached)")
    }

    /// The warning's second half when a cached token is served despite a failed refresh.
    private var servingCached: String {
        "using the cached \(kind == .id ? "ID" : "access") token, which has not expired yet"
    }

    /// The profile holds no ID token at all: the provider sent none at sign-in.
    package func noIDToken() -> PingCLIError {
        .loginRequired(
            "profile \"\(profileName)\" holds no ID token (the provider sent none; the openid scope is needed): run pingcli login --profile \(profileName) --scope \"openid profile\"",
            rule: .idTokenNone
        )
    }

    /// Why a refresh request did not produce a new token set.
    private enum RefreshProblem: Error {
        /// The server could not be reached, or answered 5xx / 429 / garbage: try again later.
        case transient(PingCLIError, retryAfter: Double?)
        /// A 4xx OAuth error other than `invalid_grant`: the client's settings.
        case client(PingCLIError)
        /// `invalid_grant`: the refresh token is dead.
        case invalidGrant(OAuthErrorResponse?)
    }

    /// One refresh request, with the lock held by the caller: the request (or a journey's renewal), the
    /// exchange and what its failure leaves to serve, the refreshed ID token's checks, and the save.
    private func refresh(_ tokens: TokenSet, profile: Profile) throws(PingCLIError) -> FreshTokens {
        let now = context.clock()
        // While the cached token can still be served, a hanging server gets a short timeout.
        let canServeCached = !tokens.isExpired(kind, now: now)
        let client = try profile.signing(profile.tokenClient(secret: tokens.clientSecret), clock: context.clock)
        let request: HTTPRequest
        switch try renewal(tokens, profile: profile, client: client, now: now) {
        case .request(let made): request = made
        case .renewed(let renewed): return renewed
        }
        // A DPoP-bound refresh token is refreshed with a proof from the same key (RFC 9449 §5).
        let transport = context.transports.transport(
            caFile: profile.caFile, tls: profile.clientTLS, timeout: canServeCached ? Self.shortRefreshTimeout : nil,
            dpop: tokens.dpopKey)
        let refreshed: TokenSet
        do {
            refreshed = try exchange(request, transport: transport, dpop: tokens.dpopKey != nil)
        } catch {
            return try recover(from: error, tokens, profile: profile)
        }
        try checkRefreshedIDToken(refreshed, tokens, profile: profile, transport: transport)
        return try saveRefreshed(refreshed, tokens, profile: profile, now: now)
    }

    /// How a session is renewed: a request to send, or a journey's session already renewed.
    private enum Renewal {
        case request(HTTPRequest)
        case renewed(FreshTokens)
    }

    /// The renewal request: a machine's new client credentials request, or the refresh token's; without
    /// a refresh token, a journey's AM session renewed, or the session-expired error.
    private func renewal(
        _ tokens: TokenSet, profile: Profile, client: ClientCredentials, now: Double
    ) throws(PingCLIError) -> Renewal {
        if profile.grantType == .clientCredentials {
            // A machine renews by asking again (RFC 6749 §4.4), under the same lock and backoff as a refresh.
            return .request(
                TokenEndpoint.clientCredentialsRequest(endpoint: profile.metadata.tokenEndpoint, scopes: profile.scopes, client: client))
        }
        guard let refreshToken = tokens.refreshToken else {
            // A journey's AM session gets a new code while AM accepts it, as the SDKs do.
            if let renewed = try renewedWithAMSession(tokens, profile: profile) { return .renewed(renewed) }
            // Nothing can extend this session: say so now rather than hand out a token about to die.
            let when =
                tokens.isExpired(now: now) ? "has expired" : "expires \(tokens.expiresAt.map { describeInterval($0 - now) } ?? "soon")"
            throw sessionExpired("the access token \(when) and there is no refresh token")
        }
        return .request(TokenEndpoint.refreshRequest(endpoint: profile.metadata.tokenEndpoint, refreshToken: refreshToken, client: client))
    }

    /// After a failed exchange: a dead refresh token is dropped (and a journey's session tried); any other
    /// failure is recorded with its backoff, and a transient one serves the cached token while it is valid.
    private func recover(from problem: RefreshProblem, _ tokens: TokenSet, profile: Profile) throws(PingCLIError) -> FreshTokens {
        switch problem {
        case .invalidGrant(let oauth):
            let expired = try droppingRejectedRefreshToken(tokens, profile: profile, oauth: oauth)
            try FileAdvice.worded(try context.store.clearRefreshFailure(profileName))
            var dropped = tokens
            dropped.refreshToken = nil
            if let renewed = try renewedWithAMSession(dropped, profile: profile) { return renewed }
            throw expired
        case .client(let failure):
            try record(failure, for: tokens, transient: false, retryAfter: nil)
            throw failure
        case .transient(let failure, let retryAfter):
            try record(failure, for: tokens, transient: true, retryAfter: retryAfter)
            guard !tokens.isExpired(kind, now: context.clock()) else { throw failure }
            return FreshTokens(tokens: tokens, profile: profile, warning: "\(failure.message); \(servingCached)")
        }
    }

    /// OIDC Core §12.2: a refreshed ID token keeps iss, sub and aud, and the sign-in's authentication;
    /// one that appears only now (a device sign-in without one) must name the UserInfo subject.
    private func checkRefreshedIDToken(
        _ refreshed: TokenSet, _ tokens: TokenSet, profile: Profile, transport: any HTTPTransport
    ) throws(PingCLIError) {
        let previous = tokens.idToken.flatMap { try? IDTokenClaims.decode($0.value) }
        guard let idToken = refreshed.idToken else { return }
        do {
            try IDTokenKeys.verifyAtRefresh(
                idToken, profile: profile, cachePath: context.store.paths.jwksFile(profileName),
                clientSecret: tokens.clientSecret?.value, transport: transport, now: context.clock())
        } catch  where error.status == .unreachable {
            // The keys cannot be fetched now: keep the new access and refresh tokens (they came from the
            // token endpoint over TLS, and a rotated refresh token must not be lost), never the unchecked
            // ID token, and say what is wrong.
            var kept = tokens.merging(refreshed)
            kept.idToken = tokens.idToken
            try StoreAdvice.worded(context.store.writeTokens(kept, profileName, profile: profile, key: key))
            throw .unreachable(
                "\(error.message): the ID token from this refresh was not kept; the new access and refresh tokens were: try again later",
                rule: error.rule)
        } catch {
            throw try keepingRotatedRefreshToken(tokens, refreshed, profile: profile, refused: error)
        }
        // An ID token about someone else (or for another client) discards everything, the refresh token
        // too: a later refresh without an ID token would otherwise serve that person's access tokens.
        let claims = try IDTokenValidation.validateIdentity(
            idToken, issuer: profile.issuer, clientID: profile.clientID, nonce: nil, now: context.clock(),
            previousSubject: previous?.subject ?? profile.subject, doing: "refresh")
        do {
            try IDTokenValidation.validateAuthentication(
                claims, requirements: profile.requirements, now: context.clock(), refreshing: true,
                originalAuthTime: previous?.authTime, doing: "refresh")
        } catch {
            throw try keepingRotatedRefreshToken(tokens, refreshed, profile: profile, refused: error)
        }
    }

    /// Saves the refreshed tokens over the cached ones (a machine keeps no refresh or ID token) and ends
    /// any recorded failure. `now`: when the refresh began.
    private func saveRefreshed(
        _ refreshed: TokenSet, _ tokens: TokenSet, profile: Profile, now: Double
    ) throws(PingCLIError) -> FreshTokens {
        var merged = tokens.merging(refreshed)
        if profile.grantType == .clientCredentials {
            merged.refreshToken = nil
            merged.idToken = nil
        }
        try StoreAdvice.worded(context.store.writeTokens(merged, profileName, profile: profile, key: key))
        try FileAdvice.worded(try context.store.clearRefreshFailure(profileName))
        if kind == .id && refreshed.idToken == nil {
            // The new access token is kept, but the cached ID token is the one that was about to expire.
            throw .loginRequired(
                "the provider returned no new ID token on refresh, and the cached one expires \(describeInterval((tokens.expiry(of: .id) ?? now) - context.clock())): run pingcli login --profile \(profileName)",
                rule: .idTokenNotRefreshed)
        }
        return FreshTokens(tokens: merged, profile: profile)
    }

    /// A refreshed ID token was refused for its signature or for how the person authenticated, so nothing
    /// that came with it is served. A rotated refresh token came from the token endpoint over TLS, though,
    /// and the one it replaces is spent at the server: it is kept (and nothing else), or the session would
    /// be lost. Returns the error to throw.
    private func keepingRotatedRefreshToken(
        _ tokens: TokenSet, _ refreshed: TokenSet, profile: Profile, refused error: PingCLIError
    ) throws(PingCLIError) -> PingCLIError {
        guard let rotated = refreshed.refreshToken, rotated != tokens.refreshToken, profile.grantType != .clientCredentials else {
            return error
        }
        var kept = tokens
        kept.refreshToken = rotated
        try StoreAdvice.worded(context.store.writeTokens(kept, profileName, profile: profile, key: key))
        return PingCLIError(error.status, "\(error.message) (only the rotated refresh token from this refresh was kept)", rule: error.rule)
    }

    /// Sends the refresh request and sorts its failures by what the user can do about them: 5xx and 429
    /// are the server's bad moment whatever the body says; only a 4xx OAuth error is the client's.
    private func exchange(_ request: HTTPRequest, transport: any HTTPTransport, dpop: Bool) throws(RefreshProblem) -> TokenSet {
        let outcome: TokenEndpointOutcome
        do {
            outcome = try TokenEndpointCall(transport: transport, clock: context.clock, dpop: dpop).send(request)
        } catch {
            var failure = error.asCLIError(doing: "refresh", endpoint: "token", url: request.url)
            // A server key outside the pins may be an attacker's: said at once, never served around.
            if case .pinMismatch = error {
                failure.rule = .pinMismatch
                throw .client(failure)
            }
            failure.rule = .refreshUnreachable
            throw .transient(failure, retryAfter: nil)
        }
        switch outcome {
        case .tokens(let tokens): return tokens
        case .refused(let error, .unavailable, let status, let retryAfter):
            let detail = outcome.oauthError.map { "HTTP \(status): \($0.summary)" } ?? error.message
            throw .transient(
                PingCLIError(
                    .unreachable, "refresh failed: the token endpoint is unavailable (\(detail)): try again later",
                    rule: .refreshUnavailable),
                retryAfter: retryAfter)
        case .refused(_, .deadGrant, _, _):
            throw .invalidGrant(outcome.oauthError)
        case .refused(let error, .client, _, _):
            throw .client(
                PingCLIError(
                    .failure,
                    "refresh failed: \(error.message): check the client's settings, or run pingcli login --profile \(profileName)",
                    rule: .refreshClientError))
        case .refused(let error, .unreadable, _, _):
            // HTML from a proxy, garbage: keep everything, serve an unexpired token.
            throw .transient(PingCLIError(.failure, "refresh failed: \(error.message)", rule: .refreshUnreadable), retryAfter: nil)
        }
    }

    /// Records a failed refresh with its backoff, so the processes waiting for the lock do not repeat it.
    private func record(_ error: PingCLIError, for tokens: TokenSet, transient: Bool, retryAfter: Double?) throws(PingCLIError) {
        let now = context.clock()
        let previous = try FileAdvice.worded(try context.store.loadRefreshFailure(profileName)).flatMap {
            $0.obtainedAt == tokens.obtainedAt ? $0 : nil
        }
        let attempts = (previous?.attempts ?? 0) + 1
        let failure = RefreshFailure(
            failedAt: now, retryAfter: now + RefreshFailure.backoff(attempts: attempts, retryAfterHeader: retryAfter),
            attempts: attempts, status: error.status.rawValue, message: error.message, obtainedAt: tokens.obtainedAt,
            transient: transient)
        try FileAdvice.worded(try context.store.saveRefreshFailure(failure, profileName))
    }
}
