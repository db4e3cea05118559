import EmulatorHTTP
import Foundation

/// A PingAM authentication tree ("journey"): a name and the nodes a person walks through, in order.
///
/// The node vocabulary is the emulator's, each node answering with the callbacks that the PingAM node of
/// the same purpose sends (https://docs.pingidentity.com/pingoneaic/am-authentication/authn-supported-callbacks.html).
/// Trees are built in (`JourneyTree.builtIn`) or read from a JSON file (`JourneyTreeFile`, README.md).
public struct JourneyTree: Sendable, Hashable, Decodable {
    public var name: String
    public var nodes: [JourneyNode]

    public init(name: String, nodes: [JourneyNode]) {
        self.name = name
        self.nodes = nodes
    }
}

/// One node of a tree. Not `indirect`: a choice holds its nodes in an array, which is indirection enough,
/// and an indirect case's box is referenced through a tagged pointer that LeakSanitizer cannot follow.
public enum JourneyNode: Sendable, Hashable, Decodable {
    /// A page with a `NameCallback` and a `PasswordCallback`, checked against the configured users.
    case usernamePassword(usernamePrompt: String, passwordPrompt: String)
    /// A `ChoiceCallback`; each choice continues with its own nodes.
    case choice(prompt: String, choices: [JourneyChoice], defaultChoice: Int)
    /// A one-time code (RFC 6238 TOTP, SHA-1, 6 digits, 30 s) checked against the user's `totpSecret`,
    /// asked with a `PasswordCallback` or a `TextInputCallback`.
    case oneTimeCode(prompt: String, callback: String)
    /// A push wait: a `PollingWaitCallback` until the push is approved (after `approveAfterPolls` polls,
    /// or `Emulator.decidePush`), or denied.
    case push(message: String, waitTime: Int, approveAfterPolls: Int?)
    /// `TextOutputCallback`s and a `ConfirmationCallback`: option `continueOption` goes on, any other fails.
    case notice(messages: [JourneyMessage], prompt: String, options: [String], defaultOption: Int, continueOption: Int)
    /// An Email Suspend Node: a `SuspendedTextOutputCallback`; the journey resumes with `?suspendedId=`.
    case suspend(message: String)
    /// A `ValidatedCreatePasswordCallback` with a minimum length; a shorter one comes back with failedPolicies.
    case createPassword(prompt: String, minLength: Int)
    /// A `TermsAndConditionsCallback` that must be accepted.
    case terms(version: String, terms: String)
    /// A `KbaCreateCallback`: a question (one of `questions`) and a non-empty answer.
    case kba(prompt: String, questions: [String])
    /// A `StringAttributeInputCallback` for the profile attribute `name`.
    case attribute(name: String, prompt: String, required: Bool)
    /// A Device Binding node: a `DeviceBindingCallback`; the JWS is verified against the public key in
    /// its header, and the key stored for the user by its `kid`.
    case deviceBinding(authenticationType: String, timeout: Int)
    /// A Device Signing Verifier node: a `DeviceSigningVerifierCallback` (usernameless when no one has
    /// signed in yet: the key's user signs in).
    case deviceSigning(timeout: Int)
    /// An OATH Registration node: a QR code's script, the `otpauth://` URI in a `HiddenValueCallback`
    /// (`mfaDeviceRegistration`) and a `ConfirmationCallback` "Next"; the new secret becomes the user's.
    case oathRegistration(issuer: String)
    /// An OATH Token Verifier node: a `NameCallback` "Enter verification code", checked against the secret
    /// the user registered (else the configured `totpSecret`).
    case oathVerifier(prompt: String)
    /// A Select Identity Provider node: a `SelectIdPCallback` of the configured social providers (those
    /// named, nil: all), ending with `localAuthentication` when `local` (its nodes) is set.
    case selectIdP(providers: [String]?, local: [JourneyNode]?)
    /// A Social Provider Handler node (`Emulator+Social.swift`): the chosen provider (nil: the only one).
    case socialHandler(provider: String?)
    /// A Password Collector node: a `PasswordCallback` checked against the run's user.
    case passwordCollector(prompt: String)
    /// A Username Collector node: a `NameCallback`; the named user (who must exist) is the run's user.
    case usernameCollector(prompt: String)
    /// A WebAuthn Registration node (`WebAuthnNodeSettings`): the credential verified and kept for the user.
    case webAuthnRegistration(WebAuthnNodeSettings)
    /// A WebAuthn Authentication node: an assertion of one of the user's credentials (or, usernameless,
    /// of any credential, its user signing in).
    case webAuthnAuthentication(WebAuthnNodeSettings)
    /// A Recovery Code Display node: the codes a WebAuthn Registration node generated, in its script.
    case recoveryCodesDisplay
    /// A Recovery Code Collector Decision node: one of the user's recovery codes (each used once).
    case recoveryCode

