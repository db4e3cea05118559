import PingBase
import PingCrypto
import PingWebAuthn

/// A WebAuthn Registration or Authentication node's page, through one gate (`reference/am-webauthn.md`
/// §1–2): the metadata form (a `MetadataCallback` with `_type` WebAuthn and `_action`, or before AM 7.1
/// `relyingPartyId` with or without `pubKeyCredParams`) or the script form (a `TextOutputCallback` of
/// `messageType` 4 whose script writes the options inline), and the `webAuthnOutcome` hidden value the
/// answer goes into. Every field is checked and bounded; a page that is neither is not a WebAuthn step.
public struct WebAuthnStep: Sendable, Equatable {
    public enum Form: String, Sendable { case metadata, script }

    public struct Registration: Sendable, Equatable {
        public var relyingPartyName: String
        /// AM's `userId` text: its ASCII bytes are the WebAuthn `user.id` (and later the user handle).
        public var userID: String
        public var userName: String
        public var displayName: String
        /// The step's `pubKeyCredParams` pingcli knows, in its order; `offered` counts them all.
        public var algorithms: [COSEAlgorithm]
        public var offered: Int
        /// `none`, `indirect`, `direct` or `enterprise`.
        public var attestation: String
        public var attachment: AuthenticatorAttachment?
        public var residentKey: Bool
        public var excludeCredentials: [[UInt8]]
    }

    public enum Ceremony: Sendable, Equatable {
        case registration(Registration)
        /// `allowCredentials` (empty: usernameless).
        case authentication(allowCredentials: [[UInt8]])
    }

    public let form: Form
    public let ceremony: Ceremony
    public let challenge: [UInt8]
    /// The node's relying party id; nil when none is configured (the origin's host is used).
    public let rpID: String?
    public let userVerification: UserVerification
    /// Milliseconds (AM's default 60000), within a second and ten minutes.
    public let timeout: Int
    public let supportsJSONResponse: Bool
    /// The page's `ConfirmationCallback` ("use a recovery code"), when recovery codes are allowed.
    public let recoveryCodePosition: Int?
    /// Where the `webAuthnOutcome` hidden value is.
    public let outcomePosition: Int

    package static let maximumChallenge = 1024
    package static let maximumCredentials = 64

    /// The WebAuthn step of `callbacks`, nil when they hold none; a page that has the outcome and the
    /// options but fails a check is refused (`malformed`).
    package static func read(_ callbacks: [JourneyCallback]) throws(JourneyError) -> WebAuthnStep? {
        let outcome = callbacks.first { callback in
            if case .hiddenValue(let id, _) = callback.kind { return id == JourneyCallback.webAuthnOutcomeID }
            return false
        }
        var metadata: [String: JSONValue]? = nil
        var script: String? = nil
        for callback in callbacks {
            switch callback.kind {
            case .metadata(let data) where metadata == nil && JourneyCallback.isWebAuthn(data): metadata = data.objectValue
            case .textOutput(let message, .script) where script == nil && isWebAuthnScript(message): script = message
            default: continue
            }
        }
        guard metadata != nil || script != nil else { return nil }
        guard let outcome else { throw .malformed("a WebAuthn step has no webAuthnOutcome hidden value to answer in") }
        let confirmation = callbacks.first { if case .confirmation = $0.kind { return true } else { return false } }
        let parts: Parts
        if let metadata { parts = try Parts(metadata: metadata) } else { parts = try Parts(script: script ?? "") }
        // An authentication page that allows recovery codes carries one ConfirmationCallback (§6).
        var recovery: Int? = nil
        if case .authentication = parts.ceremony { recovery = confirmation?.position }
        return WebAuthnStep(
            form: metadata != nil ? .metadata : .script, ceremony: parts.ceremony, challenge: parts.challenge, rpID: parts.rpID,
            userVerification: parts.userVerification, timeout: parts.timeout, supportsJSONResponse: parts.json,
            recoveryCodePosition: recovery, outcomePosition: outcome.position)
    }

    /// AM's script for a browser: it answers `webAuthnOutcome` and calls `navigator.credentials`.
    static func isWebAuthnScript(_ text: String) -> Bool {
        text.containsText("webAuthnOutcome")
            && (text.containsText("navigator.credentials.create") || text.containsText("navigator.credentials.get"))
    }

    /// What both forms are read into.
    struct Parts {
        var ceremony: Ceremony = .authentication(allowCredentials: [])
        var challenge: [UInt8] = []
        var rpID: String?
        var userVerification = UserVerification.preferred
        var timeout = 60000
        var json = false

        static func fail(_ what: String) -> JourneyError { .malformed("the WebAuthn step's \(what)") }

        /// A relying party id as sent: a host name (lower-cased), or nil when empty.
        static func rpID(_ text: String?) throws(JourneyError) -> String? {
            guard let text, !text.isEmpty else { return nil }
            guard let host = RelyingPartyRule.hostName(text) else { throw fail("relying party id is not a host name") }
            return host
        }

        static func userVerification(_ text: String?) -> UserVerification {
            text.flatMap(UserVerification.init(rawValue:)) ?? .preferred
        }

        static func timeout(_ milliseconds: Int?) -> Int { min(max(milliseconds ?? 60000, 1000), 600_000) }

        static func challenge(_ bytes: [UInt8]?) throws(JourneyError) -> [UInt8] {
            guard let bytes, (16...WebAuthnStep.maximumChallenge).contains(bytes.count) else {
                throw fail("challenge is not 16 to \(WebAuthnStep.maximumChallenge) bytes")
            }
            return bytes
        }

        static func algorithms(_ numbers: [Int]) -> [COSEAlgorithm] {
            var seen: [COSEAlgorithm] = []
            for number in numbers {
                if let known = COSEAlgorithm(rawValue: Int64(number)), !seen.contains(known) { seen.append(known) }
            }
            return seen
        }

        static func text(_ value: String?, _ name: String, limit: Int = 1024) throws(JourneyError) -> String {
            guard let value else { return "" }
            guard value.utf8.count <= limit else { throw fail("\(name) is longer than \(limit) bytes") }
            return value
        }
    }
}
