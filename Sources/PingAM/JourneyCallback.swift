import PingBase

/// One callback of a journey step, as a typed value: what it shows, what it asks for, and its inputs
/// as received (`IDToken<n>`, compound ones suffixed: `IDToken1validateOnly`, `IDToken1clientError`).
/// A type pingcli does not know is kept as `.unknown`; one it knows but a terminal cannot do (a
/// browser's reCAPTCHA, a phone's attestation, WebAuthn) is `.unsupported`.
public struct JourneyCallback: Sendable, Equatable {
    public struct Input: Sendable, Equatable {
        public var name: String
        public var value: JSONValue
    }

    /// How a message is meant: `messageType` 0, 1, 2, and 4 (a script for a browser, never shown).
    public enum Severity: Sendable, Equatable {
        case information, warning, error, script
        package init(_ value: JSONValue?) {
            switch JourneyCallback.integer(value) {
            case 1: self = .warning
            case 2: self = .error
            case 4: self = .script
            default: self = .information
            }
        }
    }

    /// What the terminal cannot do.
    public enum Unsupported: Sendable, Equatable {
        case recaptcha, appIntegrity, webAuthn
        case other(String)

        public var name: String {
            switch self {
            case .recaptcha: "a reCAPTCHA"
            case .appIntegrity: "an app integrity check"
            case .webAuthn: "a security key or passkey (WebAuthn)"
            case .other(let type): "a step of type \(displaySafe(type, limit: 60))"
            }
        }
    }

    public enum Kind: Sendable, Equatable {
        case name(prompt: String)
        case password(prompt: String)
        case textInput(prompt: String, defaultText: String?)
        case choice(prompt: String, choices: [String], defaultChoice: Int?)
        /// `options` by index; the answer is an index (`optionType` -1: the options are the words given).
        case confirmation(prompt: String, options: [String], defaultOption: Int?)
        case textOutput(message: String, severity: Severity)
        case hiddenValue(id: String, value: String)
        case metadata(JSONValue)
        /// Post the step again after `waitTime` milliseconds (a push approval, an e-mailed link).
        case pollingWait(message: String, milliseconds: Int)
        case suspendedTextOutput(message: String, severity: Severity)
        case validatedUsername(prompt: String, failedPolicies: [PolicyFailure])
        case validatedPassword(prompt: String, failedPolicies: [PolicyFailure])
        case termsAndConditions(terms: String, version: String)
        case kbaCreate(prompt: String, questions: [String], allowUserDefined: Bool)
        case stringAttribute(AttributeInput)
        case booleanAttribute(AttributeInput)
        case numberAttribute(AttributeInput)
        /// A device profile for risk rules: pingcli sends a Linux one, never a location.
        case deviceProfile(metadata: Bool, message: String)
        /// A Device Binding node: make a key pair for the user and prove it.
        case deviceBinding(DeviceBindingRequest)
        /// A Device Signing Verifier node: sign its challenge with a bound key (`userID` empty: usernameless).
        case deviceSigning(DeviceSigningRequest)
        /// Social sign-in (`SocialCallbacks.swift`): a Select Identity Provider node's menu, a Social
        /// Provider Handler's browser redirect (or why it cannot be followed), its NATIVE form.
        case selectIdP([IdentityProviderChoice])
        case socialRedirect(Result<SocialRedirect, SocialRedirect.Refusal>)
        case nativeIdP(NativeIdPRequest)
        case unsupported(Unsupported)
        case unknown(String)
    }

    /// A `…AttributeInputCallback`: an attribute of the person's profile (`name`), its prompt, whether
    /// it is required, its current value and the policies a previous answer failed.
    public struct AttributeInput: Sendable, Equatable {
        public var attribute: String
        public var prompt: String
        public var required: Bool
        public var value: JSONValue
        public var failedPolicies: [PolicyFailure]
    }

    public let type: String
    /// Where it is in the step's `callbacks` (answers are given by position).
    public let position: Int
    public let kind: Kind
    public let inputs: [Input]
    /// What each option's answer carries when it is not the option's position: a ConfirmationCallback
    /// with a predefined `optionType` (`OK` is 3); nil otherwise.
    public let optionValues: [Int]?

    /// The hidden value WebAuthn nodes read their outcome from (`unsupported` takes their Unsupported exit).
    package static let webAuthnOutcomeID = "webAuthnOutcome"

    package init(_ element: JSONValue, position: Int) throws(JourneyError) {
        guard let object = element.objectValue, let type = object["type"]?.stringValue, !type.isEmpty, type.utf8.count <= 128 else {
            throw .malformed("callback \(position + 1) has no type")
        }
        let output = try Self.entries(object["output"], callback: position)
        let inputs = try Self.entries(object["input"], callback: position).map { Input(name: $0.name, value: $0.value) }
        guard inputs.allSatisfy({ !$0.name.isEmpty && $0.name.utf8.count <= 128 }) else { throw .malformed("an input has no name") }
        var outputs: [String: JSONValue] = [:]
        for entry in output where outputs[entry.name] == nil { outputs[entry.name] = entry.value }
        self.type = type
        self.position = position
        self.inputs = inputs
        self.kind = try Self.kind(type, outputs)
        self.optionValues = type == "ConfirmationCallback" ? Self.predefinedOptions(outputs)?.map(\.value) : nil
    }

    /// `output` or `input`: an array (or absent) of `{"name": …, "value": …}`, at most `maximumEntries`.
    private static func entries(_ value: JSONValue?, callback: Int) throws(JourneyError) -> [(name: String, value: JSONValue)] {
        guard let value else { return [] }
        guard let list = value.arrayValue, list.count <= JourneyResponse.maximumEntries else {
            throw .malformed("callback \(callback + 1) has an output or input that is not a short list")
        }
        var result: [(name: String, value: JSONValue)] = []
        for entry in list {
            guard let object = entry.objectValue, let name = object["name"]?.stringValue else {
                throw .malformed("callback \(callback + 1) has an entry without a name")
            }
            result.append((name, object["value"] ?? .null))
        }
        return result
    }

    /// An integer sent as a number or as a decimal string (AM sends `messageType` and `waitTime` as strings).
    package static func integer(_ value: JSONValue?) -> Int? {
        switch value {
        case .number(let number)? where number.rounded() == number && abs(number) < 1e12: Int(number)
        case .string(let text)? where !text.isEmpty && text.utf8.count <= 12:
            text.utf8.dropFirst(text.hasPrefix("-") ? 1 : 0).allSatisfy(\.isASCIIDigit) ? Int(text) : nil
        default: nil
        }
    }
}