    private enum Key: String, CodingKey {
        case type, prompt, usernamePrompt, passwordPrompt, choices, defaultChoice, callback, message, waitTime
        case approveAfterPolls, messages, options, defaultOption, continueOption, minLength, version, terms
        case questions, name, required, authenticationType, timeout, issuer, settings, providers, local, provider
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        func text(_ key: Key, _ fallback: String) throws -> String { try c.decodeIfPresent(String.self, forKey: key) ?? fallback }
        let type = try c.decode(String.self, forKey: .type)
        switch type {
        case "UsernamePassword":
            self = .usernamePassword(
                usernamePrompt: try text(.usernamePrompt, "User Name"), passwordPrompt: try text(.passwordPrompt, "Password"))
        case "Choice":
            self = try Self.choice(c)
        case "OneTimeCode":
            let callback = try text(.callback, "PasswordCallback")
            guard callback == "PasswordCallback" || callback == "TextInputCallback" else {
                throw DecodingError.dataCorruptedError(
                    forKey: .callback, in: c, debugDescription: "callback must be PasswordCallback or TextInputCallback")
            }
            self = .oneTimeCode(prompt: try text(.prompt, "One-time code"), callback: callback)
        case "Push":
            self = .push(
                message: try text(.message, "Waiting for your approval on your phone"),
                waitTime: try c.decodeIfPresent(Int.self, forKey: .waitTime) ?? 5000,
                approveAfterPolls: try c.decodeIfPresent(Int.self, forKey: .approveAfterPolls))
        case "Notice":
            self = try Self.notice(c)
        case "Suspend":
            self = .suspend(
                message: try text(.message, "An email has been sent to the address you entered. Click the link in that email to proceed."))
        case "CreatePassword":
            self = .createPassword(
                prompt: try text(.prompt, "Password"), minLength: try c.decodeIfPresent(Int.self, forKey: .minLength) ?? 8)
        case "Terms":
            self = .terms(version: try text(.version, "1.0"), terms: try text(.terms, "Be nice."))
        case "KBA":
            self = .kba(
                prompt: try text(.prompt, "Security question"),
                questions: try c.decodeIfPresent([String].self, forKey: .questions) ?? ["What is your favourite colour?"])
        case "Attribute":
            self = .attribute(
                name: try c.decode(String.self, forKey: .name), prompt: try text(.prompt, "Value"),
                required: try c.decodeIfPresent(Bool.self, forKey: .required) ?? true)
        case "DeviceBinding":
            self = .deviceBinding(
                authenticationType: try text(.authenticationType, "NONE"), timeout: try c.decodeIfPresent(Int.self, forKey: .timeout) ?? 60)
        case "DeviceSigning":
            self = .deviceSigning(timeout: try c.decodeIfPresent(Int.self, forKey: .timeout) ?? 60)
        case "OathRegistration":
            self = .oathRegistration(issuer: try text(.issuer, "PingAM"))
        case "OathVerifier":
            self = .oathVerifier(prompt: try text(.prompt, "Enter verification code"))
        case "SelectIdP":
            self = .selectIdP(
                providers: try c.decodeIfPresent([String].self, forKey: .providers),
                local: try c.decodeIfPresent([JourneyNode].self, forKey: .local))
        case "SocialProviderHandler":
            self = .socialHandler(provider: try c.decodeIfPresent(String.self, forKey: .provider))
        default:
            self = try Self.webAuthnNode(type, c)
        }
    }

    /// The nodes of passkey trees: `UsernameCollector`, `WebAuthnRegistration`, `WebAuthnAuthentication`
    /// (their `settings`: `WebAuthnNodeSettings`), `RecoveryCode`.
    private static func webAuthnNode(_ type: String, _ c: KeyedDecodingContainer<Key>) throws -> JourneyNode {
        let settings = try c.decodeIfPresent(WebAuthnNodeSettings.self, forKey: .settings) ?? WebAuthnNodeSettings()
        switch type {
        case "UsernameCollector": return .usernameCollector(prompt: try c.decodeIfPresent(String.self, forKey: .prompt) ?? "User Name")
        case "WebAuthnRegistration": return .webAuthnRegistration(settings)
        case "WebAuthnAuthentication": return .webAuthnAuthentication(settings)
        case "RecoveryCode": return .recoveryCode
        default: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown node type \(type)")
        }
    }

