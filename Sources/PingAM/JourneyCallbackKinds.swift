import PingBase

/// Each callback type's outputs read into its `Kind`, as the SDKs read them (`reference/am-journeys.md`).
extension JourneyCallback {
    package static func kind(_ type: String, _ outputs: [String: JSONValue]) throws(JourneyError) -> Kind {
        func text(_ name: String) throws(JourneyError) -> String {
            switch outputs[name] {
            case nil, .null?: return ""
            case .string(let value)? where value.utf8.count <= JourneyResponse.maximumTextBytes: return value
            case .number(let value)?: return JSONValue.numberText(value)
            default: throw .malformed("the \(displaySafe(type, limit: 60)) output \(name) is not a short text")
            }
        }
        func texts(_ name: String) throws(JourneyError) -> [String] {
            guard let list = outputs[name]?.arrayValue else { return [] }
            guard list.count <= JourneyResponse.maximumEntries else {
                throw .malformed(
                    "the \(displaySafe(type, limit: 60)) output \(name) has more than \(JourneyResponse.maximumEntries) entries")
            }
            var result: [String] = []
            for element in list {
                guard let value = element.stringValue, value.utf8.count <= JourneyResponse.maximumTextBytes else {
                    throw .malformed("the \(displaySafe(type, limit: 60)) output \(name) holds something that is not a short text")
                }
                result.append(value)
            }
            return result
        }
        func index(_ name: String, below count: Int) -> Int? {
            integer(outputs[name]).flatMap { (0..<count).contains($0) ? $0 : nil }
        }
        switch type {
        case "NameCallback": return .name(prompt: try text("prompt"))
        case "PasswordCallback": return .password(prompt: try text("prompt"))
        case "TextInputCallback":
            let defaultText = try text("defaultText")
            return .textInput(prompt: try text("prompt"), defaultText: defaultText.isEmpty ? nil : defaultText)
        case "ChoiceCallback":
            let choices = try texts("choices")
            guard !choices.isEmpty else { throw .malformed("a ChoiceCallback has no choices") }
            return .choice(prompt: try text("prompt"), choices: choices, defaultChoice: index("defaultChoice", below: choices.count))
        case "ConfirmationCallback":
            if let predefined = predefinedOptions(outputs) {
                let defaultValue = integer(outputs["defaultOption"])
                return .confirmation(
                    prompt: try text("prompt"), options: predefined.map(\.text),
                    defaultOption: predefined.firstIndex { $0.value == defaultValue })
            }
            let options = try texts("options")
            guard !options.isEmpty else { throw .malformed("a ConfirmationCallback has no options") }
            return .confirmation(prompt: try text("prompt"), options: options, defaultOption: index("defaultOption", below: options.count))
        case "TextOutputCallback": return .textOutput(message: try text("message"), severity: Severity(outputs["messageType"]))
        case "SuspendedTextOutputCallback":
            return .suspendedTextOutput(message: try text("message"), severity: Severity(outputs["messageType"]))
        case "HiddenValueCallback": return .hiddenValue(id: try text("id"), value: try text("value"))
        case "MetadataCallback":
            // A WebAuthn node's options are read with the whole page (`WebAuthnStep.read`).
            return .metadata(outputs["data"] ?? .null)
        case "PollingWaitCallback":
            // A wait outside a second and ten minutes is brought inside it, not believed.
            let milliseconds = min(max(integer(outputs["waitTime"]) ?? 5000, 1000), 600_000)
            return .pollingWait(message: try text("message"), milliseconds: milliseconds)
        case "ValidatedCreateUsernameCallback":
            return .validatedUsername(prompt: try text("prompt"), failedPolicies: PolicyFailure.list(outputs["failedPolicies"]))
        case "ValidatedCreatePasswordCallback":
            return .validatedPassword(prompt: try text("prompt"), failedPolicies: PolicyFailure.list(outputs["failedPolicies"]))
        case "TermsAndConditionsCallback": return .termsAndConditions(terms: try text("terms"), version: try text("version"))
        case "KbaCreateCallback":
            return .kbaCreate(
                prompt: try text("prompt"), questions: try texts("predefinedQuestions"),
                allowUserDefined: outputs["allowUserDefinedQuestions"]?.boolValue ?? false)
        case "StringAttributeInputCallback", "BooleanAttributeInputCallback", "NumberAttributeInputCallback":
            let input = AttributeInput(
                attribute: try text("name"), prompt: try text("prompt"), required: outputs["required"]?.boolValue ?? false,
                value: outputs["value"] ?? .null, failedPolicies: PolicyFailure.list(outputs["failedPolicies"]))
            if type.hasPrefix("String") { return .stringAttribute(input) }
            return type.hasPrefix("Boolean") ? .booleanAttribute(input) : .numberAttribute(input)
        case "DeviceProfileCallback":
            return .deviceProfile(metadata: outputs["metadata"]?.boolValue ?? false, message: try text("message"))
        case "ReCaptchaCallback", "ReCaptchaEnterpriseCallback": return .unsupported(.recaptcha)
        case "AppIntegrityCallback": return .unsupported(.appIntegrity)
        case "SelectIdPCallback": return .selectIdP(try IdentityProviderChoice.list(outputs["providers"]))
        case "RedirectCallback":
            let (url, method) = (try text("redirectUrl"), try text("redirectMethod"))
            do { return .socialRedirect(.success(try SocialRedirect.check(url: url, method: method))) } catch {
                return .socialRedirect(.failure(error))
            }
        case "IdPCallback": return .nativeIdP(NativeIdPRequest(provider: try text("provider")))
        case "WebAuthnRegistrationCallback", "WebAuthnAuthenticationCallback": return .unsupported(.webAuthn)
        case "DeviceBindingCallback":
            return .deviceBinding(
                DeviceBindingRequest(
                    userID: try text("userId"), username: try text("username"),
                    authenticationType: DeviceAuthenticationType(rawValue: try text("authenticationType")),
                    challenge: try text("challenge"), title: try text("title"), subtitle: try text("subtitle"),
                    description: try text("description"), timeout: DeviceBindingRequest.timeout(outputs["timeout"])))
        case "DeviceSigningVerifierCallback":
            return .deviceSigning(
                DeviceSigningRequest(
                    userID: try text("userId"), challenge: try text("challenge"), title: try text("title"), subtitle: try text("subtitle"),
                    description: try text("description"), timeout: DeviceBindingRequest.timeout(outputs["timeout"])))
        default: return .unknown(type)
        }
    }

