import EmulatorHTTP
import Foundation

/// The callbacks of one step, in PingAM's JSON: `type`, `output` (name/value pairs), `input` (named
/// `IDToken<n>` by the callback's position on the page, 1-based, compound inputs with a suffix) and `_id`
/// (https://docs.pingidentity.com/pingoneaic/am-authentication/authn-supported-callbacks.html).
enum AMCallback {
    static func make(
        _ type: String, position: Int, output: [(String, EmulatorJSON)], input: [(String, EmulatorJSON)] = []
    ) -> EmulatorJSON {
        var callback: [String: EmulatorJSON] = [
            "type": .string(type), "_id": .number(Double(position)),
            "output": .array(output.map { ["name": .string($0.0), "value": $0.1] }),
        ]
        if !input.isEmpty {
            callback["input"] = .array(input.map { ["name": .string(inputName(position, $0.0)), "value": $0.1] })
        }
        return .object(callback)
    }

    /// `IDToken<position + 1>` plus a suffix (`question`, `validateOnly`, …).
    static func inputName(_ position: Int, _ suffix: String) -> String { "IDToken\(position + 1)\(suffix)" }

    /// Every `input` of the posted step by name (PingAM reads the values, not the rest of the echo).
    static func inputs(of step: [String: EmulatorJSON]) -> [String: EmulatorJSON] {
        var values: [String: EmulatorJSON] = [:]
        for callback in step["callbacks"]?.arrayValue ?? [] {
            for input in callback["input"]?.arrayValue ?? [] {
                if let name = input["name"]?.stringValue, let value = input["value"] { values[name] = value }
            }
        }
        return values
    }
}

extension EmulatorJSON {
    /// An index answer: a number, or a string of digits (both reach PingAM from clients).
    var indexValue: Int? {
        if let n = numberValue, let i = Int(exactly: n) { return i }
        return stringValue.flatMap { Int($0) }
    }

    /// A boolean answer: true/false, or their text.
    var truthValue: Bool? { boolValue ?? stringValue.flatMap { $0 == "true" ? true : $0 == "false" ? false : nil } }
}

/// What a posted step does to the run.
enum NodeOutcome {
    /// The node is done: maybe a user signed in, maybe nodes (a choice's branch) come next.
    case advance(user: User?, then: [JourneyNode])
    /// The same node again (a push still pending, failed policies).
    case again(failedPolicies: [String])
    /// "Login failure".
    case fail
}

extension JourneyNode {
    /// This node's callbacks, with the run's failed policies where the node has them.
    func callbacks(failedPolicies: [String], run: JourneyRun) -> [EmulatorJSON] {
        let failed = EmulatorJSON.array(failedPolicies.map { .string($0) })
        switch self {
        case .usernamePassword(let usernamePrompt, let passwordPrompt):
            return [
                AMCallback.make("NameCallback", position: 0, output: [("prompt", .string(usernamePrompt))], input: [("", "")]),
                AMCallback.make("PasswordCallback", position: 1, output: [("prompt", .string(passwordPrompt))], input: [("", "")]),
            ]
        case .choice(let prompt, let choices, let defaultChoice):
            return [
                AMCallback.make(
                    "ChoiceCallback", position: 0,
                    output: [
                        ("prompt", .string(prompt)), ("choices", .array(choices.map { .string($0.text) })),
                        ("defaultChoice", .number(Double(defaultChoice))),
                    ],
                    input: [("", .number(Double(defaultChoice)))])
            ]
        case .oneTimeCode(let prompt, let callback):
            let output: [(String, EmulatorJSON)] =
                callback == "TextInputCallback" ? [("prompt", .string(prompt)), ("defaultText", "")] : [("prompt", .string(prompt))]
            return [AMCallback.make(callback, position: 0, output: output, input: [("", "")])]
        case .push(let message, let waitTime, _):
            // PingAM sends waitTime as text, in milliseconds.
            return [
                AMCallback.make(
                    "PollingWaitCallback", position: 0, output: [("waitTime", .string(String(waitTime))), ("message", .string(message))])
            ]
        case .notice(let messages, let prompt, let options, let defaultOption, _):
            return noticeCallbacks(messages, prompt: prompt, options: options, defaultOption: defaultOption)
        case .suspend(let message):
            return [
                AMCallback.make("SuspendedTextOutputCallback", position: 0, output: [("message", .string(message)), ("messageType", "0")])
            ]
        case .createPassword, .terms, .kba, .attribute:
            return profileCallbacks(failed: failed)
        case .deviceBinding, .deviceSigning, .oathRegistration, .oathVerifier:
            return deviceCallbacks(run: run)
        case .selectIdP, .socialHandler:
            return []  // the emulator shows these with its configuration (`socialCallbacks`)
        case .passwordCollector(let prompt):
            return [AMCallback.make("PasswordCallback", position: 0, output: [("prompt", .string(prompt))], input: [("", "")])]
        case .usernameCollector(let prompt):
            return [AMCallback.make("NameCallback", position: 0, output: [("prompt", .string(prompt))], input: [("", "")])]
        case .recoveryCode:
            return [AMCallback.make("NameCallback", position: 0, output: [("prompt", "Recovery Code")], input: [("", "")])]
        case .recoveryCodesDisplay:
            return [
                AMCallback.make(
                    "TextOutputCallback", position: 0,
                    output: [
                        ("message", .string(Self.recoveryCodesScript(run.recoveryCodes, deviceName: run.deviceName))), ("messageType", "4"),
                    ])
            ]
        case .webAuthnRegistration, .webAuthnAuthentication:
            return webAuthnCallbacks(run: run, credentials: run.credentials)
        }
    }

