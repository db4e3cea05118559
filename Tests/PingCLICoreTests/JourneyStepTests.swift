import Testing

@testable import PingAM
@testable import PingBase
@testable import PingHTTP

/// The journey step gate: AM's step JSON (shapes from the reference and the SDKs' fixtures), each
/// callback as its typed value, answers put back into `input[].value`, the success and failure shapes.
@Suite("journeys: the step gate, callbacks, answers, failures")
struct JourneyStepTests {
    func response(_ body: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["content-type": "application/json;charset=UTF-8"], body: Array(body.utf8))
    }

    func step(_ callbacks: String...) throws -> JourneyStep {
        let body =
            "{\"authId\":\"eyJ0eXAi.eyJvdGsi.sig\",\"callbacks\":[\(callbacks.joined(separator: ","))],\"stage\":\"s1\",\"header\":\"Sign In\"}"
        guard case .step(let step) = try JourneyResponse.process(response(body)) else { throw JourneyError.malformed("not a step") }
        return step
    }

    func callback(_ type: String, output: String = "", input: String = "") -> String {
        "{\"type\":\"\(type)\",\"output\":[\(output)],\"input\":[\(input)]}"
    }

    func out(_ name: String, _ value: String) -> String { "{\"name\":\"\(name)\",\"value\":\(value)}" }

    /// Several members, in order, as one callback's output or input.
    func out(_ members: (name: String, value: String)...) -> String { members.map { out($0.name, $0.value) }.joined(separator: ",") }

    @Test("journey-step: the reference's user name and password step, answered as received")
    func nameAndPassword() throws {
        let step = try step(
            "{\"type\":\"NameCallback\",\"_id\":0,\"output\":[{\"name\":\"prompt\",\"value\":\"User Name\"}],\"input\":[{\"name\":\"IDToken1\",\"value\":\"\"}]}",
            "{\"type\":\"PasswordCallback\",\"_id\":1,\"output\":[{\"name\":\"prompt\",\"value\":\"Password\"}],\"input\":[{\"name\":\"IDToken2\",\"value\":\"\"}]}"
        )
        #expect(step.callbacks.map(\.kind) == [.name(prompt: "User Name"), .password(prompt: "Password")])
        #expect(step.header == "Sign In" && step.stage == "s1" && step.unsupported == nil)
        let body = step.body(answers: [0: step.callbacks[0].values(.text("demo")), 1: step.callbacks[1].values(.text("pa\"ss"))])
        let sent = try #require(JSONValue.parseObject(body))
        #expect(sent["authId"] == .string("eyJ0eXAi.eyJvdGsi.sig") && sent["stage"] == .string("s1"))
        let callbacks = try #require(sent["callbacks"]?.arrayValue)
        #expect(callbacks[0].objectValue?["_id"] == .number(0))
        #expect(callbacks[0].objectValue?["input"] == .array([.object(["name": .string("IDToken1"), "value": .string("demo")])]))
        #expect(callbacks[1].objectValue?["input"] == .array([.object(["name": .string("IDToken2"), "value": .string("pa\"ss")])]))
        #expect(callbacks[1].objectValue?["output"] == .array([.object(["name": .string("prompt"), "value": .string("Password")])]))
    }

    @Test("journey-callbacks: choices, confirmations, text input and text output read as the SDKs read them")
    func menusAndText() throws {
        let step = try step(
            callback(
                "ChoiceCallback",
                output: out(("prompt", "\"Second factor\""), ("choices", "[\"OTP\",\"Push\"]"), ("defaultChoice", "1")),
                input: out("IDToken1", "0")),
            callback(
                "ConfirmationCallback",
                output: out(
                    ("prompt", "\"\""), ("messageType", "0"), ("options", "[\"Yes\",\"No\"]"), ("optionType", "-1"),
                    ("defaultOption", "\"1\"")), input: out("IDToken2", "100")),
            callback(
                "TextInputCallback", output: out(("prompt", "\"Nickname\""), ("defaultText", "\"bob\"")),
                input: out("IDToken3", "\"\"")),
            callback("TextOutputCallback", output: out(("message", "\"Careful\""), ("messageType", "\"1\""))),
            callback("TextOutputCallback", output: out(("message", "\"window.location='x'\""), ("messageType", "\"4\""))),
            callback("TextOutputCallback", output: out(("message", "\"No\""), ("messageType", "2"))))
        #expect(step.callbacks[0].kind == .choice(prompt: "Second factor", choices: ["OTP", "Push"], defaultChoice: 1))
        #expect(step.callbacks[1].kind == .confirmation(prompt: "", options: ["Yes", "No"], defaultOption: 1))
        #expect(step.callbacks[2].kind == .textInput(prompt: "Nickname", defaultText: "bob"))
        #expect(step.callbacks[3].kind == .textOutput(message: "Careful", severity: .warning))
        #expect(step.callbacks[4].kind == .textOutput(message: "window.location='x'", severity: .script))
        #expect(step.callbacks[5].kind == .textOutput(message: "No", severity: .error))
        #expect(step.callbacks[0].values(.index(1)) == [.number(1)])
        let body = try #require(JSONValue.parseObject(step.body(answers: [1: step.callbacks[1].values(.index(0))])))
        let confirmation = body["callbacks"]?.arrayValue?[1].objectValue?["input"]?.arrayValue?[0].objectValue
        #expect(confirmation?["value"] == .number(0))
    }

    @Test("journey-callbacks: a confirmation with a predefined optionType and no options: OK/Cancel, Yes/No, answered with Java's values")
    func predefinedConfirmation() throws {
        let step = try step(
            callback(
                "ConfirmationCallback",
                output: out(
                    ("prompt", "\"Proceed?\""), ("messageType", "0"), ("options", "[]"), ("optionType", "2"), ("defaultOption", "3")),
                input: out("IDToken1", "100")),
            callback(
                "ConfirmationCallback", output: out(("optionType", "\"1\""), ("defaultOption", "1")),
                input: out("IDToken2", "0")),
            callback(
                "ConfirmationCallback", output: out(("options", "[\"Submit\",\"Cancel\"]"), ("optionType", "-1")),
                input: out("IDToken3", "0")))
        #expect(step.callbacks[0].kind == .confirmation(prompt: "Proceed?", options: ["OK", "Cancel"], defaultOption: 0))
        #expect(step.callbacks[0].values(.index(0)) == [.number(3)] && step.callbacks[0].values(.index(1)) == [.number(2)])
        #expect(step.callbacks[1].kind == .confirmation(prompt: "", options: ["Yes", "No", "Cancel"], defaultOption: 1))
        #expect(step.callbacks[1].values(.index(2)) == [.number(2)])
        #expect(step.callbacks[2].values(.index(1)) == [.number(1)], "listed options are answered by position")
    }

    @Test("journey-callbacks: polling waits, suspension, hidden values, metadata, terms, KBA, device profile")
    func waitsAndOthers() throws {
        let step = try step(
            callback("PollingWaitCallback", output: out(("waitTime", "\"8000\""), ("message", "\"Approve on your phone\""))),
            callback("SuspendedTextOutputCallback", output: out(("message", "\"Check your e-mail\""), ("messageType", "\"0\""))),
            callback(
                "HiddenValueCallback", output: out(("value", "\"v\""), ("id", "\"clientScriptOutputData\"")),
                input: out("IDToken3", "\"\"")),
            callback("MetadataCallback", output: out("data", "{\"stage\":\"x\"}")),
            callback(
                "TermsAndConditionsCallback",
                output: out(("version", "\"0.0\""), ("terms", "\"Be nice\""), ("createDate", "\"2019\"")),
                input: out("IDToken5", "false")),
            callback(
                "KbaCreateCallback",
                output: out(
                    ("prompt", "\"Select a security question\""), ("predefinedQuestions", "[\"Color?\"]"),
                    ("allowUserDefinedQuestions", "true")), input: out(("IDToken6question", "\"\""), ("IDToken6answer", "\"\""))
            ),
            callback(
                "DeviceProfileCallback", output: out(("metadata", "true"), ("location", "true"), ("message", "\"\"")),
                input: out("IDToken7", "\"\"")),
            callback("PollingWaitCallback", output: out(("waitTime", "99999999"), ("message", "\"\""))))
        #expect(step.callbacks[0].kind == .pollingWait(message: "Approve on your phone", milliseconds: 8000))
        #expect(step.callbacks[1].kind == .suspendedTextOutput(message: "Check your e-mail", severity: .information))
        #expect(step.callbacks[2].kind == .hiddenValue(id: "clientScriptOutputData", value: "v"))
        #expect(step.callbacks[3].kind == .metadata(.object(["stage": .string("x")])))
        #expect(step.callbacks[4].kind == .termsAndConditions(terms: "Be nice", version: "0.0"))
        #expect(step.callbacks[5].kind == .kbaCreate(prompt: "Select a security question", questions: ["Color?"], allowUserDefined: true))
        #expect(step.callbacks[6].kind == .deviceProfile(metadata: true, message: ""))
        #expect(step.callbacks[7].kind == .pollingWait(message: "", milliseconds: 600_000))
        #expect(step.callbacks[4].values(.bool(true)) == [.bool(true)])
        #expect(step.callbacks[5].values(.questionAndAnswer("Color?", "blue")) == [.string("Color?"), .string("blue")])
    }

    @Test("journey-callbacks: validated user name and password with failed policies explained; attribute inputs")
    func validated() throws {
        let failed =
            "[\"{ \\\"policyRequirement\\\": \\\"LENGTH_BASED\\\", \\\"params\\\": { \\\"max-password-length\\\": 0, \\\"min-password-length\\\": 8 } }\"]"
        let step = try step(
            callback(
                "ValidatedCreatePasswordCallback",
                output: out(
                    ("echoOn", "false"), ("policies", "{}"), ("failedPolicies", failed), ("validateOnly", "false"),
                    ("prompt", "\"Password\"")),
                input: out(("IDToken1", "\"\""), ("IDToken1validateOnly", "true"))),
            callback(
                "ValidatedCreateUsernameCallback",
                output: out(("failedPolicies", "[{\"policyRequirement\":\"UNIQUE\"}]"), ("prompt", "\"Username\"")),
                input: out(("IDToken2", "\"\""), ("IDToken2validateOnly", "false"))),
            callback(
                "StringAttributeInputCallback",
                output: out(("name", "\"mail\""), ("prompt", "\"Email Address\""), ("required", "true"), ("value", "\"\"")),
                input: out(("IDToken3", "\"\""), ("IDToken3validateOnly", "false"))),
            callback(
                "BooleanAttributeInputCallback",
                output: out(("name", "\"preferences/marketing\""), ("prompt", "\"Offers\""), ("value", "false")),
                input: out(("IDToken4", "false"), ("IDToken4validateOnly", "false"))),
            callback(
                "NumberAttributeInputCallback",
                output: out(("name", "\"age\""), ("prompt", "\"Age\""), ("value", "null")),
                input: out(("IDToken5", "null"), ("IDToken5validateOnly", "false"))))
        guard case .validatedPassword(let prompt, let policies) = step.callbacks[0].kind else { throw JourneyError.malformed("kind") }
        #expect(prompt == "Password" && policies.first?.explanation == "it must be at least 8 characters long")
        guard case .validatedUsername(_, let taken) = step.callbacks[1].kind else { throw JourneyError.malformed("kind") }
        #expect(taken.first?.explanation == "that value is already taken")
        #expect(step.callbacks[0].values(.text("s3cret")) == [.string("s3cret"), .bool(false)])
        guard case .stringAttribute(let mail) = step.callbacks[2].kind else { throw JourneyError.malformed("kind") }
        #expect(mail.attribute == "mail" && mail.required && mail.prompt == "Email Address")
        guard case .booleanAttribute = step.callbacks[3].kind, case .numberAttribute = step.callbacks[4].kind else {
            throw JourneyError.malformed("kind")
        }
        #expect(step.callbacks[4].values(.number(42)) == [.number(42), .bool(false)])
    }

    @Test("journey-unsupported: what a terminal cannot do is named; a clientError input or WebAuthn's outcome lets the tree branch")
    func unsupported() throws {
        let captcha = try step(callback("ReCaptchaCallback", output: out("recaptchaSiteKey", "\"k\""), input: out("IDToken1", "\"\"")))
        #expect(captcha.callbacks[0].kind == .unsupported(.recaptcha))
        #expect(captcha.unsupported?.kind == .recaptcha && captcha.unsupported?.canBranch == false)
        let binding = try step(
            callback(
                "DeviceBindingCallback", output: out(("userId", "\"u\""), ("challenge", "\"c\"")),
                input: out(("IDToken1jws", "\"\""), ("IDToken1clientError", "\"\""))))
        #expect(binding.unsupported == nil, "a device binding step is one pingcli answers")
        guard case .deviceBinding(let request) = binding.callbacks[0].kind else { throw JourneyError.malformed("not device binding") }
        #expect(request.userID == "u" && request.challenge == "c" && request.timeout == 60 && request.authenticationType == nil)
        #expect(binding.callbacks[0].values(.clientError("Unsupported")) == [.string(""), .string("Unsupported")])
        #expect(binding.callbacks[0].values(.device(jws: "j", deviceName: "n", deviceID: "i")) == [.string("j"), .string("")])
        let webAuthn = try step(
            callback("TextOutputCallback", output: out(("message", "\"navigator.credentials.get()\""), ("messageType", "\"4\""))),
            callback(
                "HiddenValueCallback", output: out(("value", "\"false\""), ("id", "\"webAuthnOutcome\"")),
                input: out("IDToken2", "\"\"")))
        #expect(webAuthn.unsupported?.kind == .webAuthn && webAuthn.unsupported?.canBranch == true)
        // WebAuthn options without the outcome to answer in are not a step (the WebAuthn gate refuses them).
        #expect(throws: JourneyError.self) {
            try step(callback("MetadataCallback", output: out("data", "{\"_type\":\"WebAuthn\",\"challenge\":\"x\"}")))
        }
        // Social sign-in is answered (SocialCallbackTests); its NATIVE form is refused by the prompter, not here.
        #expect(try step(callback("IdPCallback", output: out("provider", "\"google\""))).unsupported == nil)
        let unknown = try step(callback("FancyNewCallback", output: out("x", "1"), input: out("IDToken1", "\"\"")))
        #expect(unknown.callbacks[0].kind == .unknown("FancyNewCallback") && unknown.unsupported?.kind == .other("FancyNewCallback"))
        #expect(try step(callback("FancyOutputOnly", output: out("x", "1"))).unsupported == nil)
    }

    @Test("journey-success: no authId and a tokenId is the session; the token passes its gate")
    func success() throws {
        let answer = try JourneyResponse.process(
            response("{\"tokenId\":\"AQIC5w.*AAJTSQ.*\",\"successUrl\":\"/am/console\",\"realm\":\"/alpha\"}"))
        guard case .success(let done) = answer else { throw JourneyError.malformed("not a success") }
        #expect(done.tokenID.value == "AQIC5w.*AAJTSQ.*" && done.realm == "/alpha" && done.successURL == "/am/console")
        #expect(throws: JourneyError.malformed("its tokenId is not a session token")) {
            try JourneyResponse.process(response("{\"tokenId\":\"a b;c\"}"))
        }
        #expect(throws: JourneyError.malformed("it has neither authId nor tokenId")) { try JourneyResponse.process(response("{}")) }
    }

    @Test("journey-login-failure, journey-auth-session-timeout, journey-suspended-expired: AM's 401 shapes")
    func failures() {
        #expect(throws: JourneyError.loginFailure("Login failure")) {
            try JourneyResponse.process(
                response(
                    "{\"code\":401,\"reason\":\"Unauthorized\",\"message\":\"Login failure\",\"detail\":{\"failureUrl\":\"\"}}", status: 401
                ))
        }
        #expect(throws: JourneyError.authSessionTimedOut) {
            try JourneyResponse.process(
                response(
                    "{\"code\":401,\"reason\":\"Unauthorized\",\"message\":\"Session has timed out\",\"detail\":{\"errorCode\":\"110\"}}",
                    status: 401))
        }
        #expect(throws: JourneyError.authSessionTimedOut) {
            try JourneyResponse.process(response("{\"code\":401,\"message\":\"x\",\"detail\":{\"errorCode\":110}}", status: 401))
        }
        #expect(throws: JourneyError.suspendedExpired) {
            try JourneyResponse.process(
                response(
                    "{\"code\":401,\"reason\":\"Unauthorized\",\"message\":\"org.forgerock.openam.auth.nodes.SuspendedAuthSessionException\"}",
                    status: 401))
        }
        #expect(throws: JourneyError.serverError(status: 400, message: "No configuration found")) {
            try JourneyResponse.process(
                response("{\"code\":400,\"reason\":\"Bad Request\",\"message\":\"No configuration found\"}", status: 400))
        }
        #expect(throws: JourneyError.httpStatus(502, contentType: "text/html")) {
            try JourneyResponse.process(HTTPResponse(status: 502, headers: ["content-type": "text/html"], body: Array("<html>".utf8)))
        }
        #expect(
            JourneyError.authSessionTimedOut.message.contains("110")
                && JourneyError.authSessionTimedOut.rule == .journeyAuthSessionTimeout)
    }

    @Test("journey-malformed: hostile steps are refused by rule: sizes, counts, types, a bad authId")
    func malformed() throws {
        let many = Array(repeating: callback("NameCallback", output: out("prompt", "\"x\""), input: out("IDToken1", "\"\"")), count: 65)
        #expect(throws: JourneyError.malformed("it has more than 64 callbacks")) { try self.step(many.joined(separator: ",")) }
        let manyOutputs = Array(repeating: out("prompt", "\"x\""), count: 65).joined(separator: ",")
        #expect(throws: JourneyError.self) { try self.step(callback("NameCallback", output: manyOutputs)) }
        #expect(throws: JourneyError.malformed("callback 1 has no type")) { try self.step("{\"output\":[]}") }
        #expect(throws: JourneyError.malformed("callback 1 has no type")) { try self.step("7") }
        #expect(throws: JourneyError.self) { try self.step(callback("ChoiceCallback", output: out("choices", "[]"))) }
        #expect(throws: JourneyError.self) { try self.step(callback("ChoiceCallback", output: out("choices", "[1,2]"))) }
        #expect(throws: JourneyError.self) { try self.step(callback("NameCallback", output: out("prompt", "{\"a\":1}"))) }
        #expect(throws: JourneyError.malformed("it has an authId but no callbacks array")) {
            try JourneyResponse.process(response("{\"authId\":\"a\"}"))
        }
        #expect(throws: JourneyError.malformed("its authId is not a short printable value")) {
            try JourneyResponse.process(response("{\"authId\":\"a b\",\"callbacks\":[]}"))
        }
        #expect(throws: JourneyError.notJSON(contentType: "text/plain")) {
            try JourneyResponse.process(HTTPResponse(status: 200, headers: ["content-type": "text/plain"], body: Array("{}".utf8)))
        }
    }

    @Test("journey-display-safe: prompts and messages with terminal escapes are shown inert, on one line")
    func displaySafePrompts() throws {
        let step = try step(
            callback(
                "NameCallback", output: out("prompt", "\"User\\u001b]52;c;ZXZpbA==\\u0007\\nName\\u202e\""), input: out("IDToken1", "\"\""))
        )
        guard case .name(let prompt) = step.callbacks[0].kind else { throw JourneyError.malformed("kind") }
        let shown = step.callbacks[0].displayPrompt(prompt, fallback: "User name")
        #expect(!shown.unicodeScalars.contains { isTerminalActive($0) } && shown.hasPrefix("User"))
        #expect(step.callbacks[0].displayPrompt("   ", fallback: "User name") == "User name")
    }
}
