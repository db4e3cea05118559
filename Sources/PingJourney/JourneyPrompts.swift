import PingAM
import PingBase
import PingOAuth
import PingTerminal

/// One callback asked: its prompt shown (display-safe), its answer read from the answers file or the
/// terminal, and checked against what the callback accepts (a menu's numbers, a yes or no).
extension JourneyPrompter {
    /// The answer to `callback`, or nil when it asks for nothing (a message, a hidden value, metadata).
    package func ask(_ callback: JourneyCallback) throws(PingCLIError) -> JourneyAnswer? {
        switch callback.kind {
        case .name(let prompt), .password(let prompt), .textInput(let prompt, _):
            if let code = try storedCode(prompt) { return code }
        default: break
        }
        switch callback.kind {
        case .name(let prompt):
            let remembered = JourneyOTP.isCodePrompt(prompt) ? nil : userName
            return .text(try line(callback.displayPrompt(prompt, fallback: "User name"), secret: false, default: remembered))
        case .password(let prompt): return .text(try line(callback.displayPrompt(prompt, fallback: "Password"), secret: true))
        case .textInput(let prompt, let defaultText):
            return .text(try line(callback.displayPrompt(prompt, fallback: "Text"), secret: false, default: defaultText))
        case .choice(let prompt, let choices, let defaultChoice):
            return .index(try menu(callback.displayPrompt(prompt, fallback: "Choose"), choices, defaultChoice))
        case .confirmation(let prompt, let options, let defaultOption):
            let name = prompt.trimmingWhitespace.isEmpty ? JourneyAnswersFile.confirmationName(options) : prompt
            return .index(try menu(callback.displayPrompt(name, fallback: "Choose"), options, defaultOption))
        case .textOutput(let message, let severity):
            say(message, severity)
            return nil
        case .validatedUsername(let prompt, let failed), .validatedPassword(let prompt, let failed):
            let secret = if case .validatedPassword = callback.kind { true } else { false }
            let shown = callback.displayPrompt(prompt, fallback: secret ? "Password" : "User name")
            explain(failed, shown)
            return .text(try line(shown, secret: secret))
        case .termsAndConditions(let terms, let version):
            for paragraph in terms.split(whereSeparator: \.isNewline) { console.err(displaySafe(String(paragraph), limit: 2000)) }
            let name = "Accept the terms and conditions" + (version.isEmpty ? "" : " (version \(displaySafe(version, limit: 40)))")
            // Declined: the step is not posted, and the sign-in ends (AM has no branch for it).
            guard try yesNo(name, fileName: "Terms and conditions") else { throw JourneyDecline.cancelled(at: "the terms and conditions") }
            return .bool(true)
        case .kbaCreate(let prompt, let questions, let allowUserDefined):
            return try kba(callback.displayPrompt(prompt, fallback: "Security question"), questions, allowUserDefined)
        case .stringAttribute(let input), .numberAttribute(let input), .booleanAttribute(let input):
            return try attribute(callback, input)
        case .deviceProfile(let metadata, let message):
            if !message.trimmingWhitespace.isEmpty { say(message, .information) }
            return .text(device.json(metadata: metadata))
        case .deviceBinding(let request): return try bind(request)
        case .deviceSigning(let request): return try sign(request)
        case .selectIdP(let providers): return try chooseProvider(providers)
        case .hiddenValue, .metadata, .pollingWait, .suspendedTextOutput, .socialRedirect, .nativeIdP, .unsupported, .unknown: return nil
        }
    }

    /// One line for `prompt`: from the answers file, else the terminal (a secret without echo), else
    /// exit 4 naming the prompt. An empty answer takes `default`.
    package func line(
        _ prompt: String, secret: Bool, default defaultValue: String? = nil, showDefault: Bool = true
    ) throws(PingCLIError) -> String {
        if let value = answers?.value(for: prompt) { return value.isEmpty ? (defaultValue ?? "") : value }
        guard let terminal else {
            // Without an answers file, the option that gives one: the same login with --answers FILE runs as printed.
            let fix =
                answers == nil
                ? "give --answers FILE, a file of mode 0600 holding the line \(prompt)=…" : "add a line \(prompt)=… to the --answers file"
            throw .loginRequired(
                "the journey asks \"\(prompt)\" and there is no terminal to ask on: \(fix), or run pingcli login on a terminal",
                rule: .journeyNoAnswer)
        }
        let shownDefault = showDefault ? defaultValue.map { " [\(displaySafe($0, limit: 80))]" } ?? "" : ""
        console.writeErr(prompt + shownDefault + ": ")
        guard let typed = secret ? terminal.readSecret() : terminal.readLine() else {
            throw .loginRequired("no answer to \"\(prompt)\" (the input ended): run pingcli login again", rule: .journeyNoAnswer)
        }
        return typed.isEmpty ? (defaultValue ?? "") : typed
    }

