import EmulatorHTTP
import Foundation
import Testing

@testable import PingEmulator

/// A PingAM-layout emulator answered in-process (`Emulator.respond`) on a clock the test sets, with
/// helpers that speak the journey protocol as a client following the reference would.
struct AMDriver {
    /// 2005-03-18 01:58:29 UTC: RFC 6238 Appendix B's second test time.
    static let startTime = 1_111_111_109.0
    /// RFC 6238 Appendix B's SHA-1 seed, "12345678901234567890", in base32.
    static let rfcSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

    let emulator: Emulator

    init(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws {
        var configuration = EmulatorConfiguration(layout: .pingAM)
        configuration.clock = { AMDriver.startTime }
        configure(&configuration)
        emulator = try Emulator(configuration: configuration)
    }

    var am: String { emulator.baseURL + "/am" }
    var authenticatePath: String { "/am/json/realms/root/realms/alpha/authenticate" }

    struct Answer {
        var status: Int
        var headers: [(name: String, value: String)]
        var json: EmulatorJSON
        var text: String

        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    }

    func send(_ method: String, _ target: String, headers: [(String, String)] = [], body: String = "") -> Answer {
        let answer = emulator.respond(
            method: method, url: target, headers: headers.map { (name: $0.0, value: $0.1) }, body: Array(body.utf8))
        let text = String(decoding: answer.body, as: UTF8.self)
        return Answer(status: answer.status, headers: answer.headers, json: EmulatorJSON.parse(Data(answer.body)) ?? .null, text: text)
    }

    static let journeyHeaders = [("Content-Type", "application/json"), ("Accept-API-Version", "resource=2.1, protocol=1.0")]

    /// `POST …/authenticate?authIndexType=service&authIndexValue=TREE` with an empty body.
    func start(_ tree: String) -> Answer {
        send(
            "POST", authenticatePath + "?" + FormEncoding.encode([("authIndexType", "service"), ("authIndexValue", tree)]),
            headers: Self.journeyHeaders)
    }

    /// Posts `step` back with the named inputs set (`IDToken1` → value).
    func answer(_ step: EmulatorJSON, _ values: [String: EmulatorJSON]) -> Answer {
        send("POST", authenticatePath, headers: Self.journeyHeaders, body: Self.filled(step, values).serialized)
    }

    static func filled(_ step: EmulatorJSON, _ values: [String: EmulatorJSON]) -> EmulatorJSON {
        guard case .object(var object) = step, let callbacks = step["callbacks"]?.arrayValue else { return step }
        object["callbacks"] = .array(
            callbacks.map { callback in
                guard case .object(var c) = callback, let inputs = c["input"]?.arrayValue else { return callback }
                c["input"] = .array(
                    inputs.map { input in
                        guard let name = input["name"]?.stringValue, let value = values[name] else { return input }
                        return ["name": .string(name), "value": value]
                    })
                return .object(c)
            })
        return .object(object)
    }

    /// Signs in as demo/demo on `Login` and returns the tokenId.
    func signIn(tree: String = "Login") throws -> String {
        let done = answer(start(tree).json, ["IDToken1": "demo", "IDToken2": "demo"])
        return try #require(done.json["tokenId"]?.stringValue)
    }

    /// The callback types of a step.
    static func types(_ step: EmulatorJSON) -> [String] {
        (step["callbacks"]?.arrayValue ?? []).compactMap { $0["type"]?.stringValue }
    }

    /// `output[name]` of callback `index`.
    static func output(_ step: EmulatorJSON, _ index: Int, _ name: String) -> EmulatorJSON? {
        step["callbacks"]?.arrayValue?[index]["output"]?.arrayValue?.first { $0["name"]?.stringValue == name }?["value"]
    }

    /// The names of callback `index`'s inputs.
    static func inputNames(_ step: EmulatorJSON, _ index: Int) -> [String] {
        (step["callbacks"]?.arrayValue?[index]["input"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
    }
}
