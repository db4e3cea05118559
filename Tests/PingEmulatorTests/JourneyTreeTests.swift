import Foundation
import Testing

@testable import PingEmulator

/// The built-in trees past the password (second factor, notice, suspended step, validated inputs) and
/// trees read from a file.
@Suite struct JourneyTreeTests {
    /// Signs in on `tree` and returns the step after the password.
    func afterPassword(_ am: AMDriver, _ tree: String) -> EmulatorJSON {
        am.answer(am.start(tree).json, ["IDToken1": "demo", "IDToken2": "demo"]).json
    }

    func secondFactor(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws -> (AMDriver, EmulatorJSON) {
        let am = try AMDriver(configure)
        let choice = afterPassword(am, "Second Factor")
        #expect(AMDriver.types(choice) == ["ChoiceCallback"])
        #expect(AMDriver.output(choice, 0, "choices") == ["One-time code", "Push notification"])
        #expect(AMDriver.output(choice, 0, "defaultChoice") == 0)
        return (am, choice)
    }

    @Test("totp-rfc6238: the one-time code is RFC 6238 TOTP (SHA-1, 6 digits, 30 s) on the emulator's clock")
    func oneTimeCode() throws {
        // RFC 6238 Appendix B: SHA-1 at 1111111109 is 07081804; six digits are 081804.
        #expect(OneTimeCode.totp(secret: AMDriver.rfcSecret, at: 1_111_111_109) == "081804")
        #expect(OneTimeCode.totp(secret: AMDriver.rfcSecret, at: 59) == "287082")
        #expect(OneTimeCode.totp(secret: AMDriver.rfcSecret, at: 1_234_567_890) == "005924")
        #expect(OneTimeCode.totp(secret: "not base32!", at: 59) == nil)
        let (am, choice) = try secondFactor { $0.users[0].totpSecret = AMDriver.rfcSecret }
        let prompt = am.answer(choice, ["IDToken1": 0]).json
        #expect(AMDriver.types(prompt) == ["PasswordCallback"])
        #expect(AMDriver.output(prompt, 0, "prompt") == "One-time code")
        let done = am.answer(prompt, ["IDToken1": "081804"])
        #expect(done.json["tokenId"] != nil)
    }

    @Test("totp-wrong-code: a wrong or stale one-time code is Login failure")
    func wrongCode() throws {
        let (am, choice) = try secondFactor { $0.users[0].totpSecret = AMDriver.rfcSecret }
        let prompt = am.answer(choice, ["IDToken1": "0"]).json
        #expect(am.answer(prompt, ["IDToken1": "081805"]).status == 401)
        // Two steps (60 s) later the code of 1111111109 no longer works.
        let (later, laterChoice) = try secondFactor { $0.users[0].totpSecret = AMDriver.rfcSecret }
        let laterPrompt = later.answer(laterChoice, ["IDToken1": 0]).json
        later.emulator.advanceClock(by: 60)
        #expect(later.answer(laterPrompt, ["IDToken1": "081804"]).json["message"] == "Login failure")
    }

    @Test("push-wait: a PollingWaitCallback until the push is approved through the emulator")
    func pushApproved() throws {
        let (am, choice) = try secondFactor()
        var wait = am.answer(choice, ["IDToken1": 1]).json
        #expect(AMDriver.types(wait) == ["PollingWaitCallback"])
        #expect(AMDriver.output(wait, 0, "waitTime") == "5000")
        #expect(AMDriver.output(wait, 0, "message") == "Waiting for your approval on your phone")
        wait = am.answer(wait, [:]).json
        #expect(AMDriver.types(wait) == ["PollingWaitCallback"])
        #expect(am.emulator.decidePush(username: "someone-else", approve: true) == 0)
        #expect(am.emulator.decidePush(username: "demo", approve: true) == 1)
        #expect(am.answer(wait, [:]).json["tokenId"] != nil)
    }

    @Test("push-denied: a denied push is Login failure")
    func pushDenied() throws {
        let (am, choice) = try secondFactor()
        let wait = am.answer(choice, ["IDToken1": 1]).json
        am.emulator.decidePush(approve: false)
        #expect(am.answer(wait, [:]).json["message"] == "Login failure")
    }

    @Test("push-after-polls: with approveAfterPolls the push completes on the Nth poll")
    func pushAfterPolls() throws {
        let (am, choice) = try secondFactor { $0.journeys.pushApproveAfterPolls = 2 }
        let first = am.answer(choice, ["IDToken1": 1]).json
        let second = am.answer(first, [:]).json
        #expect(AMDriver.types(second) == ["PollingWaitCallback"])
        #expect(am.answer(second, [:]).json["tokenId"] != nil)
    }

    @Test("notice: TextOutputCallbacks of each messageType, then a ConfirmationCallback; Cancel fails")
    func notice() throws {
        let am = try AMDriver()
        let step = afterPassword(am, "Notice")
        #expect(
            AMDriver.types(step) == [
                "TextOutputCallback", "TextOutputCallback", "TextOutputCallback", "TextOutputCallback", "ConfirmationCallback",
            ])
        #expect((0..<4).map { AMDriver.output(step, $0, "messageType") } == ["0", "1", "2", "4"])
        #expect(AMDriver.output(step, 4, "options") == ["Continue", "Cancel"])
        #expect(AMDriver.output(step, 4, "optionType") == -1)
        #expect(AMDriver.inputNames(step, 4) == ["IDToken5"])
        #expect(am.answer(step, ["IDToken5": 0]).json["tokenId"] != nil)
        let declined = afterPassword(am, "Notice")
        #expect(am.answer(declined, ["IDToken5": 1]).status == 401)
    }