    /// The callbacks of the nodes that collect profile data: validated password, terms, KBA, attribute.
    private func profileCallbacks(failed: EmulatorJSON) -> [EmulatorJSON] {
        switch self {
        case .createPassword(let prompt, let minLength):
            let policies: EmulatorJSON = [
                "name": "password", "policyRequirements": ["VALID_TYPE", "MIN_LENGTH"], "fallbackPolicies": nil,
                "conditionalPolicies": nil,
                "policies": [
                    ["policyId": "valid-type", "policyRequirements": ["VALID_TYPE"], "params": ["types": ["string"]]],
                    [
                        "policyId": "minimum-length", "policyRequirements": ["MIN_LENGTH"],
                        "params": ["minLength": .number(Double(minLength))],
                    ],
                ],
            ]
            return [
                AMCallback.make(
                    "ValidatedCreatePasswordCallback", position: 0,
                    output: [
                        ("echoOn", false), ("policies", policies), ("failedPolicies", failed), ("validateOnly", false),
                        ("prompt", .string(prompt)),
                    ],
                    input: [("", ""), ("validateOnly", false)])
            ]
        case .terms(let version, let terms):
            return [
                AMCallback.make(
                    "TermsAndConditionsCallback", position: 0,
                    output: [("version", .string(version)), ("terms", .string(terms)), ("createDate", "2026-01-05T09:00:00.000Z")],
                    input: [("", false)])
            ]
        case .kba(let prompt, let questions):
            return [
                AMCallback.make(
                    "KbaCreateCallback", position: 0,
                    output: [
                        ("prompt", .string(prompt)), ("predefinedQuestions", .array(questions.map { .string($0) })),
                        ("allowUserDefinedQuestions", true),
                    ],
                    input: [("question", ""), ("answer", "")])
            ]
        case .attribute(let name, let prompt, let required):
            return [
                AMCallback.make(
                    "StringAttributeInputCallback", position: 0,
                    output: [
                        ("name", .string(name)), ("prompt", .string(prompt)), ("required", .bool(required)), ("policies", [:]),
                        ("failedPolicies", failed), ("validateOnly", false), ("value", ""),
                    ],
                    input: [("", ""), ("validateOnly", false)])
            ]
        default:
            return []
        }
    }