    /// A `Choice` node: at least one choice, and a default among them.
    private static func choice(_ c: KeyedDecodingContainer<Key>) throws -> JourneyNode {
        let choices = try c.decode([JourneyChoice].self, forKey: .choices)
        let fallback = try c.decodeIfPresent(Int.self, forKey: .defaultChoice) ?? 0
        guard !choices.isEmpty, choices.indices.contains(fallback) else {
            throw DecodingError.dataCorruptedError(forKey: .choices, in: c, debugDescription: "needs choices and a default among them")
        }
        return .choice(
            prompt: try c.decodeIfPresent(String.self, forKey: .prompt) ?? "Choose one", choices: choices, defaultChoice: fallback)
    }

    /// A `Notice` node: its default and continuing options among its options.
    private static func notice(_ c: KeyedDecodingContainer<Key>) throws -> JourneyNode {
        let options = try c.decodeIfPresent([String].self, forKey: .options) ?? ["Continue", "Cancel"]
        let defaultOption = try c.decodeIfPresent(Int.self, forKey: .defaultOption) ?? 0
        let continueOption = try c.decodeIfPresent(Int.self, forKey: .continueOption) ?? 0
        guard options.indices.contains(defaultOption), options.indices.contains(continueOption) else {
            throw DecodingError.dataCorruptedError(forKey: .options, in: c, debugDescription: "option indexes out of range")
        }
        return .notice(
            messages: try c.decodeIfPresent([JourneyMessage].self, forKey: .messages) ?? [],
            prompt: try c.decodeIfPresent(String.self, forKey: .prompt) ?? "",
            options: options, defaultOption: defaultOption, continueOption: continueOption)
    }
}

/// One option of a `Choice` node and the nodes that follow it.
public struct JourneyChoice: Sendable, Hashable, Decodable {
    public var text: String
    public var nodes: [JourneyNode]

    public init(text: String, nodes: [JourneyNode]) {
        self.text = text
        self.nodes = nodes
    }
}

/// A `TextOutputCallback`'s text and its `messageType`: 0 information, 1 warning, 2 error, 4 a script
/// meant for a browser.
public struct JourneyMessage: Sendable, Hashable, Decodable {
    public var message: String
    public var messageType: Int

    public init(_ message: String, messageType: Int = 0) {
        self.message = message
        self.messageType = messageType
    }
}

/// The `--trees FILE` format: trees (added to the built-in ones; a tree of the same name replaces one) and
/// users' TOTP secrets (base32).
public struct JourneyTreeFile: Sendable, Decodable {
    public var trees: [JourneyTree]
    public var totpSecrets: [String: String]?

    public static func load(_ data: Data) throws -> JourneyTreeFile {
        try JSONDecoder().decode(JourneyTreeFile.self, from: data)
    }
}

extension JourneyTree {
    /// The demo user's TOTP secret (base32): `oathtool --totp -b JBSWY3DPEHPK3PXP`.
    public static let demoTOTPSecret = "JBSWY3DPEHPK3PXP"

    /// The trees every emulator knows: `Login`, `Second Factor`, `Notice`, `Email Link`, `Profile Checks`,
    /// and for device binding and OATH `Device Binding`, `Device Binding PIN`, `Device Verify`,
    /// `Device Sign In` (usernameless), `OATH Registration` and `OATH`; for social sign-in `Social` (the
    /// configured providers and local sign-in) and `Social Only`.
    public static let builtIn: [JourneyTree] =
        [
            JourneyTree(name: "Login", nodes: [.signIn]),
            JourneyTree(
                name: "Second Factor",
                nodes: [
                    .signIn,
                    .choice(
                        prompt: "Choose a second factor",
                        choices: [
                            JourneyChoice(
                                text: "One-time code", nodes: [.oneTimeCode(prompt: "One-time code", callback: "PasswordCallback")]),
                            JourneyChoice(
                                text: "Push notification",
                                nodes: [.push(message: "Waiting for your approval on your phone", waitTime: 5000, approveAfterPolls: nil)]),
                        ],
                        defaultChoice: 0),
                ]),
            JourneyTree(
                name: "Notice",
                nodes: [
                    .signIn,
                    .notice(
                        messages: [
                            JourneyMessage("Your password expires in 3 days."),
                            JourneyMessage("This device is not registered.", messageType: 1),
                            JourneyMessage("Two sign-in attempts failed since your last visit.", messageType: 2),
                            JourneyMessage("document.getElementById('loginButton_0').click();", messageType: 4),
                        ],
                        prompt: "", options: ["Continue", "Cancel"], defaultOption: 0, continueOption: 0),
                ]),
            JourneyTree(
                name: "Email Link",
                nodes: [
                    .signIn,
                    .suspend(message: "An email has been sent to the address you entered. Click the link in that email to proceed."),
                ]),
            JourneyTree(
                name: "Profile Checks",
                nodes: [
                    .signIn,
                    .createPassword(prompt: "New password", minLength: 8),
                    .terms(version: "2.1", terms: "Use this service lawfully."),
                    .kba(prompt: "Security question", questions: ["What is your favourite colour?", "What was your first pet's name?"]),
                    .attribute(name: "mail", prompt: "Email address", required: true),
                ]),
            JourneyTree(name: "Device Binding", nodes: [.signIn, .deviceBinding(authenticationType: "NONE", timeout: 60)]),
            JourneyTree(name: "Device Binding PIN", nodes: [.signIn, .deviceBinding(authenticationType: "APPLICATION_PIN", timeout: 60)]),
            JourneyTree(name: "Device Verify", nodes: [.signIn, .deviceSigning(timeout: 60)]),
            JourneyTree(name: "Device Sign In", nodes: [.deviceSigning(timeout: 60)]),
            JourneyTree(
                name: "OATH Registration",
                nodes: [.signIn, .oathRegistration(issuer: "PingAM"), .oathVerifier(prompt: "Enter verification code")]),
            JourneyTree(name: "OATH", nodes: [.signIn, .oathVerifier(prompt: "Enter verification code")]),
            JourneyTree(name: "Social", nodes: [.selectIdP(providers: nil, local: [.signIn])]),
            JourneyTree(name: "Social Only", nodes: [.selectIdP(providers: nil, local: nil)]),
        ] + passkeyTrees

