import PingBase
import PingFlowCore
import PingOAuth
import PingPlatform
import PingState

/// A login to another issuer on a profile that already holds a session would replace that session:
/// the person says so (on a terminal, or with `--force`), and the old tokens are then revoked at the
/// old provider once the new session is saved (`CommandContext.saveSession`), never before.
extension LoginCommand {
    /// The profile's current settings when this login replaces its session at another issuer, after the
    /// person agreed; nil when nothing is replaced (no profile, no cache that vouches for it, or the
    /// same issuer).
    /// Without a terminal and without `force`: a usage error naming `--force`.
    package static func replacedSession(
        _ name: ProfileName, issuer: IssuerURL, force: Bool, key: CommandKey, context: CommandContext
    ) throws(PingCLIError) -> Profile? {
        // Only a session its cache vouches for is one to keep: a cache that does not decrypt, or whose
        // profile.json was changed since, is no usable session, and its endpoints nobody checked.
        let (current, verified) = context.store.reusableProfile(name, key: key)
        guard let current, verified, current.issuer != issuer.value else { return nil }
        if force { return current }
        let old = displaySafe(current.issuer, limit: 200)
        let new = displaySafe(issuer.value, limit: 200)
        guard context.inputIsTerminal, context.console.errorIsTerminal else {
            throw PingCLIError(
                .usage,
                "profile \"\(name)\" is signed in to \(old): signing in to \(new) would replace that session; give --force to replace it (the old tokens are revoked at \(old) where it allows), or sign in with another --profile NAME",
                rule: .issuerSwitchRefused)
        }
        context.console.err("pingcli: profile \"\(name)\" is signed in to \(old).")
        context.console.writeErr("Replace that session with a sign-in to \(new), revoking the old tokens? [y/N] ")
        guard ["y", "yes"].contains(readAnswer(context.input).lowercased()) else {
            throw PingCLIError(
                .usage, "not signing in to \(new): profile \"\(name)\" keeps its session at \(old) (use another --profile NAME)",
                rule: .issuerSwitchDeclined)
        }
        return current
    }
}
