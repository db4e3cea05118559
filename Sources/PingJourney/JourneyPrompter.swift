import PingAM
import PingBase
import PingOAuth
import PingOTP
import PingTerminal

/// A journey's steps put to the person: each callback shown as a person expects it (prompts with their
/// defaults, secrets without echo, numbered menus, messages by severity, a visible countdown while a
/// push is approved) and the answers collected. Answers come from `--answers FILE` first, then from the
/// terminal; with neither, the prompt is named and the sign-in stops (exit 4). Nothing typed is ever
/// written anywhere but into the step sent back to AM.
package struct JourneyPrompter {
    package var console: Console
    /// The terminal, when there is one.
    package var terminal: TerminalInput?
    package var answers: JourneyAnswersFile?
    package var device: DeviceProfileAnswer
    /// Waits that many seconds (the test clock moves instead).
    package var sleep: @Sendable (Double) -> Void
    /// What `login` would run to sign in through the browser instead (for a step the terminal cannot do).
    package var browserAlternative: String
    /// Device binding and signing (nil: those steps are answered `Unsupported`).
    package var devices: JourneyDevices? = nil
    /// Passkeys: WebAuthn steps (nil: answered `unsupported`).
    package var passkeys: JourneyPasskeys? = nil
    /// One-time codes from stored accounts, and OATH registration (nil: neither).
    package var otp: JourneyOTP? = nil
    /// The user name typed in an earlier walk of the tree, offered as the default when it starts over.
    package var userName: String? = nil
    /// When the sign-in must have ended (`--timeout`), on `now`'s clock: a wait never goes past it.
    package var deadline = Double.infinity
    /// Set when the tree must not start over (the device PIN tries are used up).
    package var restart = JourneyRestart()
    package var now: @Sendable () -> Double = { 0 }
    /// `--idp NAME` (or the profile's): the identity provider a Select Identity Provider step picks.
    package var identityProvider: String? = nil

    /// What to do with a step.
    package enum Outcome: Equatable {
        /// Send the step back with these inputs.
        case answer([Int: [JSONValue]])
        /// Send the step back as it is (after a polling wait).
        case poll
        /// The journey is suspended: its message, for the person to follow.
        case suspended(String)
        /// Send the browser to another identity provider, then post the step again with its answer.
        case federate(SocialRedirect)
    }

    package func handle(_ step: JourneyStep) throws(PingCLIError) -> Outcome {
        if let outcome = try federation(step) { return outcome }
        if let (kind, canBranch) = step.unsupported {
            guard canBranch else {
                throw .failure(
                    "this journey step needs \(kind.name), which pingcli cannot do in a terminal: sign in with the browser instead (\(browserAlternative))",
                    rule: .journeyUnsupported)
            }
            console.err("pingcli: this step needs \(kind.name), which pingcli cannot do in a terminal: telling the journey so.")
            return .answer(Self.declined(step))
        }
        if let header = step.header.map({ displaySafe($0.trimmingWhitespace, limit: 200) }), !header.isEmpty, terminal != nil {
            console.err(header)
        }
        if let description = step.description.map({ displaySafe($0.trimmingWhitespace, limit: 500) }), !description.isEmpty {
            console.err(description)
        }
        if let request = step.webAuthn { return .answer(try webAuthn(step, request)) }
        if let uri = JourneyOTP.registrationURI(step) { return .answer(try register(step, uri: uri)) }
        var answers: [Int: [JSONValue]] = [:]
        // A provider picked on a page that also holds the local sign-in's prompts: those stay unasked.
        if let (position, answer, local) = try providerOnPage(step) {
            answers[position] = step.callbacks[position].values(answer)
            if !local { return .answer(answers) }
        }
        for callback in step.callbacks where answers[callback.position] == nil {
            switch callback.kind {
            case .suspendedTextOutput(let message, _):
                return .suspended(displaySafe(message.trimmingWhitespace, limit: 500))
            case .pollingWait(let message, let milliseconds):
                show(step.callbacks.filter { $0.position < callback.position })
                let left = (deadline - now()).rounded(.up)
                wait(message: message, seconds: max(1, min(milliseconds / 1000, left.isFinite ? Int(max(0, left)) : Int.max)))
                return .poll
            default:
                if let answer = try ask(callback) { answers[callback.position] = callback.values(answer) }
            }
        }
        return .answer(answers)
    }

    /// The messages of callbacks before a wait (they were not shown by `ask`).
    func show(_ callbacks: [JourneyCallback]) {
        for callback in callbacks { if case .textOutput(let message, let severity) = callback.kind { say(message, severity) } }
    }

    /// A message by its severity; a script meant for a browser is never shown.
    package func say(_ message: String, _ severity: JourneyCallback.Severity) {
        let text = displaySafe(message.trimmingWhitespace, limit: 1000)
        guard !text.isEmpty || severity == .script else { return }
        switch severity {
        case .information: console.err(text)
        case .warning: console.err("Warning: " + text)
        case .error: console.err("Error: " + text)
        case .script:
            // A script is never shown; the recovery codes a registration generated are, once.
            guard let recovery = RecoveryCodes.read(message) else { return }
            console.err(
                "Your recovery codes for \(recovery.deviceName) (each works once, if this machine's passkey is lost; keep them somewhere safe, they are not shown again):"
            )
            for code in recovery.codes { console.err("  " + displaySafe(code, limit: 64)) }
        }
    }

    /// The server's message and a countdown, a second at a time on the flow's clock; then the step is
    /// posted again. Without a terminal, the message alone.
    private func wait(message: String, seconds: Int) {
        let text = displaySafe(message.trimmingWhitespace, limit: 300)
        let line = (text.isEmpty ? "Waiting" : text) + " (checking again in \(seconds) s)"
        guard terminal != nil, console.errorIsTerminal else {
            console.err(line)
            return sleep(Double(seconds))
        }
        // The countdown on the same line, a second at a time.
        console.writeErr(line)
        for remaining in stride(from: seconds, to: 0, by: -1) {
            console.writeErr(" \(remaining)")
            sleep(1)
        }
        console.writeErr("\n")
    }

    /// A step the terminal cannot do, where the tree can branch: `clientError` = Unsupported, and
    /// WebAuthn's outcome = unsupported.
    package static func declined(_ step: JourneyStep) -> [Int: [JSONValue]] {
        var answers: [Int: [JSONValue]] = [:]
        for callback in step.callbacks {
            if case .hiddenValue(let id, _) = callback.kind, id == JourneyCallback.webAuthnOutcomeID {
                answers[callback.position] = callback.values(.text("unsupported"))
            } else if callback.inputs.contains(where: { $0.name.hasSuffix("clientError") }) {
                answers[callback.position] = callback.values(.clientError("Unsupported"))
            }
        }
        return answers
    }
}
