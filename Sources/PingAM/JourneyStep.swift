import PingBase
import PingHTTP
import PingOAuth

/// One answer from AM's authenticate endpoint, through one gate: the next step of the journey, or the
/// session at its end ([reference: PingAM journeys over REST](../../../docs/ping-setup.md)). A step is
/// kept as received so that it can be sent back with only the `input[].value`s changed.
public enum JourneyResponse: Sendable, Equatable {
    case step(JourneyStep)
    /// No `authId` and a `tokenId`: the journey is over and the person has an SSO session.
    case success(JourneySuccess)

    /// The largest numbers of things a step may hold; a step beyond them is refused, not shortened.
    public static let maximumCallbacks = 64
    package static let maximumEntries = 64
    package static let maximumAuthIDBytes = 16 * 1024
    package static let maximumTextBytes = 64 * 1024

    /// The gate: a 200 with a JSON object holding `authId` and `callbacks`, or `tokenId` without
    /// `authId`; a 401 is one of AM's failures (`detail.errorCode` 110: the authentication session timed
    /// out; `SuspendedAuthSessionException`: a suspended journey's link expired).
    public static func process(_ response: HTTPResponse) throws(JourneyError) -> JourneyResponse {
        let object = response.jsonObject
        guard response.status == 200 else { throw JourneyError.failure(status: response.status, object, contentType: response.contentType) }
        guard let object else { throw .notJSON(contentType: response.contentType) }
        guard let authID = object["authId"] else {
            guard let text = object["tokenId"]?.stringValue else { throw .malformed("it has neither authId nor tokenId") }
            guard let token = try? SSOToken(checking: text) else { throw .malformed("its tokenId is not a session token") }
            return .success(
                JourneySuccess(
                    tokenID: token, successURL: object["successUrl"]?.stringValue, realm: object["realm"]?.stringValue))
        }
        guard let authID = authID.stringValue, !authID.isEmpty, authID.utf8.count <= maximumAuthIDBytes,
            authID.utf8.allSatisfy({ (0x21..<0x7F).contains($0) })
        else { throw .malformed("its authId is not a short printable value") }
        guard let list = object["callbacks"]?.arrayValue else { throw .malformed("it has an authId but no callbacks array") }
        guard list.count <= maximumCallbacks else { throw .malformed("it has more than \(maximumCallbacks) callbacks") }
        var callbacks: [JourneyCallback] = []
        for (position, element) in list.enumerated() {
            callbacks.append(try JourneyCallback(element, position: position))
        }
        func text(_ name: String) -> String? {
            guard let value = object[name]?.stringValue, value.utf8.count <= maximumTextBytes else { return nil }
            return value
        }
        return .step(
            JourneyStep(
                authID: authID, callbacks: callbacks, header: text("header"), description: text("description"),
                stage: text("stage"), webAuthn: try WebAuthnStep.read(callbacks), received: object))
    }
}

/// The end of a journey: the session, and what AM said about it.
public struct JourneySuccess: Sendable, Equatable {
    public var tokenID: SSOToken
    public var successURL: String?
    public var realm: String?
}

/// A step of a journey: its callbacks, and the object as received (sent back with the answers).
public struct JourneyStep: Sendable, Equatable {
    /// The authentication session's id (AM signs it): sent back with each answer, never shown.
    public let authID: String
    public let callbacks: [JourneyCallback]
    /// A page header and description a node may set (shown above the prompts).
    public let header: String?
    public let description: String?
    public let stage: String?
    /// A WebAuthn node's page, read through its gate (nil: the page is not one).
    public let webAuthn: WebAuthnStep?
    package let received: [String: JSONValue]

    /// The body of the next request: the step as received, every callback's `input[].value` replaced by
    /// `answers[position]` (values in input order; a callback without an answer keeps its values).
    public func body(answers: [Int: [JSONValue]]) -> [UInt8] {
        var object = received
        if case .array(let list)? = object["callbacks"] {
            object["callbacks"] = .array(
                list.enumerated().map { position, element in
                    guard let values = answers[position], case .object(var callback) = element,
                        case .array(var inputs)? = callback["input"]
                    else { return element }
                    for (index, value) in values.enumerated() where index < inputs.count {
                        guard case .object(var input) = inputs[index] else { continue }
                        input["value"] = value
                        inputs[index] = .object(input)
                    }
                    callback["input"] = .array(inputs)
                    return .object(callback)
                })
        }
        return Array(JSONValue.object(object).rendered(pretty: false).utf8)
    }

