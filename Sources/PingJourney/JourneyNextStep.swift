import PingBase
import PingFlowCore
import PingOAuth
import PingSession
import PingSignIn
import PingState

/// The next step a journey's end names, as a command that runs as printed. A suspended journey saves
/// the profile's settings (when the profile has none: with the empty cache record a logout leaves, which
/// vouches for them), so `pingcli login --profile NAME --resume LINK` resumes it without more options; a
/// link that expired or was used names the command that starts the journey again.
extension JourneyFlow {
    /// The command that resumes the suspended journey, after saving what it needs.
    package func resumeCommand(_ completion: SignInCompletion) throws(PingCLIError) -> String {
        let (saved, verified) = context.session.store.reusableProfile(signIn.profile, key: key)
        if saved == nil {
            let settings = completion.settings()
            try StoreAdvice.worded(context.session.store.writeProfile(settings, as: signIn.profile))
            try StoreAdvice.worded(context.session.store.writeTokens(nil, signIn.profile, profile: settings, key: key))
            return "pingcli login --profile \(signIn.profile) --resume LINK"
        }
        let same = verified && saved?.issuer == completion.metadata.issuer && saved?.clientID == signIn.clientID
        return (same ? "pingcli login --profile \(signIn.profile)" : fullCommand) + " --resume LINK"
    }

    /// The command that walks the journey again from its start.
    package func startCommand() -> String {
        let (saved, verified) = context.session.store.reusableProfile(signIn.profile, key: key)
        if verified, let saved, saved.issuer == signIn.issuer.value, saved.clientID == signIn.clientID, saved.journey != nil {
            return "pingcli login --profile \(signIn.profile)"
        }
        let tree = signIn.journey?.tree?.name ?? signIn.journey?.savedTree
        return fullCommand + " --journey " + (tree.map { shellQuoted(displaySafe($0, limit: 256)) } ?? "TREE")
    }

    /// `login` with the profile, the issuer and the client named.
    private var fullCommand: String {
        "pingcli login --profile \(signIn.profile) --issuer \(shellQuoted(signIn.issuer.value)) --client-id \(shellQuoted(displaySafe(signIn.clientID, limit: 200)))"
    }

}
