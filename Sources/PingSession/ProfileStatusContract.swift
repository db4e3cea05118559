import PingBase
import PingOAuth
import PingState

/// `status --json`'s contract (docs/json.md): every key always present, `null` when it does not apply,
/// enum values in snake_case, and a `version` that changes only when a key's meaning does.
extension ProfileStatus {
    /// The contract's version, in every `status --json` and `profiles --json` object.
    package static let jsonVersion = 1

    /// The refresh threshold `token` uses by default (its `--min-ttl`, the Ping SDKs' 30 s).
    package static let defaultMinimumTTL = 30.0

    /// What `pingcli token` would do next for this profile, without the network.
    package enum NextStep: String, Sendable {
        /// Hand out the cached access token.
        case useCached = "use_cached"
        /// Refresh first with the refresh token (the access token expires within the default --min-ttl).
        case refresh
        /// Ask the token endpoint again with the client's secret or certificate (client credentials).
        case requestNew = "request_new"
        /// Nothing can renew it: a new sign-in (`pingcli login`).
        case login
        /// A file or the key command is broken: see `problem`.
        case fixProblem = "fix_problem"
    }

    /// The next step of `token` with the default `--min-ttl` (30 s).
    package func nextStep(now: Double) -> NextStep {
        switch state {
        case .problem: return .fixProblem
        case .notLoggedIn, .sessionExpired: return .login
        case .loggedIn: break
        }
        let fresh = accessTokenExpiry.map { $0 - now > Self.defaultMinimumTTL } ?? true
        if fresh { return .useCached }
        if refreshToken { return refreshFailure != nil && accessTokenExpired == false ? .useCached : .refresh }
        return grant == "client_credentials" ? .requestNew : .login
    }

    /// The grant in the contract's style: `authorization_code`, `device_code` or `client_credentials`.
    package var grantName: String? {
        guard let grant else { return nil }
        return grant == Profile.GrantType.deviceCode.rawValue ? "device_code" : grant
    }

    /// `logged_in`, `not_logged_in`, `session_expired` or `problem`.
    package var stateName: String {
        switch state {
        case .loggedIn: "logged_in"
        case .notLoggedIn: "not_logged_in"
        case .sessionExpired: "session_expired"
        case .problem: "problem"
        }
    }

    /// The report for `status --json`: every key of the contract, `null` where it does not apply.
    package func json(now: Double) -> JSONValue { .object(Dictionary(uniqueKeysWithValues: jsonMembers(now: now))) }

    /// Appends `json(now:)`'s text as an element of a pretty array (`status --all --json`), written
    /// straight from the members in their order (`JSONValue.writeObject`).
    package func writeJSON(now: Double, to output: inout [UInt8], prettyAtLevel level: Int) {
        JSONValue.writeObject(jsonMembers(now: now), to: &output, prettyAtLevel: level)
    }

    /// Every key of the contract with its value, in the order the JSON text has them (String's order of
    /// the keys, which `writeObject` checks in debug builds).
    private func jsonMembers(now: Double) -> [(key: String, value: JSONValue)] {
        func string(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        func strings(_ values: [String]?) -> JSONValue { values.map { .array($0.map { .string($0) }) } ?? .null }
        func bool(_ value: Bool?) -> JSONValue { value.map { .bool($0) } ?? .null }
        let overrides = JSONValue.object(Dictionary(uniqueKeysWithValues: endpointOverrides.map { ($0.name, .string($0.url)) }))
        return [
            ("access_token_expired", bool(accessTokenExpired)), ("access_token_expires_at", string(accessTokenExpiresAt)),
            ("acr", string(acr)), ("am_session", bool(amSession)), ("am_session_ends_at", string(amSessionEnds.map(formatUTC))),
            ("audience", strings(audience)), ("auth_time", string(authTime)), ("client_id", string(clientID)),
            ("discovery", issuer == nil ? .null : .bool(discovery)), ("endpoint_overrides", overrides), ("git_hosts", strings(gitHosts)),
            ("grant", string(grantName)), ("id_token", bool(idToken)), ("idp", string(idp)), ("issuer", string(issuer)),
            ("journey", string(journey)), ("key_file", .string(keyFile)), ("key_store", .string(keyStore.rawValue)),
            ("logged_in", .bool(loggedIn)), ("name", string(name)), ("next", .string(nextStep(now: now).rawValue)),
            ("otp_account", string(otpAccount)), ("problem", string(problem)), ("profile", .string(profile)),
            ("profile_file", .string(profileFile)), ("refresh_failure", string(refreshFailure)),
            ("refresh_retry_after", string(refreshRetryAfter)), ("refresh_token", .bool(refreshToken)), ("scopes", strings(scopes)),
            ("state", .string(stateName)), ("subject", string(subject)), ("targeted_tokens", .array(targeted.map(\.json))),
            ("tokens_file", .string(tokensFile)), ("version", .number(Double(Self.jsonVersion))),
        ]
    }

    /// The `next token:` line of `status`.
    package func nextText(now: Double) -> String {
        switch nextStep(now: now) {
        case .useCached: "the cached access token"
        case .refresh: "a refresh first (the access token expires within \(Int(Self.defaultMinimumTTL)) s)"
        case .requestNew: "a new one from the token endpoint, with the client's secret or certificate"
        case .login: "none until the profile signs in (the problem below says how)"
        case .fixProblem: "none until the problem below is fixed"
        }
    }
}
