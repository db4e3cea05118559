import PingBase
import PingFlowCore
import PingOAuth
import PingPlatform
import PingState
import PingTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// What `pingcli status` reports about one profile: never a token.
package struct ProfileStatus: Sendable {
    /// Whether the profile can hand out a token without a new login, and if not, why.
    package enum State: Sendable, Equatable {
        case loggedIn
        /// No profile.json, or no tokens: a login is needed.
        case notLoggedIn
        /// Tokens, but the access token has expired and nothing can renew it.
        case sessionExpired
        /// The profile or its cache cannot be read (damaged, foreign, the key command failed).
        case problem
    }

    package var profile: String
    package var state: State = .notLoggedIn
    package var loggedIn: Bool { state == .loggedIn }
    package var issuer: String?
    package var clientID: String?
    /// `authorization_code` (a person; renewed with the refresh token) or `client_credentials` (a machine).
    package var grant: String?
    package var subject: String?
    package var name: String?
    /// Whether the session holds an ID token (a device sign-in may have none: its subject is then the
    /// UserInfo endpoint's). nil when not known (no session, or `details` false).
    package var idToken: Bool?
    /// The ID token's `acr` and `auth_time` (in seconds; `authTime` as UTC, made when shown), for a step-up sign-in.
    package var acr: String?
    package var authTime: String? { authTimeSeconds.map(formatUTC) }
    package var authTimeSeconds: Double?
    /// The access token's expiry as UTC, made when shown (`status --all`'s table shows only the relative time).
    package var accessTokenExpiresAt: String? { accessTokenExpiry.map(formatUTC) }
    package var accessTokenExpired: Bool?
    /// The same instant in seconds, for the relative time people read first.
    package var accessTokenExpiry: Double?
    package var refreshToken: Bool
    /// The git servers `git-credential` answers for (`host[:port][/path]`); empty: none.
    package var gitHosts: [String] = []
    /// The endpoints `login` was given rather than discovered (`name url`), and whether the issuer
    /// served a discovery document.
    package var endpointOverrides: [(name: String, url: String)] = []
    package var discovery = true
    /// A failed refresh whose backoff still holds: what failed, and when pingcli tries again.
    package var refreshFailure: String?
    package var refreshRetryAfter: String?
    /// The scopes the access token was granted (the token response's `scope`, else those asked for).
    package var scopes: [String]?
    /// The access token's `aud`, when it is a JWT that names one.
    package var audience: [String]?
    /// Tokens for a narrower scope, a resource or an audience cached beside the session (`token --scope`).
    package var targeted: [TargetedRecord] = []
    /// A journey profile's tree (`login --journey`) and the OTP account its one-time codes come from.
    package var journey: String?
    package var otpAccount: String?
    /// `login --idp`: the identity provider a journey's Select Identity Provider step picks.
    package var idp: String?
    /// Whether the cache holds the journey's AM session (nil without a session or for other profiles).
    package var amSession: Bool?
    /// When AM ends that session at the latest, when AM said (seconds since 1970).
    package var amSessionEnds: Double?
    package var problem: String?
    /// false: no `profile.json` (a table listed the directory without looking for one, and drops it).
    package private(set) var hasSettings = true
    /// The exit status `problem` maps to: 4 when a login would fix it, 1 for a broken key command or file.
    package var problemStatus: ExitStatus?
    /// Its files, named when shown (a table of a thousand profiles names none).
    package var profileFile: String { paths.profileFile(profileName) }
    package var tokensFile: String { paths.tokensFile(profileName) }
    private let paths: Paths
    private let profileName: ProfileName
    package var keyFile: String
    package var keyStore: KeyStoreKind

    /// Reads what is on disk, without any network and without refreshing. `key` is the command's, so
    /// the key is read (or the key command run) once for all profiles; `details` false leaves the ID
    /// token undecoded and the refresh record unread (`subject`, `name` and `refreshFailure` nil) for
    /// callers that show neither. `extras` false (with `details`) leaves out what only the full view
    /// shows: the access token's audience, the refresh record and the narrower tokens (`status --all`'s
    /// table shows the account, issuer, state and expiry). `summary` (a table's line: the account,
    /// issuer, client id, state and expiry, nothing else) takes them from the profile's status summary
    /// when it still vouches for the files (`StatusSummary`), else reads the files as without it.
    /// `keyPlace`: the store's, found once for all profiles (else here). `index` (with `summary`): the
    /// status index, asked first and given the line the summary or the files made (`StatusIndex`).
    package init(
        _ name: ProfileName, store: TokenStore, key: CommandKey, now: Double, details: Bool = true, extras: Bool = true,
        summary: Bool = false, keyPlace: KeyPlace? = nil, index: StatusIndex? = nil
    ) {
        self.init(files: name, store: store, keyPlace: keyPlace)
        var files: StatusIndex.Files?
        // A JSON report (`extras`) takes a line with its details, and only while the refresh record and
        // the narrower tokens, which the details do not cover, are both absent.
        let full = details && extras
        var sideFilesAbsent = false
        if summary, let index {
            let lookup: StatusIndex.Lookup
            (lookup, sideFilesAbsent) = full ? index.lookupWithSideFiles(name) : (index.lookup(name), false)
            switch lookup {
            case .vouched(let line) where !full || (sideFilesAbsent && line.details != nil):
                show(line, name, details: details, now: now)
                if full, let more = line.details { showDetails(more) }
                return
            case .vouched: break
            case .unknown(let found): files = found
            }
        }
        // What the index is given when a table asked it and it found the files: a line with every field
        // (the summary's, or the full read's when it decoded the ID token).
        func enter(_ line: StatusSummary) { if let index, let files { index.enter(name, line, madeFrom: files) } }
        if summary, !full || sideFilesAbsent, let line = store.readStatusSummary(name, key: key), !full || line.details != nil {
            show(line, name, details: details, now: now)
            if full, let more = line.details { showDetails(more) }
            enter(line)
            return
        }
        do {
            guard let saved = try StoreAdvice.worded(store.readProfile(name)) else {
                hasSettings = false
                // A table leaves the profile out: it lists directories without looking for their settings.
                if summary { return }
                problem = "not logged in\(unknownProfileNote(name, store: store)): run \(loginCommand(for: name, hasSettings: false))"
                return
            }
            showSettings(saved)
            let tokens = try StoreAdvice.worded(store.readTokens(name, profile: saved, key: key))
            let claims = details ? StatusSummary.claims(of: tokens) : nil
            let line = StatusSummary(profile: saved, tokens: tokens, claims: claims)
            show(line, name, details: details, now: now)
            if details { enter(line) }
            guard let tokens else {
                problem = "not logged in: run \(loginCommand(for: name, profile: saved))"
                return
            }
            showTokens(tokens, claims: claims, saved: saved, details: details)
            if details && extras { try showExtras(name, tokens: tokens, saved: saved, store: store, key: key, now: now) }
        } catch {
            state = .problem
            problem = error.message
            problemStatus = error.status
        }
    }

    /// The profile's name and files, and the key store; nothing read yet (not logged in).
    private init(files name: ProfileName, store: TokenStore, keyPlace: KeyPlace?) {
        (profile, profileName, paths) = (name.value, name, store.paths)
        let place = keyPlace ?? KeyPlace(store.keySource)
        keyFile = place.location
        keyStore = place.kind
        refreshToken = false
    }

    /// What a table line shows, and the state it follows from: from the summary, or from the files read.
    private mutating func show(_ line: StatusSummary, _ name: ProfileName, details: Bool, now: Double) {
        (issuer, clientID, grant) = (line.issuer, line.clientID, line.grant)
        guard line.signedIn else {
            problem = "not logged in: run \(loginCommand(for: name, hasSettings: true))"
            return
        }
        if details { (subject, self.name) = (line.subject, line.name) }
        accessTokenExpiry = line.expiresAt
        accessTokenExpired = line.expiresAt.map { $0 <= now } ?? false
        refreshToken = line.refreshToken
        state = line.isLive(now: now) ? .loggedIn : .sessionExpired
        if state == .sessionExpired { problem = "session expired: run pingcli login --profile \(profile)" }
    }

    /// The settings of `profile.json`: the table's, and those only the full view shows.
    private mutating func showSettings(_ saved: Profile) {
        // Shown even when the cache turns out to be broken.
        (issuer, clientID, grant) = (saved.issuer, saved.clientID, saved.grantType?.rawValue ?? "authorization_code")
        showSettings(StatusDetails(profile: saved))
    }

    private mutating func showSettings(_ details: StatusDetails) {
        gitHosts = details.gitHosts
        endpointOverrides = stride(from: 0, to: details.endpointOverrides.count - 1, by: 2).map {
            (details.endpointOverrides[$0], details.endpointOverrides[$0 + 1])
        }
        discovery = details.discovery
        (journey, otpAccount, idp) = (details.journey, details.otpAccount, details.idp)
    }

    /// What the cache says beyond the table's line: the ID token's step-up claims, whether there is one,
    /// the scopes.
    private mutating func showTokens(_ tokens: TokenSet, claims: IDTokenClaims?, saved: Profile, details: Bool) {
        let more = StatusDetails(profile: saved, tokens: tokens, claims: details ? claims : nil, audience: false)
        if details { (acr, authTimeSeconds, idToken) = (more.acr, more.authTime, more.idToken) }
        (scopes, amSession, amSessionEnds) = (more.scopes, more.amSession, more.amSessionEnds)
    }

    /// Everything the full view shows from `profile.json` and the cache, as a summary or the index kept it.
    private mutating func showDetails(_ details: StatusDetails) {
        showSettings(details)
        (acr, authTimeSeconds, idToken) = (details.acr, details.authTime, details.idToken)
        (scopes, amSession, audience) = (details.scopes, details.amSession, details.audience)
        amSessionEnds = details.amSessionEnds
    }

    /// The full view's extras: the access token's audience, a failed refresh still backing off, the
    /// narrower tokens.
    private mutating func showExtras(
        _ name: ProfileName, tokens: TokenSet, saved: Profile, store: TokenStore, key: CommandKey, now: Double
    ) throws(PingCLIError) {
        audience = StatusDetails.audience(ofAccessToken: tokens.accessToken.value)
        if let failure = try? store.activeRefreshFailure(name, for: tokens, now: now) {
            refreshFailure = failure.message
            refreshRetryAfter = formatUTC(failure.retryAfter)
        }
        targeted = TargetedRecord.list(
            (try? store.readSide(TargetedTokenFile.self, name, profile: saved, session: tokens.sessionID, key: key)) ?? [:])
    }

    package static func describe(_ store: KeyStoreKind) -> String {
        switch store {
        case .keyring: "Secret Service item, copied into the kernel session keyring"
        case .file: "a key file beside your home's other files"
        case .command: "printed by PINGCLI_KEY_COMMAND"
        }
    }

    package func text(now: Double) -> String {
        var lines = ["profile:       \(profile)\(loggedIn ? "" : " (not logged in)")"]
        if let issuer { lines.append("issuer:        \(displaySafe(issuer))") }
        if let clientID { lines.append("client id:     \(displaySafe(clientID))") }
        if grant == "client_credentials" {
            lines.append("grant:         client credentials (a machine; renewed with the client secret or certificate)")
        } else if grant == Profile.GrantType.deviceCode.rawValue {
            lines.append("grant:         device code (a person; renewed with the refresh token)")
        } else if grant != nil {
            lines.append("grant:         authorization code (a person; renewed with the refresh token)")
        }
        if let subject {
            lines.append("subject:       \(displaySafe(subject, limit: 120))\(name.map { " (\(displaySafe($0, limit: 80)))" } ?? "")")
        }
        if idToken == false {
            lines.append(
                "ID token:      none (the provider sent none at sign-in\(subject == nil ? "" : "; the subject is the UserInfo endpoint's"); token --id-token has nothing to give)"
            )
        }
        if let acr { lines.append("acr:           \(displaySafe(acr, limit: 120))") }
        if let authTime { lines.append("signed in at:  \(authTime) (auth_time)") }
        if let accessTokenExpiresAt, let accessTokenExpiry {
            // "expires in 4m 12s (…Z)", "expired 3m ago (…Z)": relative first, the instant for the record.
            let relative = describeInterval(accessTokenExpiry - now)
            lines.append("access token:  \(accessTokenExpiry - now >= 0 ? "expires " : "")\(relative) (\(accessTokenExpiresAt))")
        }
        if let scopes { lines.append("scopes:        \(displaySafe(scopes.joined(separator: " ")))") }
        if let audience { lines.append("audience:      \(displaySafe(audience.joined(separator: ", ")))") }
        if issuer != nil { lines.append("refresh token: \(refreshToken ? "held" : "none")") }
        lines += journeyLines(now: now)
        if !gitHosts.isEmpty { lines.append("git hosts:     \(gitHosts.joined(separator: ", "))") }
        if !discovery { lines.append("discovery:     none (the issuer served no discovery document; endpoints given at login)") }
        for (name, url) in endpointOverrides {
            lines.append("endpoint:      \(name) \(displaySafe(url)) (given at login\(discovery ? ", over the discovered one" : ""))")
        }
        for (index, record) in targeted.enumerated() {
            lines.append("\(index == 0 ? "narrower:     " : "             ") \(record.text(now: now))")
        }
        if let refreshFailure, let refreshRetryAfter {
            lines.append("last refresh:  \(refreshFailure); no new attempt before \(refreshRetryAfter) (a new login resets this)")
        }
        if issuer != nil { lines.append("next token:    \(nextText(now: now))") }
        if let problem { lines.append("problem:       \(problem)") }
        lines += placeLines
        return lines.joined(separator: "\n")
    }
}

/// The command that signs a profile in: `login --profile NAME` when its settings are saved (kept by
/// logout), the full form with `--issuer` and `--client-id` only for a profile that has none.
package func loginCommand(for name: ProfileName, hasSettings: Bool) -> String {
    "pingcli login --profile \(name)" + (hasSettings ? "" : " --issuer URL --client-id ID")
}

/// For a profile with no saved settings while others exist (`--profile wrok`): `: no such profile (did
/// you mean "work"? known profiles: k8s, work)`, so a typo does not pass for a new, empty profile.
package func unknownProfileNote(_ name: ProfileName, store: TokenStore) -> String {
    let known = store.profileNames().map(\.value).filter { $0 != name.value }
    guard !known.isEmpty else { return "" }
    let nearest = Suggestions.closest(to: name.value, among: known).map { "did you mean \"\($0)\"? " } ?? ""
    return ": no such profile (\(nearest)known profiles: \(known.joined(separator: ", ")))"
}