    /// WebAuthn: `Passkey Registration` (metadata form, AM 8), `Passkey Registration Script` (the script
    /// form), `Passkey Registration 7.0` (the metadata shape before 7.1), `Passkey Registration Direct`
    /// (direct attestation), `Passkey Registration Recovery` (recovery codes), `Security Key Registration`
    /// (cross-platform), `Passkey Login` and `Passkey Login Script` (a Username Collector, then the
    /// credential; Client Error and Unsupported lead to the password), `Passkey Login Recovery`, and
    /// `Passkey Sign In` (usernameless: "Username from device").
    static let passkeyTrees: [JourneyTree] = [
        JourneyTree(name: "Passkey Registration", nodes: [.signIn, .webAuthnRegistration(WebAuthnNodeSettings(residentKey: true))]),
        JourneyTree(
            name: "Passkey Registration Script",
            nodes: [.signIn, .webAuthnRegistration(WebAuthnNodeSettings(script: true, residentKey: true))]),
        JourneyTree(
            name: "Passkey Registration 7.0",
            nodes: [.signIn, .webAuthnRegistration(WebAuthnNodeSettings(version: "7.0", residentKey: true))]),
        JourneyTree(
            name: "Passkey Registration Direct",
            nodes: [.signIn, .webAuthnRegistration(WebAuthnNodeSettings(attestation: "direct", residentKey: true))]),
        JourneyTree(
            name: "Passkey Registration Recovery",
            nodes: [.signIn, .webAuthnRegistration(WebAuthnNodeSettings(residentKey: true, recoveryCodes: true))]),
        JourneyTree(
            name: "Security Key Registration", nodes: [.signIn, .webAuthnRegistration(WebAuthnNodeSettings(attachment: "cross-platform"))]),
        JourneyTree(
            name: "Passkey Login",
            nodes: [
                .usernameCollector(prompt: "User Name"),
                .webAuthnAuthentication(WebAuthnNodeSettings(userVerification: "required", onError: [.passwordOnly])),
            ]),
        JourneyTree(
            name: "Passkey Login Script",
            nodes: [
                .usernameCollector(prompt: "User Name"),
                .webAuthnAuthentication(WebAuthnNodeSettings(script: true, userVerification: "required", onError: [.passwordOnly])),
            ]),
        JourneyTree(
            name: "Passkey Login Recovery",
            nodes: [.usernameCollector(prompt: "User Name"), .webAuthnAuthentication(WebAuthnNodeSettings(recoveryCodes: true))]),
        JourneyTree(
            name: "Passkey Sign In", nodes: [.webAuthnAuthentication(WebAuthnNodeSettings(userVerification: "required", residentKey: true))]
        ),
    ]
}

extension JourneyNode {
    static let signIn = JourneyNode.usernamePassword(usernamePrompt: "User Name", passwordPrompt: "Password")
    /// The password of the user already named (a Password Collector after a failed passkey).
    static let passwordOnly = JourneyNode.passwordCollector(prompt: "Password")
}
