import PingAM
import PingBase
import PingCrypto
import PingOTP

/// One-time codes inside a journey: an OTP prompt answered from a stored account (`login --otp NAME`),
/// and an OATH registration step (its `otpauth://` URI) taken by pingcli as the authenticator when the
/// person agrees (or `--otp-enroll NAME`). The account a walk uses can change during it (a registration
/// step names the new one), so it is kept in a reference the flow reads back to save with the profile.
package final class JourneyOTP: @unchecked Sendable {
    package let accounts: OTPAccounts
    /// The account that answers OTP prompts (`--otp`, or the one registered during this walk).
    package var account: String?
    /// `--otp-enroll NAME`: register without asking, under this name.
    package let enrollName: String?
    package let hostName: String

    package init(accounts: OTPAccounts, account: String?, enrollName: String?, hostName: String) {
        self.accounts = accounts
        self.account = account
        self.enrollName = enrollName
        self.hostName = hostName
    }

    /// Whether a prompt asks for a one-time code (AM's OATH and OTP nodes: "Enter verification code",
    /// "One-time code", "OTP", "passcode").
    package static func isCodePrompt(_ prompt: String) -> Bool {
        let text = prompt.lowercased()
        return ["code", "one-time", "one time", "otp", "passcode"].contains { text.containsText($0) }
    }

    /// The registration URI of an OATH registration step: a hidden value (`mfaDeviceRegistration`) that
    /// holds an `otpauth://` or `mfauth://` URI.
    package static func registrationURI(_ step: JourneyStep) -> String? {
        for callback in step.callbacks {
            guard case .hiddenValue(_, let value) = callback.kind else { continue }
            let scheme = value.prefix(10).lowercased()
            if scheme.hasPrefix("otpauth://") || scheme.hasPrefix("mfauth://") { return value }
        }
        return nil
    }
}

extension JourneyPrompter {
    /// A code of the walk's OTP account for `prompt`, when there is one and the prompt asks for a code.
    package func storedCode(_ prompt: String) throws(PingCLIError) -> JourneyAnswer? {
        guard let otp, let name = otp.account, JourneyOTP.isCodePrompt(prompt), answers?.value(for: prompt) == nil else { return nil }
        let code = try otp.accounts.code(name)
        console.err(
            "pingcli: answered \"\(displaySafe(prompt, limit: 80))\" with the current code of the OTP account \"\(displaySafe(name, limit: 80))\"."
        )
        return .text(code.code)
    }

    /// An OATH registration step: registers pingcli when the person agrees (or `--otp-enroll`), then the
    /// step's confirmation ("Next") is answered with its default. Declined: one line, and the step goes on.
    package func register(_ step: JourneyStep, uri: String) throws(PingCLIError) -> [Int: [JSONValue]] {
        var agreed = false
        var name: String? = nil
        if let otp {
            name = otp.enrollName
            if name == nil {
                agreed = try yesNo(
                    "Register this machine (\(otp.hostName)) as your authenticator for one-time codes", fileName: "Register this machine")
            }
            agreed = agreed || name != nil
        }
        if let otp, agreed {
            var account = try OTPAuthURI.parse(uri, name: name)
            defer { Sodium.wipe(&account.secret) }
            try otp.accounts.add(account, replace: true)
            otp.account = account.name
            console.err(
                "pingcli: registered this machine as the authenticator \"\(displaySafe(account.name, limit: 80))\" (its secret encrypted under the cache key). This machine now holds both factors of this sign-in: keep it locked."
            )
        } else {
            console.err(
                "pingcli: not registered: the registration's QR code carries a secret for a phone's authenticator app; scan it in the browser (\(browserAlternative))."
            )
        }
        var answers: [Int: [JSONValue]] = [:]
        for callback in step.callbacks {
            switch callback.kind {
            case .confirmation(_, _, let defaultOption): answers[callback.position] = callback.values(.index(defaultOption ?? 0))
            case .textOutput(let message, let severity): say(message, severity)
            default: continue
            }
        }
        return answers
    }
}