    private func noticeCallbacks(_ messages: [JourneyMessage], prompt: String, options: [String], defaultOption: Int) -> [EmulatorJSON] {
        // PingAM sends a TextOutputCallback's messageType as text.
        var callbacks = messages.enumerated().map { position, message in
            AMCallback.make(
                "TextOutputCallback", position: position,
                output: [("message", .string(message.message)), ("messageType", .string(String(message.messageType)))])
        }
        callbacks.append(
            AMCallback.make(
                "ConfirmationCallback", position: messages.count,
                output: [
                    ("prompt", .string(prompt)), ("messageType", 0), ("options", .array(options.map { .string($0) })), ("optionType", -1),
                    ("defaultOption", .number(Double(defaultOption))),
                ],
                input: [("", .number(Double(defaultOption)))]))
        return callbacks
    }

    /// What the answers posted for this node do. `now` is the emulator's clock (TOTP).
    func evaluate(_ inputs: [String: EmulatorJSON], run: JourneyRun, users: [User], now: Double, pushApproveAfterPolls: Int?) -> NodeOutcome
    {
        let first = inputs[AMCallback.inputName(0, "")]
        switch self {
        case .usernamePassword:
            let password = inputs[AMCallback.inputName(1, "")]?.stringValue
            guard let user = users.first(where: { $0.username == first?.stringValue && $0.password == password }) else { return .fail }
            return .advance(user: user, then: [])
        case .choice(_, let choices, _):
            guard let index = first?.indexValue, choices.indices.contains(index) else { return .fail }
            return .advance(user: nil, then: choices[index].nodes)
        case .oneTimeCode:
            guard let code = first?.stringValue, let secret = run.user?.totpSecret,
                OneTimeCode.verify(code, secret: secret, at: now)
            else { return .fail }
            return .advance(user: nil, then: [])
        case .push(_, _, let approveAfterPolls):
            if run.pushDecision == false { return .fail }
            let after = approveAfterPolls ?? pushApproveAfterPolls
            if run.pushDecision == true || after.map({ run.polls + 1 >= $0 }) == true { return .advance(user: nil, then: []) }
            return .again(failedPolicies: [])
        case .notice(let messages, _, _, _, let continueOption):
            return inputs[AMCallback.inputName(messages.count, "")]?.indexValue == continueOption ? .advance(user: nil, then: []) : .fail
        case .suspend:
            return .again(failedPolicies: [])
        case .createPassword(_, let minLength):
            let password = first?.stringValue ?? ""
            var failed: [String] = []
            if password.count < minLength {
                failed.append("{ \"params\": { \"minLength\": \(minLength) }, \"policyRequirement\": \"MIN_LENGTH\" }")
            }
            let validateOnly = inputs[AMCallback.inputName(0, "validateOnly")]?.truthValue ?? false
            return failed.isEmpty && !validateOnly ? .advance(user: nil, then: []) : .again(failedPolicies: failed)
        case .terms:
            return first?.truthValue == true ? .advance(user: nil, then: []) : .fail
        case .kba:
            let question = inputs[AMCallback.inputName(0, "question")]?.stringValue ?? ""
            let answer = inputs[AMCallback.inputName(0, "answer")]?.stringValue ?? ""
            return question.isEmpty || answer.isEmpty ? .fail : .advance(user: nil, then: [])
        case .attribute(_, _, let required):
            let value = first?.stringValue ?? ""
            let validateOnly = inputs[AMCallback.inputName(0, "validateOnly")]?.truthValue ?? false
            if required && value.isEmpty { return .again(failedPolicies: ["{ \"policyRequirement\": \"REQUIRED\" }"]) }
            return validateOnly ? .again(failedPolicies: []) : .advance(user: nil, then: [])
        case .usernameCollector:
            guard let user = users.first(where: { $0.username == first?.stringValue }) else { return .fail }
            return .advance(user: user, then: [])
        case .recoveryCodesDisplay:
            return .advance(user: nil, then: [])
        case .passwordCollector:
            guard let user = run.user, user.password == first?.stringValue else { return .fail }
            return .advance(user: nil, then: [])
        case .deviceBinding, .deviceSigning, .oathRegistration, .oathVerifier, .webAuthnRegistration, .webAuthnAuthentication,
            .recoveryCode, .selectIdP, .socialHandler:
            // The emulator evaluates these with its state (`evaluateDeviceNode`, `evaluateWebAuthnNode`, `evaluateSocialNode`).
            return .fail
        }
    }
}