    @Test("suspend-resume: a SuspendedTextOutputCallback, the id as the e-mail has it, resumed once with ?suspendedId=")
    func suspendAndResume() throws {
        let am = try AMDriver()
        let step = afterPassword(am, "Email Link")
        #expect(AMDriver.types(step) == ["SuspendedTextOutputCallback"])
        #expect(AMDriver.output(step, 0, "messageType") == "0")
        #expect(step["authId"] != nil)
        let record = try #require(am.emulator.suspendedJourneys.first)
        #expect(record.tree == "Email Link")
        #expect(record.username == "demo")
        #expect(record.resumeURL.hasSuffix("suspendedId=\(record.suspendedId)"))
        // Posting the step back does not go on: the journey waits for the link.
        #expect(AMDriver.types(am.answer(step, [:]).json) == ["SuspendedTextOutputCallback"])
        let resumed = am.send("POST", am.authenticatePath + "?suspendedId=\(record.suspendedId)", headers: AMDriver.journeyHeaders)
        #expect(resumed.json["tokenId"] != nil)
        let again = am.send("POST", am.authenticatePath + "?suspendedId=\(record.suspendedId)", headers: AMDriver.journeyHeaders)
        #expect(again.status == 401)
        #expect(again.json["message"]?.stringValue?.contains("SuspendedAuthSessionException") == true)
    }

    @Test("suspend-expired: a suspendedId past its lifetime is 401 naming SuspendedAuthSessionException, without detail")
    func suspendExpired() throws {
        let am = try AMDriver()
        _ = afterPassword(am, "Email Link")
        let record = try #require(am.emulator.suspendedJourneys.first)
        am.emulator.advanceClock(by: 301)
        let late = am.send("POST", am.authenticatePath + "?suspendedId=\(record.suspendedId)")
        #expect(late.status == 401)
        #expect(late.json["message"] == .string(Emulator.suspendedExpiredMessage))
        #expect(late.json["detail"] == nil)
    }

    @Test("validated-inputs: failed policies come back on the same step; terms, KBA and an attribute follow")
    func profileChecks() throws {
        let am = try AMDriver()
        let create = afterPassword(am, "Profile Checks")
        #expect(AMDriver.types(create) == ["ValidatedCreatePasswordCallback"])
        #expect(AMDriver.inputNames(create, 0) == ["IDToken1", "IDToken1validateOnly"])
        let short = am.answer(create, ["IDToken1": "short"]).json
        #expect(AMDriver.types(short) == ["ValidatedCreatePasswordCallback"])
        let failed = try #require(AMDriver.output(short, 0, "failedPolicies")?.arrayValue?.first?.stringValue)
        #expect(EmulatorJSON.parse(Data(failed.utf8))?["policyRequirement"] == "MIN_LENGTH")
        let terms = am.answer(short, ["IDToken1": "long enough"]).json
        #expect(AMDriver.types(terms) == ["TermsAndConditionsCallback"])
        let kba = am.answer(terms, ["IDToken1": true]).json
        #expect(AMDriver.types(kba) == ["KbaCreateCallback"])
        #expect(AMDriver.inputNames(kba, 0) == ["IDToken1question", "IDToken1answer"])
        let attribute = am.answer(kba, ["IDToken1question": "What is your favourite colour?", "IDToken1answer": "blue"]).json
        #expect(AMDriver.types(attribute) == ["StringAttributeInputCallback"])
        let empty = am.answer(attribute, ["IDToken1": ""]).json
        #expect(AMDriver.output(empty, 0, "failedPolicies")?.arrayValue?.count == 1)
        #expect(am.answer(empty, ["IDToken1": "demo@example.com"]).json["tokenId"] != nil)
    }

    @Test("terms-declined: terms not accepted is Login failure")
    func termsDeclined() throws {
        let am = try AMDriver()
        let create = afterPassword(am, "Profile Checks")
        let terms = am.answer(create, ["IDToken1": "long enough"]).json
        #expect(am.answer(terms, ["IDToken1": false]).status == 401)
    }

    @Test("tree-file: trees and TOTP secrets from a file; a TextInputCallback code; bad files are refused")
    func treeFile() throws {
        let text = """
            {"trees": [{"name": "Code Only", "nodes": [
                {"type": "UsernamePassword", "usernamePrompt": "Email"},
                {"type": "OneTimeCode", "callback": "TextInputCallback", "prompt": "Code from your app"}]}],
             "totpSecrets": {"demo": "\(AMDriver.rfcSecret)"}}
            """
        let file = try JourneyTreeFile.load(Data(text.utf8))
        let am = try AMDriver { $0.addJourneys(file) }
        let first = am.start("Code Only").json
        #expect(AMDriver.output(first, 0, "prompt") == "Email")
        let code = am.answer(first, ["IDToken1": "demo", "IDToken2": "demo"]).json
        #expect(AMDriver.types(code) == ["TextInputCallback"])
        #expect(AMDriver.output(code, 0, "defaultText") == "")
        #expect(am.answer(code, ["IDToken1": "081804"]).json["tokenId"] != nil)
        #expect(am.start("Login").status == 200)  // the built-in trees stay
        for bad in [
            #"{"trees": [{"name": "X", "nodes": [{"type": "Teleport"}]}]}"#,
            #"{"trees": [{"name": "X", "nodes": [{"type": "Choice", "choices": []}]}]}"#,
            #"{"trees": [{"name": "X", "nodes": [{"type": "OneTimeCode", "callback": "NameCallback"}]}]}"#,
            #"{"trees": [{"name": "X", "nodes": [{"type": "Notice", "options": ["OK"], "continueOption": 3}]}]}"#,
        ] {
            #expect(throws: DecodingError.self) { try JourneyTreeFile.load(Data(bad.utf8)) }
        }
    }
}
