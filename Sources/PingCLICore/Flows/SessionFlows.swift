#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli userinfo`: the claims about the signed-in user, with the same refresh rules as `token`.
struct UserInfoFlow {
    let profile: ProfileName
    let context: FlowContext
    let minimumTTL: Double

    func run() throws(PingCLIError) -> [String: JSONValue] {
        let provider = TokenProvider(profile: profile, context: context)
        var fresh = try provider.fresh(minimumTTL: minimumTTL)
        if let warning = fresh.warning { context.console.err("pingcli: warning: \(warning)") }
        guard let endpoint = fresh.profile.metadata.userinfoEndpoint else {
            throw .failure("the provider of profile \"\(profile)\" has no userinfo_endpoint: nothing to ask")
        }
        let subject = fresh.tokens.idToken.flatMap { try? IDTokenClaims.decode($0.value) }?.subject
        let transport = context.transport(caFile: fresh.profile.caFile)
        var refreshed = false
        while true {
            let response: HTTPResponse
            do {
                response = try transport.send(UserInfo.request(endpoint: endpoint, accessToken: fresh.tokens.accessToken))
            } catch {
                throw error.asCLIError(doing: "userinfo")
            }
            do {
                return try UserInfo.process(response, expectedSubject: subject)
            } catch .invalidToken(let challenge) {
                // The server no longer takes this token (revoked, or its clock differs): refresh once and retry.
                guard !refreshed else {
                    throw .loginRequired(
                        "userinfo failed: \(UserInfoError.invalidToken(challenge).message) even after a refresh: run pingcli login --profile \(profile)"
                    )
                }
                refreshed = true
                fresh = try provider.fresh(minimumTTL: minimumTTL, forceRefresh: true)
            } catch {
                throw .failure("userinfo failed: \(error.message)")
            }
        }
    }
}

/// What `pingcli status` reports about one profile: never a token.
struct ProfileStatus: Sendable {
    var profile: String
    var loggedIn: Bool
    var issuer: String?
    var clientID: String?
    /// `authorization_code` (a person; renewed with the refresh token) or `client_credentials` (a machine).
    var grant: String?
    var subject: String?
    var name: String?
    var accessTokenExpiresAt: String?
    var accessTokenExpired: Bool?
    var refreshToken: Bool
    /// A failed refresh whose backoff still holds: what failed, and when pingcli tries again.
    var refreshFailure: String?
    var refreshRetryAfter: String?
    var problem: String?
    /// The exit status `problem` maps to: 4 when a login would fix it, 1 for a broken key command or file.
    var problemStatus: ExitStatus?
    var profileFile: String
    var tokensFile: String
    var keyFile: String

