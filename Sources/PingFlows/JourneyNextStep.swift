import PingBase
import PingOAuth
import PingState

/// The next step a journey's end names, as a command that runs as printed. A suspended journey saves
/// the profile's settings (when the profile has none: with the empty cache record a logout leaves, which
/// vouches for them), so `pingcli login --profile NAME --resume LINK` resumes it without more options; a
/// link that expired or was used names the command that starts the journey again.
extension JourneyFlow {
    /// The command that resumes the suspended journey, after saving what it needs.
    func resumeCommand(_ completion: SignInCompletion) throws(PingCLIError) -> String {
        let (saved, verified) = context.store.reusableProfile(options.profile, key: key)
        if saved == nil {
            let settings = completion.settings()
            try context.store.saveProfile(settings, as: options.profile)
            try context.store.saveTokens(nil, options.profile, profile: settings, key: key)
            return "pingcli login --profile \(options.profile) --resume LINK"
        }
        let same = verified && saved?.issuer == completion.metadata.issuer && saved?.clientID == options.clientID
        return (same ? "pingcli login --profile \(options.profile)" : fullCommand) + " --resume LINK"
    }

    /// The command that walks the journey again from its start.
    func startCommand() -> String {
        let (saved, verified) = context.store.reusableProfile(options.profile, key: key)
        if verified, let saved, saved.issuer == options.issuer.value, saved.clientID == options.clientID, saved.journey != nil {
            return "pingcli login --profile \(options.profile)"
        }
        let tree = options.journey?.tree?.name ?? options.journey?.savedTree
        return fullCommand + " --journey " + (tree.map { Self.shellWord(displaySafe($0, limit: 256)) } ?? "TREE")
    }

    /// `login` with the profile, the issuer and the client named.
    private var fullCommand: String {
        "pingcli login --profile \(options.profile) --issuer \(Self.shellWord(options.issuer.value)) --client-id \(Self.shellWord(displaySafe(options.clientID, limit: 200)))"
    }

    /// A word as a POSIX shell reads it back: bare when plain, else single-quoted.
    static func shellWord(_ word: String) -> String {
        let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=@".contains($0) }
        guard !plain else { return word }
        var quoted = "'"
        for character in word { quoted += character == "'" ? "'\\''" : String(character) }
        return quoted + "'"
    }
}
