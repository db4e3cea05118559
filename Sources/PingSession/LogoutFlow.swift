import PingBase
import PingFlowCore
import PingOAuth
import PingPlatform
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli logout`: wipe locally first (always), then revoke and end the browser session if asked.
package struct LogoutFlow {
    package let context: SessionContext
    package let revoke: Bool
    /// `--end-session`: the browser that ends the session at the provider; nil: it is not ended.
    package let endSession: SignOffBrowser?
    package let openBrowser: Bool
    package let timeout: Double
    /// `--port`: the post-logout redirect's port; nil: the profile's (`Profile.effectiveLogoutPort`).
    package var port: UInt16? = nil
    /// Seconds at the provider's page before pingcli names the likely causes.
    package var hintAfter: Double = 20
    /// Whether a person may press Enter to stop waiting (standard input is a terminal).
    package var canConfirm = false
    /// Collects what happened, for `logout --json`.
    package var record: LogoutRecord? = nil

    /// Logs one profile out. Returns problems that make the exit status non-zero (with their status).
    package func run(_ name: ProfileName) throws(PingCLIError) -> [PingCLIError] {
        guard let profile = try StoreAdvice.worded(context.store.readProfile(name)) else {
            context.console.err("Profile \"\(name)\" was never logged in: nothing to do.")
            record?.begin(name, removed: false)
            return []
        }
        // The sign-off port before anything is removed: when someone else holds it, nothing is lost.
        let signOffListener = endSession != nil ? try bindSignOffListener(profile: profile, name: name) : nil
        let wiped = try wipe(name, profile: profile)
        // A profile that its cache does not vouch for names endpoints nobody checked: contact none of them.
        if let unverified = wiped.unverified, revoke || endSession != nil {
            return [
                PingCLIError(
                    unverified.status,
                    "profile \"\(name)\": nothing was revoked and no browser session was ended, because the profile could not be verified against its token cache",
                    rule: .logoutUnverifiedProfile)
            ]
        }

        var problems: [PingCLIError] = wiped.amProblem.map { [$0] } ?? []
        if revoke, let tokens = wiped.tokens {
            problems += revokeAll(tokens, profile: profile, name: name)
            revokeTargeted(wiped.targeted, session: tokens, profile: profile)
        }
        if let endSession {
            do {
                // The ID token stays in memory until the sign-off is done or given up.
                try endBrowserSession(
                    profile: profile, idToken: wiped.tokens?.idToken, name: name, listener: signOffListener, through: endSession)
                record?.sessionEnded(true)
            } catch {
                problems.append(error)
                record?.sessionEnded(false)
            }
        }
        return problems
    }

    /// What the local wipe removed, for the steps at the server: the session's tokens (nil: none were
    /// cached, or the cache could not be read), the narrower tokens obtained from them, why the cache
    /// could not be read, and what ending a journey's AM session ran into.
    private struct Wiped {
        var tokens: TokenSet?
        var targeted: [String: TokenSet]
        var unverified: PingCLIError?
        var amProblem: PingCLIError?
    }

    /// Removes the profile's cached tokens under its lock (always, whatever comes after), keeping in
    /// memory what the server steps need, and says what was removed.
    private func wipe(_ name: ProfileName, profile: Profile) throws(PingCLIError) -> Wiped {
        let console = context.console
        // The key before the lock: a slow key command never runs while the profile is locked.
        let key = context.store.commandKey()
        _ = try? key.get()
        let lock = try StoreAdvice.worded(context.store.takeLock(name))
        let tokens: TokenSet?
        // The profile its cache vouches for (a session's, or the sealed record of an earlier logout).
        var vouched: Profile? = nil
        var unverified: PingCLIError? = nil
        do {
            let cached = try StoreAdvice.worded(context.store.readRecord(name, profile: profile, key: key))
            tokens = cached?.tokens
            if cached != nil { vouched = profile }
        } catch {
            console.err("pingcli: \(error.message); removing it")
            tokens = nil
            unverified = error
        }
        // The narrower tokens obtained from the session (`token --scope/--resource/--audience`), to revoke
        // them too: one from a token exchange may outlive the refresh token's revocation.
        let targeted =
            revoke && tokens != nil
            ? ((try? context.store.readSide(TargetedTokenFile.self, name, profile: profile, session: tokens?.sessionID, key: key)) ?? [:])
            : [:]
        // A journey's AM session is ended at AM before the only copy of it is removed.
        let amProblem = endAMSession(tokens, profile: profile)
        try StoreAdvice.worded(context.store.writeSignOut(name, vouchedFor: vouched, key: key))
        lock.unlock()
        if tokens == nil && unverified == nil {
            console.err("No tokens were cached for profile \"\(name)\": nothing to remove\(revoke ? " or revoke" : "").")
        } else {
            console.err("Removed the cached tokens of profile \"\(name)\".")
        }
        if unverified != nil, let line = unreadAMSession(profile, name: name) { console.err(line) }
        record?.begin(name, removed: tokens != nil || unverified != nil)
        return Wiped(tokens: tokens, targeted: targeted, unverified: unverified, amProblem: amProblem)
    }

    /// Revokes the refresh token, then the access token (RFC 7009 §2): the refresh token first, because
    /// it is the longer-lived one and may let the server revoke the access tokens issued from it too.
    /// A refresh token left valid is a problem (exit 1); an access token left valid only a note, with
    /// when it expires, since no client can do more about it.
    package func revokeAll(_ tokens: TokenSet, profile: Profile, name: ProfileName) -> [PingCLIError] {
        guard let endpoint = profile.metadata.revocationEndpoint else {
            return [
                .failure(
                    "profile \"\(name)\": the provider has no revocation_endpoint, so the tokens stay valid at the server until they expire (removed locally)",
                    rule: .logoutNoRevocationEndpoint)
            ]
        }
        let console = context.console
        // A DPoP-bound token's revocation carries a proof too (the server may insist on one).
        let transport = context.transports.transport(caFile: profile.caFile, tls: profile.clientTLS, dpop: tokens.dpopKey)
        let client: ClientCredentials
        do {
            client = try profile.signing(profile.revocationClient(secret: tokens.clientSecret), clock: context.clock)
        } catch {
            return [PingCLIError(error.status, "profile \"\(name)\": the tokens were not revoked: \(error.message)", rule: error.rule)]
        }
        var outcomes: [(Revocation.TokenTypeHint, Revocation.Outcome)] = []
        var problems: [PingCLIError] = []
        var pending: [(Revocation.TokenTypeHint, any ProviderToken)] = []
        if let refresh = tokens.refreshToken { pending.append((.refreshToken, refresh)) }
        pending.append((.accessToken, tokens.accessToken))
        for (kind, token) in pending {
            let request = Revocation.request(
                endpoint: endpoint, token: token, kind: kind, client: client)
            do {
                outcomes.append((kind, Revocation.process(try transport.send(request))))
            } catch {
                let cause = error.asCLIError(doing: "revocation", endpoint: "revocation", url: request.url)
                problems.append(
                    PingCLIError(
                        cause.status, "profile \"\(name)\": the \(kind.name) may still be live at the server: \(cause.message)",
                        rule: cause.rule))
            }
        }
        let claims = RevocationRules.jwtClaims(tokens.accessToken.value)
        let report = RevocationRules.findings(
            sent: pending.map(\.0), outcomes: outcomes, accessTokenClaims: claims,
            provider: RevocationRules.provider(issuer: profile.issuer, revocationEndpoint: endpoint))
        for (kind, _) in pending { record?.token(kind, revoked: report.revoked[kind] ?? false) }
        let until = RevocationRules.until(expiresAt: tokens.expiresAt, claims: claims)
        for finding in report.findings {
            let line = Self.words(finding, profile: name, until: until, origin: endpoint.origin)
            if finding.isProblem {
                problems.append(.failure(line, rule: Self.rule(finding)))
            } else {
                console.err(line)
            }
        }
        return problems
    }

    /// The rule a problem finding breaks.
    private static func rule(_ finding: RevocationFinding) -> Rule {
        if case .pingOneKeptRefreshToken = finding { return .pingoneNoSID }
        return .logoutRevocationRefused
    }

    /// One line for a revocation finding: a problem's message, or a note as printed.
    private static func words(_ finding: RevocationFinding, profile name: ProfileName, until: String, origin: String) -> String {
        switch finding {
        case .revoked(let kinds):
            "Revoked the \(kinds.map(\.name).joined(separator: " and the ")) at \(displaySafe(origin))."
        case .pingOneKeptRefreshToken(let reason):
            "profile \"\(name)\": PingOne did not revoke the tokens: \(reason); the refresh token stays valid there until it expires (it is removed here). For logout --revoke to work, add a custom resource's scope to the application and log in with it (docs/ping-setup.md, \"Revocation\")"
        case .pingOneKeptAccessToken(let reason):
            "pingcli: note: PingOne did not revoke the access token: \(reason); it stays valid \(until) (it is removed here)"
        case .refreshTokenUnsupported:
            "profile \"\(name)\": the refresh token may still be live at the server: it does not revoke refresh tokens (unsupported_token_type)"
        case .accessTokenUnsupported:
            "pingcli: note: the provider does not revoke access tokens like this one (unsupported_token_type): it stays valid \(until) (it is removed here)"
        case .refused(let kind, let reason):
            "profile \"\(name)\": the \(kind.name) may still be live at the server: revocation was refused (\(reason))"
        case .pingFederateJWT(let grantEnded):
            "pingcli: note: the access token is a JWT, which PingFederate revokes only when token revocation is enabled on its access token manager: it may stay valid \(until) (it is removed here).\(grantEnded ? " Revoking the refresh token ended the grant, so it cannot be renewed." : "")"
        }
    }

    package init(
        context: SessionContext, revoke: Bool, endSession: SignOffBrowser?, openBrowser: Bool, timeout: Double, port: UInt16? = nil,
        hintAfter: Double = 20, canConfirm: Bool = false, record: LogoutRecord? = nil
    ) {
        self.context = context
        self.revoke = revoke
        self.endSession = endSession
        self.openBrowser = openBrowser
        self.timeout = timeout
        self.port = port
        self.hintAfter = hintAfter
        self.canConfirm = canConfirm
        self.record = record
    }
}

/// What `logout --end-session` needs beyond the session: the browser it sends to the provider's
/// end-session endpoint, and the clock the wait for it is timed on.
package struct SignOffBrowser {
    package var browsing: Browsing
    package var waits: WaitClock

    package init(browsing: Browsing, waits: WaitClock) {
        self.browsing = browsing
        self.waits = waits
    }
}

extension LogoutFlow {
    /// Revokes the narrower access tokens, after the session's tokens. As for the session's access token,
    /// one left valid is a note with when it expires, not a failure; without a revocation endpoint or a
    /// usable client, `revokeAll` has already said the tokens stay valid.
    package func revokeTargeted(_ records: [String: TokenSet], session: TokenSet, profile: Profile) {
        guard !records.isEmpty, let endpoint = profile.metadata.revocationEndpoint,
            let client = try? profile.signing(profile.revocationClient(secret: session.clientSecret), clock: context.clock)
        else { return }
        let transport = context.transports.transport(caFile: profile.caFile, tls: profile.clientTLS, dpop: session.dpopKey)
        let provider = RevocationRules.provider(issuer: profile.issuer, revocationEndpoint: endpoint)
        var revoked = 0
        for (key, tokens) in records.sorted(by: { $0.key < $1.key }) {
            let request = Revocation.request(endpoint: endpoint, token: tokens.accessToken, kind: .accessToken, client: client)
            let outcome = try? Revocation.process(transport.send(request))
            let claims = RevocationRules.jwtClaims(tokens.accessToken.value)
            // The same rules as for the session's access token: PingOne's 200 for a token it keeps, and
            // PingFederate's JWTs, which it may keep, are not counted as revoked.
            let kept = provider == .pingOne ? claims.flatMap(RevocationRules.pingOneRefusal) : nil
            let done = outcome == .accepted && kept == nil && !(provider == .pingFederate && claims != nil)
            let target = TargetedRecord.target(ofKey: key)
            record?.targeted(target, revoked: done)
            if done {
                revoked += 1
            } else {
                let why = kept ?? (outcome == nil ? "the revocation request failed" : "the provider may keep it")
                context.console.err(
                    "pingcli: note: the access token for \(target?.summary ?? "a narrower request") may stay valid \(RevocationRules.until(expiresAt: tokens.expiresAt, claims: claims)): \(why) (it is removed here)"
                )
            }
        }
        if revoked > 0 {
            context.console.err(
                "Revoked \(revoked) narrower access token\(revoked == 1 ? "" : "s") (token --scope, --resource, --audience) at \(displaySafe(endpoint.origin))."
            )
        }
    }
}

/// What `logout` did to each profile, for `logout --json` (docs/json.md): whether cached tokens were
/// removed, which tokens the server revoked (RFC 7009), whether the browser session was ended. Every key
/// is always present: `revoked` and `session_ended` are null when `--revoke` or `--end-session` was not
/// asked for, a token not held is null inside `revoked`, and `problems` is empty when there were none.
package final class LogoutRecord {
    package private(set) var profiles: [JSONValue] = []
    private var current: [String: JSONValue] = [:]
    private let revoke: Bool
    private let endSession: Bool

    package init(revoke: Bool = false, endSession: Bool = false) {
        self.revoke = revoke
        self.endSession = endSession
    }

    package func begin(_ name: ProfileName, removed: Bool) {
        finish()
        let revoked: JSONValue = .object([
            Revocation.TokenTypeHint.accessToken.rawValue: .null, Revocation.TokenTypeHint.refreshToken.rawValue: .null,
            "targeted_access_tokens": .array([]),
        ])
        current = [
            "version": .number(1), "profile": .string(name.value), "removed": .bool(removed), "revoked": revoke ? revoked : .null,
            "session_ended": endSession ? .bool(false) : .null, "problems": .array([]),
        ]
    }

    package func token(_ kind: Revocation.TokenTypeHint, revoked: Bool) {
        guard case .object(var tokens) = current["revoked"] ?? .null else { return }
        tokens[kind.rawValue] = .bool(revoked)
        current["revoked"] = .object(tokens)
    }

    /// A narrower token (`token --scope`, `--resource`, `--audience`) and whether the server revoked it.
    package func targeted(_ target: TokenTarget?, revoked: Bool) {
        guard case .object(var tokens) = current["revoked"] ?? .null else { return }
        let entry: [String: JSONValue] = [
            "revoked": .bool(revoked), "scope": target?.scope.map { .string($0) } ?? .null,
            "resource": target?.resource.map { .string($0) } ?? .null, "audience": target?.audience.map { .string($0) } ?? .null,
        ]
        tokens["targeted_access_tokens"] = .array((tokens["targeted_access_tokens"]?.arrayValue ?? []) + [.object(entry)])
        current["revoked"] = .object(tokens)
    }

    package func sessionEnded(_ ended: Bool) { current["session_ended"] = .bool(ended) }

    /// Closes the current profile's entry, with the problems its logout reported.
    package func finish(problems: [PingCLIError] = []) {
        guard !current.isEmpty else { return }
        current["problems"] = .array(problems.map { .string($0.message) })
        profiles.append(.object(current))
        current = [:]
    }
}