    /// A ConfirmationCallback with no `options` of its own and one of Java's predefined `optionType`s
    /// (`YES_NO_OPTION` 0, `YES_NO_CANCEL_OPTION` 1, `OK_CANCEL_OPTION` 2): its options, each with the value
    /// the answer carries (`YES` 0, `NO` 1, `CANCEL` 2, `OK` 3), as `javax.security.auth.callback` defines
    /// them; nil for a callback that lists its options (`optionType` -1, answered by position).
    package static func predefinedOptions(_ outputs: [String: JSONValue]) -> [(text: String, value: Int)]? {
        guard outputs["options"]?.arrayValue?.isEmpty ?? true else { return nil }
        switch integer(outputs["optionType"]) {
        case 0: return [("Yes", 0), ("No", 1)]
        case 1: return [("Yes", 0), ("No", 1), ("Cancel", 2)]
        case 2: return [("OK", 3), ("Cancel", 2)]
        default: return nil
        }
    }

    /// WebAuthn nodes without "return challenge as JavaScript" put their options in a MetadataCallback
    /// (`_type: WebAuthn`, or `relyingPartyId`/`challenge` in older AM versions).
    package static func isWebAuthn(_ data: JSONValue) -> Bool {
        guard let object = data.objectValue else { return false }
        if object["_type"]?.stringValue == "WebAuthn" { return true }
        return object["challenge"] != nil && (object["relyingPartyId"] != nil || object["_action"] != nil)
    }

    /// A display-safe one-line prompt: the server's text, or `fallback` when it sent none.
    public func displayPrompt(_ text: String, fallback: String) -> String {
        let shown = displaySafe(text.trimmingWhitespace, limit: 200)
        return shown.isEmpty ? fallback : shown
    }
}

/// A policy a proposed user name, password or attribute failed, as AM reports it: an object, or a
/// JSON text holding one (`{"policyRequirement": "LENGTH_BASED", "params": {"min-password-length": 8}}`).
public struct PolicyFailure: Sendable, Equatable {
    public var requirement: String
    public var params: [String: JSONValue]

    package static func list(_ value: JSONValue?) -> [PolicyFailure] {
        (value?.arrayValue ?? []).prefix(JourneyResponse.maximumEntries).compactMap { element in
            var object = element.objectValue
            if let text = element.stringValue, text.utf8.count <= 16 * 1024 { object = JSONValue.parseObject(Array(text.utf8)) }
            guard let object, let requirement = object["policyRequirement"]?.stringValue else { return nil }
            return PolicyFailure(requirement: requirement, params: object["params"]?.objectValue ?? [:])
        }
    }

