import PingAM
import PingBase
import PingCrypto
import PingOAuth
import PingOTP
import PingTerminal

/// An OATH registration step (its `otpauth://` URI in a hidden value), confirmed at AM only when the
/// person took the new secret: pingcli registered as the authenticator (`--otp-enroll NAME`, or yes at
/// the `[y/N]` that names this machine), or, on a terminal, the URI shown as a QR code for a phone's app
/// (only when asked: it carries the secret) and the scan confirmed. A declined registration is never
/// confirmed, so AM keeps the authenticator the person has: the step's own skip option is answered
/// where it has one, else the sign-in ends without posting it, and one line says how to register in
/// the browser instead.
extension JourneyPrompter {
    package func register(_ step: JourneyStep, uri: String) throws(PingCLIError) -> [Int: [JSONValue]] {
        for callback in step.callbacks {
            if case .textOutput(let message, let severity) = callback.kind { say(message, severity) }
        }
        if try registerThisMachine(uri) { return Self.confirmed(step) }
        if try registerPhone(uri) {
            console.err("pingcli: registration confirmed at AM for the app that scanned it; pingcli stored nothing.")
            return Self.confirmed(step)
        }
        let inBrowser = "to register an authenticator app, sign in with the browser and scan its QR code there (\(browserAlternative))"
        if let skip = Self.skipped(step) {
            console.err("pingcli: not registered: the registration was skipped at AM; \(inBrowser).")
            return skip
        }
        throw JourneyDecline.cancelled(
            at: "the OATH registration", "nothing was registered at AM and your authenticator is unchanged; " + inBrowser)
    }

    /// pingcli as the authenticator, when `--otp-enroll NAME` says so or the person agrees.
    private func registerThisMachine(_ uri: String) throws(PingCLIError) -> Bool {
        guard let otp else { return false }
        if otp.enrollName == nil {
            let question = "Register this machine (\(otp.hostName)) as your authenticator for one-time codes"
            guard try yesNo(question, fileName: "Register this machine") else { return false }
        }
        var account = try OTPAuthURI.parse(uri, name: otp.enrollName)
        defer { Sodium.wipe(&account.secret) }
        guard try storeRegistered(&account, otp) else { return false }
        otp.account = account.name
        console.err(
            "pingcli: registered this machine as the authenticator \"\(displaySafe(account.name, limit: 80))\" (its secret encrypted under the cache key). This machine now holds both factors of this sign-in: keep it locked."
        )
        return true
    }

    /// On a terminal: the URI as a QR code for a phone, drawn only when asked, and confirmed at AM only
    /// when the person says the app took it.
    private func registerPhone(_ uri: String) throws(PingCLIError) -> Bool {
        guard terminal != nil, console.errorIsTerminal else { return false }
        let show = "Show it as a QR code for a phone's authenticator app instead (the code holds the secret: mind who sees this screen)"
        guard try yesNo(show, fileName: "Show the QR code") else { return false }
        guard let modules = QRCode.modules(uri) else {
            console.err("pingcli: cannot draw the QR code: libqrencode is missing (install libqrencode4)")
            return false
        }
        console.err("\n" + QRCode.render(modules).map { "  " + $0 }.joined(separator: "\n") + "\n")
        return try yesNo("Does the app show the new account? Confirm the registration at AM", fileName: "Confirm the registration")
    }

    /// The step's confirmation answered with its going-on option (its default, unless that is a no).
    package static func confirmed(_ step: JourneyStep) -> [Int: [JSONValue]] {
        var answers: [Int: [JSONValue]] = [:]
        for callback in step.callbacks {
            guard case .confirmation(_, let options, let defaultOption) = callback.kind else { continue }
            let onward =
                defaultOption.flatMap { options.indices.contains($0) && !JourneyDecline.isDecline(options[$0]) ? $0 : nil }
                ?? options.firstIndex { !JourneyDecline.isDecline($0) } ?? 0
            answers[callback.position] = callback.values(.index(onward))
        }
        return answers
    }

    /// The step answered with its own skip or cancel option; nil when it has none.
    package static func skipped(_ step: JourneyStep) -> [Int: [JSONValue]]? {
        for callback in step.callbacks {
            guard case .confirmation(_, let options, _) = callback.kind, let skip = JourneyDecline.declineOption(options) else { continue }
            return [callback.position: callback.values(.index(skip))]
        }
        return nil
    }
}

extension JourneyPrompter {
    /// The registered account stored as this AM's; false when it would replace one and the person said no.
    /// Replacing is never silent: `--otp-enroll` refuses a taken name unless `--otp-replace`, a terminal
    /// asks (`[y/N]`, no by default).
    fileprivate func storeRegistered(_ account: inout OTPAccount, _ otp: JourneyOTP) throws(PingCLIError) -> Bool {
        account.origin = otp.origin
        var replace = otp.replace
        if !replace, try otp.accounts.taken(account) {
            let shown = "\"\(displaySafe(account.name, limit: 80))\""
            if otp.enrollName != nil {
                throw .failure(
                    "an OTP account named \(shown) for \(displaySafe(otp.origin, limit: 120)) exists already, so nothing was registered: give --otp-enroll another name, or add --otp-replace to replace it (its old secret is lost)",
                    rule: .otpNameTaken)
            }
            let question = "An OTP account named \(shown) exists already for this AM: replace it (its old secret is lost)"
            guard try yesNo(question, fileName: "Replace the OTP account") else { return false }
            replace = true
        }
        try otp.accounts.add(account, replace: replace)
        return true
    }
}
