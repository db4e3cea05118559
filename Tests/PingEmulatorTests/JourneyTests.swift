import Foundation
import Testing

@testable import PingEmulator

/// PingAM's authenticate endpoint: each built-in tree, each callback's shape, the documented failures.
@Suite struct JourneyTests {
    @Test("journey-start: an empty POST starts the tree with a NameCallback and a PasswordCallback")
    func startShape() throws {
        let am = try AMDriver()
        let step = am.start("Login")
        #expect(step.status == 200)
        #expect(AMDriver.types(step.json) == ["NameCallback", "PasswordCallback"])
        #expect(AMDriver.output(step.json, 0, "prompt") == "User Name")
        #expect(AMDriver.inputNames(step.json, 0) == ["IDToken1"])
        #expect(AMDriver.inputNames(step.json, 1) == ["IDToken2"])
        let authID = try #require(step.json["authId"]?.stringValue)
        #expect(authID.split(separator: ".").count == 3)
        let recorded = try #require(am.emulator.requests(to: .authenticate).first)
        #expect(recorded.query["authIndexValue"] == "Login")
        #expect(recorded.headers["accept-api-version"] == "resource=2.1, protocol=1.0")
    }

    @Test("journey-success: the last answer gives tokenId, successUrl and realm, and no authId")
    func success() throws {
        let am = try AMDriver()
        let done = am.answer(am.start("Login").json, ["IDToken1": "demo", "IDToken2": "demo"])
        #expect(done.status == 200)
        #expect(done.json["authId"] == nil)
        let token = try #require(done.json["tokenId"]?.stringValue)
        #expect(done.json["realm"] == "/alpha")
        #expect(done.json["successUrl"] == "/enduser/?realm=/alpha")
        #expect(done.header("set-cookie")?.hasPrefix("iPlanetDirectoryPro=\(token);") == true)
        #expect(am.emulator.journeySessions.map(\.tokenId) == [token])
        // What arrived is on record: the step posted back, with the answers.
        #expect(am.emulator.requests(to: .authenticate).last?.jsonBody?.contains("\"IDToken1\"") == true)
    }

    @Test("journey-login-failure: a wrong password is 401 Login failure with an empty failureUrl")
    func wrongPassword() throws {
        let am = try AMDriver()
        let failed = am.answer(am.start("Login").json, ["IDToken1": "demo", "IDToken2": "wrong"])
        #expect(failed.status == 401)
        #expect(failed.json == ["code": 401, "reason": "Unauthorized", "message": "Login failure", "detail": ["failureUrl": ""]])
        #expect(am.emulator.journeySessions.isEmpty)
    }

    @Test("journey-unknown-tree: a tree the realm does not have, or another authIndexType, is refused")
    func unknownTree() throws {
        let am = try AMDriver()
        #expect(am.start("Nope").status == 400)
        #expect(am.start("Nope").json["message"] == "No configuration found")
        let composite = am.send("POST", am.authenticatePath + "?authIndexType=composite_advice&authIndexValue=Login")
        #expect(composite.status == 400)
    }

    @Test("journey-api-version: resource 2.0 and 2.1 are accepted, another is refused")
    func apiVersion() throws {
        let am = try AMDriver()
        let path = am.authenticatePath + "?authIndexType=service&authIndexValue=Login"
        #expect(am.send("POST", path, headers: [("Accept-API-Version", "resource=2.0, protocol=1.0")]).status == 200)
        #expect(am.send("POST", path).status == 200)
        let refused = am.send("POST", path, headers: [("Accept-API-Version", "resource=9.9, protocol=1.0")])
        #expect(refused.status == 404)
        #expect(am.send("GET", path).status == 405)
    }

    @Test("journey-tree-name-encoded: a tree name with a space arrives percent-encoded")
    func encodedTreeName() throws {
        let am = try AMDriver()
        let step = am.send("POST", am.authenticatePath + "?authIndexType=service&authIndexValue=Second%20Factor")
        #expect(step.status == 200)
        #expect(AMDriver.types(step.json) == ["NameCallback", "PasswordCallback"])
    }

    @Test("journey-authid-expired: an authId past the authentication session's end is 401 errorCode 110")
    func expiredAuthID() throws {
        let am = try AMDriver()
        let step = am.start("Login").json
        am.emulator.advanceClock(by: 301)
        let late = am.answer(step, ["IDToken1": "demo", "IDToken2": "demo"])
        #expect(late.status == 401)
        #expect(late.json["detail"]?["errorCode"] == "110")
        #expect(late.json["code"] == 401)
    }

    @Test("journey-authid-single-use: an authId already answered is 401 errorCode 110")
    func replayedAuthID() throws {
        let am = try AMDriver()
        let step = am.start("Second Factor").json
        let next = am.answer(step, ["IDToken1": "demo", "IDToken2": "demo"])
        #expect(AMDriver.types(next.json) == ["ChoiceCallback"])
        let replay = am.answer(step, ["IDToken1": "demo", "IDToken2": "demo"])
        #expect(replay.status == 401)
        #expect(replay.json["detail"]?["errorCode"] == "110")
    }

    @Test("journey-authid-signature: an authId altered by the client is refused")
    func tamperedAuthID() throws {
        let am = try AMDriver()
        let step = am.start("Login").json
        guard case .object(var object) = step, let authID = step["authId"]?.stringValue else {
            Issue.record("no authId")
            return
        }
        let parts = authID.split(separator: ".").map(String.init)
        let claims = try #require(Base64URL.decode(parts[1]).flatMap { EmulatorJSON.parse(Data($0)) })
        guard case .object(var fields) = claims else { return }
        fields["exp"] = .number(AMDriver.startTime + 86400)
        object["authId"] = .string(parts[0] + "." + Base64URL.encode(Array(EmulatorJSON.object(fields).serialized.utf8)) + "." + parts[2])
        let refused = am.answer(.object(object), ["IDToken1": "demo", "IDToken2": "demo"])
        #expect(refused.status == 400)
        #expect(refused.json["message"] == "AuthId JWT Signature not valid")
        #expect(am.answer(step, [:]).status == 401)  // the genuine one still reaches the tree (empty answers fail)
    }

    @Test("journey-malformed-body: a body that is not a JSON object, or has no authId, is 400")
    func malformedBody() throws {
        let am = try AMDriver()
        #expect(am.send("POST", am.authenticatePath, headers: AMDriver.journeyHeaders, body: "[1,2").status == 400)
        #expect(am.send("POST", am.authenticatePath, headers: AMDriver.journeyHeaders, body: "{\"callbacks\":[]}").status == 400)
    }
}
