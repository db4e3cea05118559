import Foundation
import Testing

@testable import PingEmulator
@testable import PingJourney
@testable import PingLogin

/// `devices remove` at AM: with the AM session a journey saved, AM's record of the key is queried and
/// deleted (its documented `…/users/{user}/devices/2fa/binding` endpoint); without a session AM takes,
/// or with an answer refused at its gate, only the local key goes, and one line says AM keeps its copy.
/// The session is in no line and no trace.
extension JourneyDeviceFlowTests {
    /// A harness with one key bound for demo by the Device Binding tree (its session saved), and the key id.
    func bound() throws -> (FlowHarness, String, session: String) {
        let harness = try Self.harness()
        let bind = try journey(harness, tree: "Device Binding", terminal: ScriptedTerminal(["demo", "demo"]))
        #expect(bind.status == 0, "\(bind)")
        let keyID = try #require(try records(harness).first?.keyID)
        let session = try #require(harness.emulator.journeySessions.last?.tokenId)
        return (harness, keyID, session)
    }

    @Test(
        "device-remove-at-am: with the saved AM session, AM's record is queried and deleted, then the local key; the session is in no line or trace"
    )
    func removeAtAM() throws {
        let (harness, keyID, session) = try bound()
        #expect(harness.emulator.boundDevices().map(\.keyID) == [keyID])
        let run = harness.run(["devices", "remove", keyID, "--verbose"])
        #expect(run.status == 0, "\(run)")
        #expect(
            run.stderr.contains(
                "Removed device key \(keyID) from this machine, and AM's record of it at \(harness.emulator.baseURL) (realm /alpha)"))
        // --verbose is traced by the real transport only: device-e2e-none checks that trace.
        #expect(!run.stderr.contains(session) && !run.stdout.contains(session))
        #expect(harness.emulator.boundDevices().isEmpty)
        #expect(try records(harness).isEmpty)
        let requests = harness.emulator.requests(to: .boundDevices)
        #expect(requests.map(\.method) == ["GET", "DELETE"])
        let base = "/am/json/realms/root/realms/alpha/users/\(User.demo.sub)/devices/2fa/binding"
        #expect(requests.first?.path == base && requests.first?.query["_queryFilter"] == "true")
        #expect(requests.last?.path == base + "/" + keyID)
        for request in requests {
            #expect(request.headers["accept-api-version"] == "resource=1.0")
            #expect(request.headers["iplanetdirectorypro"] == session, "the session in the header named after the cookie")
        }
        // The emulator no longer verifies a signature with it: Device Verify fails (no key here, and none there).
        #expect(try journey(harness, tree: "Device Verify", terminal: ScriptedTerminal(["demo", "demo"])).status != 0)
    }

    @Test("device-remove-no-session: an expired AM session removes the key locally only, and one line says AM keeps its copy")
    func removeWithoutSession() throws {
        let (harness, keyID, session) = try bound()
        harness.clock.advance(by: 7201)  // past the emulator's session lifetime
        let run = harness.run(["devices", "remove", keyID])
        #expect(run.status == 0, "\(run)")
        #expect(
            run.stderr.contains(
                "AM keeps its copy of the public key until an administrator or you remove it there: no profile holds an AM session for"),
            "\(run)")
        #expect(run.stderr.split(separator: "\n").count == 1 && !run.stderr.contains(session))
        #expect(try records(harness).isEmpty, "the local key goes whatever AM answers")
        #expect(harness.emulator.boundDevices().map(\.keyID) == [keyID], "AM keeps it")
        #expect(harness.emulator.requests(to: .boundDevices).map(\.status) == [401], "asked once, refused, nothing deleted")
    }

    @Test("device-remove-network-down: AM unreachable, the key is still removed locally, and the line says why AM keeps its copy")
    func removeNetworkDown() throws {
        let (harness, keyID, session) = try bound()
        harness.networkDown(true)
        let run = harness.run(["devices", "remove", keyID])
        #expect(run.status == 0 && run.stderr.contains("AM keeps its copy") && run.stderr.contains("could not reach"), "\(run)")
        #expect(!run.stderr.contains(session))
        #expect(try records(harness).isEmpty)
    }

    @Test(
        "am-device-record: AM's answer whose uuid is not a record id (a path), not JSON, or without result is refused (rule am-device-record); no DELETE is sent and the local key still goes"
    )
    func recordGate() throws {
        let answers: [(String?, String)] = [
            ("application/json", #"{"result":[{"_id":"../../sessions","uuid":"../../sessions","key":{"kid":"KID"}}],"resultCount":1}"#),
            ("application/json", #"{"result":[{"uuid":"a/b?_action=logout","key":{"kid":"KID"}}]}"#),
            ("application/json", #"{"result":[{"uuid":"%2e%2e","key":{"kid":"KID"}}]}"#),
            ("application/json", #"{"result":{"uuid":"KID"}}"#),
            ("application/json", #"{"result":["KID"]}"#),
            ("text/html", "<html>KID</html>"),
        ]
        for (contentType, body) in answers {
            let (harness, keyID, session) = try bound()
            let canned = body.replacingOccurrences(of: "KID", with: keyID)
            harness.emulator.faults.responseOverrides[.boundDevices] = CannedResponse(status: 200, contentType: contentType, body: canned)
            let (context, _) = try harness.context()
            let record = try #require(try records(harness).first)
            guard case .failed(let error) = AMDeviceRemoval(context: context.forSession).remove(record, key: context.store.commandKey())
            else {
                Issue.record("\(body) was not refused")
                continue
            }
            #expect(error.rule == .amDeviceRecord, "\(body): \(error.message)")
            #expect(!error.message.contains(session) && !error.message.contains("../"))
            let run = harness.run(["devices", "remove", keyID])
            #expect(run.status == 0 && run.stderr.contains("AM keeps its copy"), "\(run)")
            #expect(try records(harness).isEmpty)
            #expect(harness.emulator.requests(to: .boundDevices).allSatisfy { $0.method == "GET" }, "no DELETE after a refused answer")
            #expect(harness.emulator.boundDevices().count == 1)
        }
    }

    @Test("device-remove-other-user: AM answers 403 for a session of another user; the key goes locally, AM keeps its copy")
    func removeOtherUsersSession() throws {
        let (harness, keyID, _) = try bound()
        harness.emulator.faults.responseOverrides[.boundDevices] = CannedResponse(
            status: 403, contentType: "application/json", body: #"{"code":403,"reason":"Forbidden","message":"User not authorized."}"#)
        let run = harness.run(["devices", "remove", keyID])
        #expect(run.status == 0 && run.stderr.contains("no profile holds an AM session for"), "\(run)")
        #expect(try records(harness).isEmpty && harness.emulator.boundDevices().count == 1)
    }
}
