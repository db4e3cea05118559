import PingBase
import PingFlowCore
import PingHTTP
import PingOAuth
import PingPlatform
import PingState

/// Hands out an access token for a `TokenTarget` (`token --scope`, `--resource`, `--audience`): from its
/// own record in the targeted cache while it lives `minimumTTL` more seconds, else a new one obtained
/// without a browser, under the profile's lock:
///
/// - the session's refresh token with a narrower `scope` and a `resource`
///   ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6),
///   [RFC 8707 §2.2](https://www.rfc-editor.org/rfc/rfc8707#section-2.2)); a provider that rotates refresh
///   tokens answers with a new one, which becomes the session's (RFC 6749 §6: it keeps the whole grant);
/// - token exchange ([RFC 8693](https://www.rfc-editor.org/rfc/rfc8693)) with the session's access token
///   as subject, for an `audience`, or when there is no refresh token, where discovery lists that grant;
/// - a client-credentials profile asks again with the target's `scope` and `resource`.
///
/// The main session (`tokens.enc`) is never replaced by a narrower token. Requests carry the profile's
/// DPoP proof and client certificate as a refresh does.
package struct TargetedTokenProvider {
    package let base: TokenProvider
    package let target: TokenTarget

    private var context: SessionContext { base.context }
    private var profileName: ProfileName { base.profileName }

    /// How the token is obtained.
    package enum Grant: Equatable {
        case refresh
        case exchange
        case clientCredentials
        /// `--audience` sent as `resource`: no token exchange is listed, and the audience is an absolute URI.
        case refreshAudienceAsResource
    }

    /// The grant this profile and provider allow for the target, decided before any request.
    package func grant(profile: Profile, tokens: TokenSet) throws(PingCLIError) -> Grant {
        let exchangeListed = profile.metadata.grantTypesSupported?.contains(TokenEndpoint.tokenExchangeGrantType) == true
        if let audience = target.audience, !exchangeListed {
            guard target.resource == nil, TokenTarget.isAbsoluteURI(audience) else {
                throw PingCLIError(
                    .usage,
                    "--audience \(displaySafe(audience, limit: 80)) needs token exchange (RFC 8693), which the provider does not list in grant_types_supported: use --resource URI (RFC 8707) instead",
                    rule: .targetNoExchange)
            }
            return profile.grantType == .clientCredentials ? .clientCredentials : .refreshAudienceAsResource
        }
        if target.audience != nil { return .exchange }
        if profile.grantType == .clientCredentials { return .clientCredentials }
        if tokens.refreshToken != nil { return .refresh }
        if exchangeListed { return .exchange }
        throw PingCLIError(
            .loginRequired,
            "profile \"\(profileName)\" holds no refresh token and the provider lists no token exchange, so no token for \(target.summary) can be obtained without signing in: run pingcli login --profile \(profileName) --scope \"…\" with the scopes you need",
            rule: .targetNoGrant)
    }

    /// A token for the target that lives `minimumTTL` more seconds. `replacing`: a token a server refused
    /// (`api` after a 401), never served again, although one another process obtained meanwhile is.
    package func fresh(minimumTTL: Double, replacing: AccessToken? = nil) throws(PingCLIError) -> FreshTokens {
        let (profile, tokens) = try base.cached()
        let key = target.cacheKey
        let before = try StoreAdvice.worded(
            context.store.readSide(
                TargetedTokenFile.self, profileName, profile: profile, session: tokens.sessionID, key: base.key))[key]
        if let hit = served(before, profile: profile, tokens: tokens, minimumTTL: minimumTTL, replacing: replacing) {
            return hit
        }
        let grant = try grant(profile: profile, tokens: tokens)
        // Token exchange needs a live subject token: made fresh first, since that may take the same lock.
        let subject = grant == .exchange ? try base.fresh(minimumTTL: 60).tokens.accessToken : nil
        let lock = try base.lock()
        defer { lock.unlock() }
        let (currentProfile, current) = try base.cached(lockHeld: true)
        // Read again under the lock: another process may have obtained this target's token meanwhile.
        var records = try StoreAdvice.worded(
            context.store.readSide(
                TargetedTokenFile.self, profileName, profile: currentProfile, session: current.sessionID, key: base.key))
        if let hit = served(records[key], profile: currentProfile, tokens: current, minimumTTL: minimumTTL, replacing: replacing) {
            return hit
        }
        let obtained: TokenSet
        do {
            obtained = try request(grant, profile: currentProfile, tokens: current, subject: subject)
        } catch {
            // A passing failure while this target's token still works: serve it, and say why.
            if error.status == .unreachable, let cached = records[key], !cached.isExpired(now: context.clock()),
                cached.accessToken != replacing
            {
                var served = cached
                served.dpopKey = current.dpopKey
                return FreshTokens(
                    tokens: served, profile: currentProfile,
                    warning: "\(error.message); using the cached token for \(target.summary), which has not expired yet")
            }
            throw error
        }
        // Rotation: the refresh token that came back replaces the session's; the narrower access token does not.
        if let rotated = obtained.refreshToken, grant == .refresh || grant == .refreshAudienceAsResource,
            rotated != current.refreshToken
        {
            var session = current
            session.refreshToken = rotated
            try StoreAdvice.worded(context.store.writeTokens(session, profileName, profile: currentProfile, key: base.key))
        }
        var record = obtained
        record.refreshToken = nil
        record.idToken = nil
        record.clientSecret = nil
        record.dpopKey = nil
        if record.scope == nil { record.scope = target.scope ?? (grant == .exchange ? nil : current.scope) }
        records[key] = record
        try StoreAdvice.worded(
            context.store.writeSide(
                TargetedTokenFile.self,
                records, profileName, profile: currentProfile, session: current.sessionID, key: base.key, now: context.clock()))
        record.dpopKey = current.dpopKey
        return FreshTokens(tokens: record, profile: currentProfile)
    }

    /// This target's cached `record` when it lives `minimumTTL` more seconds, with the session's DPoP key.
    private func served(
        _ record: TokenSet?, profile: Profile, tokens: TokenSet, minimumTTL: Double, replacing: AccessToken?
    ) -> FreshTokens? {
        guard var record, record.isFresh(now: context.clock(), minimumTTL: minimumTTL), record.accessToken != replacing
        else { return nil }
        record.dpopKey = tokens.dpopKey
        return FreshTokens(tokens: record, profile: profile)
    }

    /// One request to the token endpoint, with the lock held; its failures as one line each.
    private func request(_ grant: Grant, profile: Profile, tokens: TokenSet, subject: AccessToken?) throws(PingCLIError) -> TokenSet {
        let client = try profile.signing(profile.tokenClient(secret: tokens.clientSecret), clock: context.clock)
        let endpoint = profile.metadata.tokenEndpoint
        let request: HTTPRequest
        switch grant {
        case .clientCredentials:
            var narrowed = target
            if narrowed.resource == nil, let audience = narrowed.audience {
                narrowed.resource = audience
                narrowed.audience = nil
            }
            request = TokenEndpoint.clientCredentialsRequest(endpoint: endpoint, client: client, target: narrowed)
        case .exchange:
            request = TokenEndpoint.tokenExchangeRequest(
                endpoint: endpoint, subjectToken: subject ?? tokens.accessToken, client: client, target: target)
        case .refresh, .refreshAudienceAsResource:
            guard let refreshToken = tokens.refreshToken else {
                throw base.sessionExpired("there is no refresh token to obtain a token for \(target.summary)")
            }
            var narrowed = target
            if grant == .refreshAudienceAsResource {
                narrowed.resource = narrowed.audience
                narrowed.audience = nil
            }
            request = TokenEndpoint.refreshRequest(endpoint: endpoint, refreshToken: refreshToken, client: client, target: narrowed)
        }
        let transport = context.transports.transport(caFile: profile.caFile, tls: profile.clientTLS, dpop: tokens.dpopKey)
        let outcome: TokenEndpointOutcome
        do {
            outcome = try TokenEndpointCall(transport: transport, clock: context.clock, dpop: tokens.dpopKey != nil)
                .send(request, exchange: grant == .exchange)
        } catch {
            var failure = error.asCLIError(doing: "the token request for \(target.summary)")
            failure.rule = .targetUnreachable
            throw failure
        }
        switch outcome {
        case .tokens(let obtained): return obtained
        case .refused(.issuedTokenType(let issued), _, _, _):
            throw PingCLIError(
                .failure,
                "token exchange for \(target.summary) returned issued_token_type \(displaySafe(issued, limit: 80)), not an access token (RFC 8693 §2.2.1): the provider is misconfigured",
                rule: .targetIssuedType)
        case .refused(let error, let kind, let status, _):
            throw try refusal(error, kind: kind, status: status, grant: grant, profile: profile, tokens: tokens)
        }
    }

    /// What a refused request means, one rule each: a scope or resource outside the grant is the user's
    /// request (never a sign-in, never a browser); a dead refresh token ends the session as a refresh does.
    private func refusal(
        _ error: TokenEndpointError, kind: TokenFailureKind, status: Int, grant: Grant, profile: Profile, tokens: TokenSet
    )
        throws(PingCLIError) -> PingCLIError
    {
        let oauth: OAuthErrorResponse? = if case .oauthError(_, let oauth) = error { oauth } else { nil }
        switch kind {
        case .unavailable:
            return PingCLIError(
                .unreachable, "the token endpoint is unavailable (HTTP \(status)) for \(target.summary): try again later",
                rule: .targetUnavailable)
        case .unreadable:
            return PingCLIError(.failure, "the token request for \(target.summary) failed: \(error.message)", rule: .targetUnreadable)
        case .deadGrant where grant == .exchange:
            return PingCLIError(
                .failure,
                "token exchange for \(target.summary) refused the session's access token (\(oauth?.summary ?? "invalid_grant")): run pingcli login --profile \(profileName)",
                rule: .targetExchangeRefused)
        case .deadGrant:
            // The session's own access token is not what was asked for: the session has ended.
            return try base.droppingRejectedRefreshToken(tokens, profile: profile, oauth: oauth, stillWorks: false)
        case .client:
            switch oauth?.code {
            case .invalidScope?:
                return PingCLIError(
                    .failure,
                    "the provider refused \(target.summary) (\(oauth?.summary ?? "invalid_scope")): the session was granted \"\(displaySafe(tokens.scope ?? profile.scopes.joined(separator: " "), limit: 120))\"; ask within it, or run pingcli login --profile \(profileName) --scope \"…\" to sign in for more",
                    rule: .targetInvalidScope)
            case .invalidTarget?:
                return PingCLIError(
                    .failure,
                    "the provider refused \(target.summary) (\(oauth?.summary ?? "invalid_target")): check --resource or --audience against the APIs this client may use",
                    rule: .targetInvalidTarget)
            default:
                return PingCLIError(
                    .failure,
                    "the token request for \(target.summary) failed: \(error.message): check the client's settings at the provider",
                    rule: .targetClientError)
            }
        }
    }

    package init(base: TokenProvider, target: TokenTarget) {
        self.base = base
        self.target = target
    }
}