    /// The first thing of this step the terminal cannot do, and whether the tree can be told so
    /// (a `clientError` input, or WebAuthn's outcome) instead of giving up; nil when it can do it all.
    public var unsupported: (kind: JourneyCallback.Unsupported, canBranch: Bool)? {
        let webAuthnOutcome = callbacks.contains { callback in
            if case .hiddenValue(let id, _) = callback.kind { return id == JourneyCallback.webAuthnOutcomeID }
            return false
        }
        for callback in callbacks {
            switch callback.kind {
            case .unsupported(let kind):
                let branches = callback.inputs.contains { $0.name.hasSuffix("clientError") } || (kind == .webAuthn && webAuthnOutcome)
                return (kind, branches)
            case .unknown(let type) where !callback.inputs.isEmpty:
                return (.other(type), callback.inputs.contains { $0.name.hasSuffix("clientError") })
            default: continue
            }
        }
        return webAuthnOutcome && webAuthn == nil ? (.webAuthn, true) : nil
    }
}

/// Why an answer of the authenticate endpoint ended the journey.
public enum JourneyError: Error, Sendable, Equatable {
    /// 401 "Login failure" (or another message): an answer was refused; AM's message kept.
    case loginFailure(String)
    /// 401 with `detail.errorCode` "110": the authentication session (`authId`) timed out.
    case authSessionTimedOut
    /// 401 naming `SuspendedAuthSessionException`: the suspended journey's link has expired or was used.
    case suspendedExpired
    /// Another status with AM's error object (`code`, `reason`, `message`): a tree that does not exist…
    case serverError(status: Int, message: String?)
    case httpStatus(Int, contentType: String?)
    case notJSON(contentType: String?)
    /// A 200 that is not a step or a success; the reason, never the bytes.
    case malformed(String)

    package static func failure(status: Int, _ object: [String: JSONValue]?, contentType: String?) -> JourneyError {
        guard let object else { return .httpStatus(status, contentType: contentType) }
        let message = object["message"]?.stringValue
        let detail = object["detail"]?.objectValue
        let errorCode = detail?["errorCode"].flatMap { $0.stringValue ?? $0.numberValue.map { JSONValue.numberText($0) } }
        if status == 401 {
            if errorCode == "110" { return .authSessionTimedOut }
            if message?.containsText("SuspendedAuthSessionException") == true { return .suspendedExpired }
            return .loginFailure(message ?? "Login failure")
        }
        guard object["code"] != nil || message != nil else { return .httpStatus(status, contentType: contentType) }
        return .serverError(status: status, message: message)
    }

    public var message: String {
        switch self {
        case .loginFailure(let text): "AM refused the sign-in: \(displaySafe(text, limit: 200))"
        case .authSessionTimedOut:
            "the authentication session timed out at AM (errorCode 110): the journey took too long; run the login again and answer sooner"
        case .suspendedExpired:
            "the suspended journey can no longer be resumed (its link expired or was already used): start the journey again"
        case .serverError(let status, let text):
            "AM's authenticate endpoint answered HTTP \(status)\(text.map { ": " + displaySafe($0, limit: 200) } ?? "") (is the tree's name right?)"
        case .httpStatus(let status, let contentType): EndpointAnswer.status("AM's authenticate endpoint", status, contentType: contentType)
        case .notJSON(let contentType): EndpointAnswer.notJSON("AM's authenticate endpoint's answer", contentType: contentType)
        case .malformed(let reason): "AM's authenticate endpoint sent something that is not a journey step: \(reason)"
        }
    }

    public var rule: Rule {
        switch self {
        case .loginFailure: .journeyLoginFailure
        case .authSessionTimedOut: .journeyAuthSessionTimeout
        case .suspendedExpired: .journeySuspendedExpired
        case .serverError, .httpStatus, .notJSON: .journeyEndpointStatus
        case .malformed: .journeyMalformed
        }
    }
}

extension AMRealm {
    /// A request to the authenticate endpoint: the first (`body` nil: empty) or the answer to a step.
    public static func authenticateRequest(_ url: String, body: [UInt8]?) -> HTTPRequest {
        HTTPRequest(
            method: .post, url: url,
            headers: [
                ("Content-Type", "application/json"), ("Accept", "application/json"),
                ("Accept-API-Version", "resource=2.1, protocol=1.0"),
            ],
            body: body ?? [])
    }
}