    /// The report for `status --json` (absent values are left out).
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "profile": .string(profile), "logged_in": .bool(loggedIn), "refresh_token": .bool(refreshToken),
            "profile_file": .string(profileFile), "tokens_file": .string(tokensFile), "key_file": .string(keyFile),
        ]
        let optional: [(String, String?)] = [
            ("issuer", issuer), ("client_id", clientID), ("grant", grant), ("subject", subject), ("name", name),
            ("access_token_expires_at", accessTokenExpiresAt), ("refresh_failure", refreshFailure),
            ("refresh_retry_after", refreshRetryAfter), ("problem", problem),
        ]
        for case (let key, let value?) in optional { members[key] = .string(value) }
        if let accessTokenExpired { members["access_token_expired"] = .bool(accessTokenExpired) }
        return .object(members)
    }

    /// Reads what is on disk, without any network and without refreshing. `key` is the command's, so
    /// the key is read (or the key command run) once for all profiles; `details` false leaves the ID
    /// token undecoded and the refresh record unread (`subject`, `name` and `refreshFailure` nil) for
    /// callers that show neither.
    init(_ name: ProfileName, store: TokenStore, key: CommandKey, now: Double, details: Bool = true) {
        profile = name.value
        profileFile = store.paths.profileFile(name)
        tokensFile = store.paths.tokensFile(name)
        switch store.keySource {
        case .file(let path): keyFile = path
        case .command: keyFile = "(the key comes from PINGCLI_KEY_COMMAND)"
        }
        loggedIn = false
        refreshToken = false
        do {
            guard let saved = try store.loadProfile(name) else {
                problem = "not logged in: run pingcli login --profile \(name) --issuer URL --client-id ID"
                return
            }
            issuer = saved.issuer
            clientID = saved.clientID
            grant = (saved.grantType?.rawValue ?? "authorization_code")
            guard let tokens = try store.loadTokens(name, profile: saved, key: key) else {
                problem = "not logged in: run pingcli login --profile \(name)"
                return
            }
            if details, let claims = tokens.idToken.flatMap({ try? IDTokenClaims.decode($0.value) }) {
                subject = claims.subject
                self.name = claims.name ?? claims.preferredUsername ?? claims.email
            }
            accessTokenExpiresAt = tokens.expiresAt.map(formatUTC)
            accessTokenExpired = tokens.isExpired(now: now)
            refreshToken = tokens.refreshToken != nil
            if details, let failure = try? store.activeRefreshFailure(name, for: tokens, now: now) {
                refreshFailure = failure.message
                refreshRetryAfter = formatUTC(failure.retryAfter)
            }
            let renewable = saved.grantType == .clientCredentials && tokens.clientSecret != nil
            loggedIn = refreshToken || renewable || !tokens.isExpired(now: now)
            if !loggedIn { problem = "session expired: run pingcli login --profile \(name)" }
        } catch {
            problem = error.message
            problemStatus = error.status
        }
    }

    func text(now: Double) -> String {
        var lines = ["profile:       \(profile)\(loggedIn ? "" : " (not logged in)")"]
        if let issuer { lines.append("issuer:        \(displaySafe(issuer))") }
        if let clientID { lines.append("client id:     \(displaySafe(clientID))") }
        if grant == "client_credentials" {
            lines.append("grant:         client credentials (a machine; renewed with the client secret)")
        } else if grant == Profile.GrantType.deviceCode.rawValue {
            lines.append("grant:         device code (a person; renewed with the refresh token)")
        } else if grant != nil {
            lines.append("grant:         authorization code (a person; renewed with the refresh token)")
        }
        if let subject {
            lines.append("subject:       \(displaySafe(subject, limit: 120))\(name.map { " (\(displaySafe($0, limit: 80)))" } ?? "")")
        }
        if let accessTokenExpiresAt {
            lines.append("access token:  expires \(accessTokenExpiresAt)\(accessTokenExpired == true ? " (expired)" : "")")
        }
        if issuer != nil { lines.append("refresh token: \(refreshToken ? "held" : "none")") }
        if let refreshFailure, let refreshRetryAfter {
            lines.append("last refresh:  \(refreshFailure); no new attempt before \(refreshRetryAfter) (a new login resets this)")
        }
        if let problem { lines.append("problem:       \(problem)") }
        lines.append("files:         \(profileFile)")
        lines.append("               \(tokensFile)")
        lines.append("               \(keyFile)")
        return lines.joined(separator: "\n")
    }
}

/// `pingcli logout`: wipe locally first (always), then revoke and end the browser session if asked.
struct LogoutFlow {
    let context: FlowContext
    let revoke: Bool
    let endSession: Bool
    let openBrowser: Bool
    let timeout: Double
    /// `--port`: the post-logout redirect's port; nil: the profile's (`Profile.effectiveLogoutPort`).
    var port: UInt16? = nil
    /// Seconds at the provider's page before pingcli names the likely causes.
    var hintAfter: Double = 20
    /// Whether a person may press Enter to stop waiting (standard input is a terminal).
    var canConfirm = false

    /// Logs one profile out. Returns problems that make the exit status non-zero (with their status).
    func run(_ name: ProfileName) throws(PingCLIError) -> [PingCLIError] {
        let console = context.console
        guard let profile = try context.store.loadProfile(name) else {
            console.err("Profile \"\(name)\" was never logged in: nothing to do.")
            return []
        }
        // The key before the lock: a slow key command never runs while the profile is locked.
        let key = context.store.commandKey()
        _ = try? key.get()
        let lock = try context.store.lock(name)
        let tokens: TokenSet?
        var unverified: PingCLIError? = nil
        do {
            tokens = try context.store.loadTokens(name, profile: profile, key: key)
        } catch {
            console.err("pingcli: \(error.message); removing it")
            tokens = nil
            unverified = error
        }
        try context.store.removeTokens(name)
        lock.unlock()
        if tokens == nil && unverified == nil {
            console.err("No tokens were cached for profile \"\(name)\": nothing to remove\(revoke ? " or revoke" : "").")
        } else {
            console.err("Removed the cached tokens of profile \"\(name)\".")
        }
        // A profile that its cache does not vouch for names endpoints nobody checked: contact none of them.
        if let unverified, revoke || endSession {
            return [
                PingCLIError(
                    unverified.status,
                    "profile \"\(name)\": nothing was revoked and no browser session was ended, because the profile could not be verified against its token cache"
                )
            ]
        }

        var problems: [PingCLIError] = []
        if revoke, let tokens { problems += revokeAll(tokens, profile: profile, name: name) }
        if endSession {
            do {
                try endBrowserSession(profile: profile, idToken: tokens?.idToken, name: name)
            } catch {
                problems.append(error)
            }
        }
        return problems
    }

