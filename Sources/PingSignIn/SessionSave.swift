import PingBase
import PingCrypto
import PingFlowCore
import PingOAuth
import PingPlatform
import PingSession
import PingState

/// The end of every login: the profile and its new tokens saved under the profile's lock, and, when
/// the login replaced a session at another issuer, that session revoked at its own provider.
extension SessionContext {
    /// Saves `profile` and `tokens` as `name` under the profile's lock and resets the refresh backoff.
    ///
    /// `replacing`: the profile's previous settings when this login signs in to another issuer
    /// (`login --force`, or confirmed on a terminal). Its tokens are read under the same lock, just
    /// before they are replaced, so the refresh token revoked is the newest one even when a `token`
    /// rotated it while the person signed in; nothing of the old session is touched before the new one
    /// is saved, so a failed login leaves it usable. The caller revokes the returned session
    /// (`ReplacedSession.revoke`) once it has said that the login succeeded.
    package func saveSession(
        _ profile: Profile, tokens: TokenSet, as name: ProfileName, key: CommandKey, keys: FetchedJWKS? = nil,
        replacing: Profile? = nil
    ) throws(PingCLIError) -> ReplacedSession? {
        let lock = try StoreAdvice.worded(store.takeLock(name))
        defer { lock.unlock() }
        var replaced = replacing.map { ReplacedSession(profile: $0, name: name) }
        if let replacing {
            // A cache that does not decrypt, or is bound to other settings, names endpoints nobody checked.
            replaced?.tokens = try? store.readTokens(name, profile: replacing, key: key)
        }
        try StoreAdvice.worded(store.writeProfile(profile, as: name))
        if let keys {
            try keys.save(store.paths.jwksFile(name))
        } else if replacing != nil {
            try FileAdvice.worded(try FileSystem.remove(store.paths.jwksFile(name)))  // the other provider's keys
        }
        var tokens = tokens
        tokens.sessionID = Sodium.randomBytes(16)  // a new session: no narrower token of an earlier one decrypts
        try StoreAdvice.worded(store.writeTokens(tokens, name, profile: profile, key: key))
        try FileAdvice.worded(try FileSystem.remove(store.paths.targetedTokensFile(name)))  // a new session's, not the last one's
        try FileAdvice.worded(try FileSystem.remove(store.paths.awsCredentialsFile(name)))
        try FileAdvice.worded(try store.clearRefreshFailure(name))
        return replaced
    }
}

/// A session at another issuer that a login replaced, with its tokens as they were read under the lock.
package struct ReplacedSession {
    package var profile: Profile
    package var name: ProfileName
    /// nil: the cache was gone, unreadable or not bound to `profile`.
    package var tokens: TokenSet? = nil

    /// Revokes the old tokens at the old provider (RFC 7009), best effort: what happened goes to stderr,
    /// and a failure is a warning, never a failed login (the new session is saved by then).
    package func revoke(in context: SessionContext) {
        let console = context.console
        let old = displaySafe(profile.issuer, limit: 200)
        guard let tokens else {
            console.err(
                "pingcli: warning: the previous session's cache (\(old)) could not be read, so nothing was revoked there; its tokens stay valid until they expire"
            )
            return
        }
        console.err("Revoking the previous session of profile \"\(name)\" at \(old).")
        let logout = LogoutFlow(context: context, revoke: true, endSession: nil, openBrowser: false, timeout: 30)
        for problem in logout.revokeAll(tokens, profile: profile, name: name) {
            console.err("pingcli: warning: previous session at \(old): \(problem.message)")
        }
    }
}