    /// What the person must change, in words, with the numbers AM sent.
    public var explanation: String {
        func number(_ names: String...) -> String? {
            for name in names { if let value = params[name]?.numberValue { return JSONValue.numberText(value) } }
            return nil
        }
        switch requirement {
        case "LENGTH_BASED", "MIN_LENGTH":
            if let minimum = number("min-password-length", "minLength", "min") { return "it must be at least \(minimum) characters long" }
            return "it is too short"
        case "MAX_LENGTH": return number("maxLength", "max").map { "it must be at most \($0) characters long" } ?? "it is too long"
        case "AT_LEAST_X_CAPITAL_LETTERS": return "it needs at least \(number("numCaps") ?? "1") capital letter(s)"
        case "AT_LEAST_X_NUMBERS": return "it needs at least \(number("numNums") ?? "1") digit(s)"
        case "CHARACTER_SET": return "it needs characters from more kinds (capitals, small letters, digits, symbols)"
        case "UNIQUE", "VALID_USERNAME": return "that value is already taken"
        case "CANNOT_CONTAIN_OTHERS", "CANNOT_CONTAIN_DUPLICATES": return "it must not contain your other details"
        case "CANNOT_CONTAIN_CHARACTERS": return "it contains characters that are not allowed"
        case "REQUIRED": return "a value is required"
        case "VALID_EMAIL_ADDRESS_FORMAT": return "it must be an e-mail address"
        case "DICTIONARY": return "it is a common word or password"
        default: return "it fails the server's rule \(displaySafe(requirement, limit: 60))"
        }
    }
}

/// An answer to one callback, before it is placed into the callback's inputs.
public enum JourneyAnswer: Sendable, Equatable {
    case text(String)
    case index(Int)
    case bool(Bool)
    case number(Double)
    /// A KBA question and its answer.
    case questionAndAnswer(String, String)
    /// "The client cannot do this" (`Unsupported`, `Abort`…), where the tree can branch on it.
    case clientError(String)
    /// A device binding's answer: the JWS, this machine's name and its stable id (the signing verifier's:
    /// the JWS alone, `deviceName` and `deviceId` nil).
    case device(jws: String, deviceName: String?, deviceID: String?)
}

extension JourneyCallback {
    /// The callback's input values with `answer` in them, in input order: the main input takes the
    /// answer, a `…validateOnly` input false (submit, not merely validate), `…question`/`…answer` the
    /// KBA pair, `…clientError` the client's error; anything else keeps what the server sent.
    public func values(_ answer: JourneyAnswer) -> [JSONValue] {
        inputs.map { input in
            let name = input.name
            if name.hasSuffix("validateOnly") { return .bool(false) }
            if name.hasSuffix("clientError") {
                if case .clientError(let error) = answer { return .string(error) }
                return input.value
            }
            if case .device(let jws, let deviceName, let deviceID) = answer {
                if name.hasSuffix("jws") { return .string(jws) }
                if name.hasSuffix("deviceName"), let deviceName { return .string(deviceName) }
                if name.hasSuffix("deviceId"), let deviceID { return .string(deviceID) }
                return input.value
            }
            if case .questionAndAnswer(let question, let reply) = answer {
                if name.hasSuffix("question") { return .string(question) }
                if name.hasSuffix("answer") { return .string(reply) }
                return input.value
            }
            switch answer {
            case .text(let text): return .string(text)
            case .index(let index): return .number(Double(optionValues.map { index < $0.count ? $0[index] : index } ?? index))
            case .bool(let value): return .bool(value)
            case .number(let value): return .number(value)
            case .clientError, .questionAndAnswer, .device: return input.value
            }
        }
    }
}

/// What a `DeviceBindingCallback` asks (`reference/am-journeys.md`, "Device binding").
public struct DeviceBindingRequest: Sendable, Equatable {
    public var userID: String
    public var username: String
    /// nil: a type AM does not document (the step is answered `Unsupported`).
    package var authenticationType: DeviceAuthenticationType?
    public var challenge: String
    public var title: String
    public var subtitle: String
    public var description: String
    /// Seconds the JWS is good for (`exp` = now + timeout).
    public var timeout: Int

    /// `timeout` in seconds, within 1 s and an hour (AM's default: 60).
    package static func timeout(_ value: JSONValue?) -> Int { min(max(JourneyCallback.integer(value) ?? 60, 1), 3600) }
}

/// What a `DeviceSigningVerifierCallback` asks: `userID` empty when the tree does not know the person
/// yet (usernameless: the person picks one of the keys bound on this machine).
public struct DeviceSigningRequest: Sendable, Equatable {
    public var userID: String
    public var challenge: String
    public var title: String
    public var subtitle: String
    public var description: String
    public var timeout: Int
}
