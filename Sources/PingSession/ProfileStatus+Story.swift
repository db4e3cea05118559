import PingBase
import PingPlatform
import PingState

/// The parts of `status` that tell the rest of a profile's story: a journey profile's tree, its OTP
/// account and whether the cache holds its AM session; and only the files and key that exist (a fresh
/// home lists nothing that is not there).
extension ProfileStatus {
    /// `journey:` and `AM session:`, for a profile signed in by walking a tree.
    package func journeyLines(now: Double) -> [String] {
        guard let journey else { return [] }
        let provider = idp.map { "; signs in through the identity provider \"\(displaySafe($0, limit: 80))\" (--idp)" } ?? ""
        let otp = otpAccount.map { "; one-time codes from the OTP account \"\(displaySafe($0, limit: 80))\" (pingcli otp)" } ?? ""
        var lines = ["journey:       \(displaySafe(journey, limit: 120)) (a PingAM tree, walked in the terminal\(provider)\(otp))"]
        switch amSession {
        case true? where amSessionEnds.map { $0 <= now } ?? false:
            lines.append(
                "AM session:    ended at AM at \(formatUTC(amSessionEnds!)) (its maximum time; the next sign-in walks the tree again)")
        case true?:
            let ends = amSessionEnds.map {
                "until \(formatUTC($0)) at the latest (\(describeInterval($0 - now)); sooner if unused for AM's idle time)"
            }
            lines.append(
                "AM session:    held in the encrypted cache, \(ends ?? "for as long as AM keeps it (AM did not say)") (a refused refresh gets a new code with it; devices remove uses it)"
            )
        case false?: lines.append("AM session:    none (the next sign-in walks the tree again)")
        case nil: break
        }
        return lines
    }

    /// `key store:` and `files:`: what exists. Before the first login, the key's place is said as a plan.
    package var placeLines: [String] {
        let keyExists = keyStore == .command || FileSystem.exists(keyFile)
        var lines = [
            keyExists
                ? "key store:     \(keyStore.rawValue) (\(Self.describe(keyStore)))"
                : "key store:     none yet (the first login keeps the key in the Secret Service when one answers, else in a key file)"
        ]
        let files = [profileFile, tokensFile].filter(FileSystem.exists) + (keyExists ? [keyFile] : [])
        guard let first = files.first else { return lines + ["files:         none yet (pingcli login writes them)"] }
        lines.append("files:         \(first)")
        lines += files.dropFirst().map { "               \($0)" }
        return lines
    }
}