    /// Revokes the refresh token, then the access token (RFC 7009 §2): the refresh token first, because
    /// it is the longer-lived one and may let the server revoke the access tokens issued from it too.
    /// A refresh token left valid is a problem (exit 1); an access token left valid only a note, with
    /// when it expires, since no client can do more about it.
    private func revokeAll(_ tokens: TokenSet, profile: Profile, name: ProfileName) -> [PingCLIError] {
        guard let endpoint = profile.metadata.revocationEndpoint else {
            return [
                .failure(
                    "profile \"\(name)\": the provider has no revocation_endpoint, so the tokens stay valid at the server until they expire (removed locally)"
                )
            ]
        }
        let console = context.console
        let transport = context.transport(caFile: profile.caFile)
        var outcomes: [(Revocation.TokenKind, Revocation.Outcome)] = []
        var problems: [PingCLIError] = []
        var pending: [(Revocation.TokenKind, any ProviderToken)] = []
        if let refresh = tokens.refreshToken { pending.append((.refreshToken, refresh)) }
        pending.append((.accessToken, tokens.accessToken))
        for (kind, token) in pending {
            let request = Revocation.request(
                endpoint: endpoint, token: token, kind: kind, client: profile.revocationClient(secret: tokens.clientSecret))
            do {
                outcomes.append((kind, Revocation.process(try transport.send(request))))
            } catch {
                let cause = error.asCLIError(doing: "revocation")
                problems.append(
                    PingCLIError(cause.status, "profile \"\(name)\": the \(kind.name) may still be live at the server: \(cause.message)"))
            }
        }
        let claims = RevocationRules.jwtClaims(tokens.accessToken.value)
        let until = RevocationRules.until(expiresAt: tokens.expiresAt, claims: claims)
        let provider = RevocationRules.provider(issuer: profile.issuer, revocationEndpoint: endpoint)
        let accepted = outcomes.filter { $0.1 == .accepted }.map(\.0)
        // PingFederate revokes a JWT access token only when its access token manager has revocation
        // enabled, which a client cannot see: it may answer 200 or unsupported_token_type.
        let accessOutcome = outcomes.first { $0.0 == .accessToken }?.1
        let pingFederateJWT =
            provider == .pingFederate && claims != nil && (accessOutcome == .accepted || accessOutcome == .unsupportedTokenType)
        // PingOne answers 200 for tokens its rule keeps it from revoking: say so instead of "revoked".
        let pingOneReason = provider == .pingOne && !accepted.isEmpty ? claims.flatMap(RevocationRules.pingOneRefusal) : nil
        if let reason = pingOneReason {
            if accepted.contains(.refreshToken) {
                problems.append(
                    .failure(
                        "profile \"\(name)\": PingOne did not revoke the tokens: \(reason); the refresh token stays valid there until it expires (it is removed here). For logout --revoke to work, add a custom resource's scope to the application and log in with it (docs/ping-setup.md, \"Revocation\")"
                    ))
            } else {
                console.err(
                    "pingcli: note: PingOne did not revoke the access token: \(reason); it stays valid \(until) (it is removed here)")
            }
        } else if !accepted.isEmpty {
            console.err("Revoked the \(accepted.map(\.name).joined(separator: " and the ")) at \(displaySafe(endpoint.origin)).")
        }
        for (kind, outcome) in outcomes {
            switch (kind, outcome) {
            case (_, .accepted):
                break
            case (.refreshToken, .unsupportedTokenType):
                problems.append(
                    .failure(
                        "profile \"\(name)\": the refresh token may still be live at the server: it does not revoke refresh tokens (unsupported_token_type)"
                    ))
            case (.accessToken, .unsupportedTokenType) where !pingFederateJWT:
                console.err(
                    "pingcli: note: the provider does not revoke access tokens like this one (unsupported_token_type): it stays valid \(until) (it is removed here)"
                )
            case (.accessToken, .unsupportedTokenType):
                break  // explained below
            case (_, .refused(let reason)):
                problems.append(
                    .failure("profile \"\(name)\": the \(kind.name) may still be live at the server: revocation was refused (\(reason))"))
            }
        }
        if pingFederateJWT {
            let grant = accepted.contains(.refreshToken) ? " Revoking the refresh token ended the grant, so it cannot be renewed." : ""
            console.err(
                "pingcli: note: the access token is a JWT, which PingFederate revokes only when token revocation is enabled on its access token manager: it may stay valid \(until) (it is removed here).\(grant)"
            )
        }
        return problems
    }
}

extension TokenStore {
    /// Every profile with a profile file, sorted by name. `readdir` and `stat` rather than FileManager:
    /// `status --all` and `profiles` with a thousand profiles (docs/performance.md).
    func profileNames() -> [ProfileName] {
        guard let directory = opendir(paths.profilesDirectory) else { return [] }
        defer { closedir(directory) }
        var entries: [String] = []
        while let entry = readdir(directory) {
            entries.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        var info = stat()
        return entries.sorted().compactMap { entry in
            guard let name = try? ProfileName(entry), stat(paths.profileFile(name), &info) == 0 else { return nil }
            return name
        }
    }
}
