import PingAM
import PingBase
import PingHTTP

extension FuzzEntryPoints {
    /// AM's authenticate endpoint's answer (the first byte chooses 200, 401 or 400), and the same bytes
    /// as serverinfo, an answers file, a resume link and a redirect's `Location`. Invariants (a
    /// violation traps): a step holds at most `maximumCallbacks` callbacks; every prompt and message as
    /// shown carries no terminal-active character; a step answered is a JSON object that keeps its
    /// `authId`; a session token that passed its gate can go into a header and a cookie as it is.
    public static func journey(_ bytes: [UInt8]) {
        let status = [200, 200, 200, 401, 400][Int(bytes.first ?? 0) % 5]
        let response = HTTPResponse(status: status, headers: ["content-type": "application/json"], body: Array(bytes.dropFirst()))
        switch try? JourneyResponse.process(response) {
        case .step(let step)?:
            precondition(step.callbacks.count <= JourneyResponse.maximumCallbacks)
            var answers: [Int: [JSONValue]] = [:]
            for callback in step.callbacks {
                for text in shownTexts(callback.kind) {
                    precondition(!callback.displayPrompt(text, fallback: "x").unicodeScalars.contains(where: isTerminalActive))
                }
                answers[callback.position] = callback.values(.text("answer"))
                _ = callback.values(.questionAndAnswer("q", "a")) + callback.values(.clientError("Unsupported"))
            }
            _ = step.unsupported
            let body = JSONValue.parseObject(step.body(answers: answers))
            precondition(body?["authId"] == .string(step.authID))
        case .success(let done)?:
            precondition(isSafeHeaderValue(done.tokenID.value) && !done.tokenID.value.contains(";"))
        case nil: break
        }
        _ = try? AMServerInfo.process(response)
        let text = String(decoding: bytes, as: UTF8.self)
        if let answers = try? JourneyAnswersFile(bytes) { _ = answers.value(for: text) }
        _ = SuspendedID(text)
        _ = JourneyTree(text)
        _ = try? SessionAuthorization.process(
            HTTPResponse(status: 302, headers: ["location": text]), redirectURI: "http://127.0.0.1/callback", expectedState: "st",
            issuer: "https://issuer.example/am/oauth2/alpha", issParameterRequired: bytes.count % 2 == 0)
    }

    /// The server's texts a callback would show.
    private static func shownTexts(_ kind: JourneyCallback.Kind) -> [String] {
        switch kind {
        case .name(let prompt), .password(let prompt), .validatedUsername(let prompt, _), .validatedPassword(let prompt, _): [prompt]
        case .textInput(let prompt, let defaultText): [prompt, defaultText ?? ""]
        case .choice(let prompt, let choices, _): [prompt] + choices
        case .confirmation(let prompt, let options, _): [prompt] + options
        case .textOutput(let message, _), .suspendedTextOutput(let message, _), .pollingWait(let message, _),
            .deviceProfile(_, let message):
            [message]
        case .termsAndConditions(let terms, let version): [terms, version]
        case .kbaCreate(let prompt, let questions, _): [prompt] + questions
        case .stringAttribute(let input), .booleanAttribute(let input), .numberAttribute(let input):
            [input.prompt] + input.failedPolicies.map(\.explanation)
        case .deviceBinding(let request): [request.title, request.subtitle, request.description, request.username]
        case .deviceSigning(let request): [request.title, request.subtitle, request.description]
        case .selectIdP(let providers): providers.map(\.displayName)
        case .socialRedirect(.failure(let refusal)): [refusal.message]
        case .nativeIdP(let request): [request.provider]
        case .hiddenValue, .metadata, .socialRedirect, .unsupported, .unknown: []
        }
    }
}