    /// A numbered menu (from 1), the default marked; answered by number or by the option's text.
    package func menu(_ prompt: String, _ options: [String], _ defaultIndex: Int?) throws(PingCLIError) -> Int {
        if let value = answers?.value(for: prompt) {
            guard let index = JourneyAnswersFile.option(value, in: options) else {
                throw .usage(
                    "the --answers file's answer to \"\(prompt)\" is none of its options (\(options.map { displaySafe($0, limit: 60) }.joined(separator: ", "))): give one of them, or its number",
                    rule: .journeyAnswerOption)
            }
            return index
        }
        guard terminal != nil else { _ = try line(prompt, secret: false); return 0 }
        do {
            console.err(prompt)
            for (index, option) in options.enumerated() {
                console.err("  \(index + 1)) \(displaySafe(option, limit: 200))\(index == defaultIndex ? " (default)" : "")")
            }
        }
        for _ in 0..<3 {
            let typed = try line("Choose 1-\(options.count)", secret: false, default: defaultIndex.map { String($0 + 1) })
            if let index = JourneyAnswersFile.option(typed, in: options) { return index }
            console.err("pingcli: \"\(displaySafe(typed, limit: 40))\" is not one of the options: type its number")
        }
        throw .usage("no option of \"\(prompt)\" was chosen: run pingcli login again", rule: .journeyAnswerOption)
    }

    /// A yes or no question (`fileName`: how the answers file names it); no is the default.
    package func yesNo(_ question: String, fileName: String) throws(PingCLIError) -> Bool {
        var value = answers?.value(for: fileName) ?? ""
        if answers?.value(for: fileName) == nil { value = try line(question + " [y/N]", secret: false, default: "n", showDefault: false) }
        return ["y", "yes", "true", "1"].contains(value.trimmingWhitespace.lowercased())
    }

    /// The policies a previous answer failed, each in words.
    package func explain(_ failed: [PolicyFailure], _ prompt: String) {
        for failure in failed { console.err("\(prompt): \(failure.explanation)") }
    }

    /// A security question (a predefined one, or the person's own where allowed) and its answer, read
    /// as a secret.
    private func kba(_ prompt: String, _ questions: [String], _ allowUserDefined: Bool) throws(PingCLIError) -> JourneyAnswer {
        let own = "Write my own question"
        let options = questions + (allowUserDefined || questions.isEmpty ? [own] : [])
        let index = try menu(prompt, options, nil)
        let question = index < questions.count ? questions[index] : try line("Your question", secret: false)
        let reply = try line(displaySafe(question, limit: 200), secret: true)
        return .questionAndAnswer(question, reply)
    }

    /// An attribute of the person's profile: text, a number or yes/no, with the current value as default.
    private func attribute(_ callback: JourneyCallback, _ input: JourneyCallback.AttributeInput) throws(PingCLIError) -> JourneyAnswer {
        let prompt = callback.displayPrompt(input.prompt, fallback: displaySafe(input.attribute, limit: 60))
        explain(input.failedPolicies, prompt)
        switch callback.kind {
        case .booleanAttribute:
            return .bool(try yesNo(prompt, fileName: prompt))
        case .numberAttribute:
            let current = input.value.numberValue.map { JSONValue.numberText($0) }
            for _ in 0..<3 {
                let typed = try line(prompt, secret: false, default: current)
                if let number = Double(typed.trimmingWhitespace), number.isFinite { return .number(number) }
                if typed.isEmpty && !input.required { return .number(0) }
                console.err("pingcli: \(prompt) must be a number")
                if answers?.value(for: prompt) != nil { break }
            }
            throw .usage("no number was given for \"\(prompt)\": run pingcli login again", rule: .journeyAnswerNumber)
        default:
            return .text(try line(prompt, secret: false, default: input.value.stringValue.flatMap { $0.isEmpty ? nil : $0 }))
        }
    }
}
