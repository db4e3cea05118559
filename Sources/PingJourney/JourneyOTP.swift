import PingAM
import PingBase
import PingCrypto
import PingOAuth
import PingOTP
import PingPlatform
import PingState
import PingTerminal

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
    /// The journey's AM (`https://am.example.com`): the accounts it registers and uses are this origin's.
    package let origin: String
    /// `--otp-replace`: a registration may replace this AM's account of the same name.
    package let replace: Bool

    package init(accounts: OTPAccounts, account: String?, enrollName: String?, hostName: String, origin: String, replace: Bool = false) {
        self.accounts = accounts
        self.origin = origin
        self.replace = replace
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
        let code = try otp.accounts.code(name, origin: otp.origin)
        console.err(
            "pingcli: answered \"\(displaySafe(prompt, limit: 80))\" with the current code of the OTP account \"\(displaySafe(name, limit: 80))\"."
        )
        return .text(code.code)
    }
}
