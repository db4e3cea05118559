import Foundation
import PingEmulator
import Testing

/// docs/usage.md's `pingcli devices` examples, run as written after a journey's Device Binding step bound
/// a key on this machine (the key id put in for `<key-id>`).
@Suite("docs examples: devices")
struct DocsDeviceExamples {
    static let list = "pingcli devices # key id, user, AM origin and realm, algorithm, PIN or none, where it lives, when bound"
    static let json = "pingcli devices --json # the same as a JSON array, for programs"
    static let remove = "pingcli devices remove <key-id> # delete it here, and AM's record of it while a profile's AM session is good"

    @Test("docs-usage-devices: list and --json after a journey bound a key; remove deletes it here and AM's record of it")
    func devicesExamples() throws {
        let emulator = try AMJourneys.emulator()
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let answers = AMJourneys.answersFile(sandbox, ["User Name=alice", "Password=\(AMJourneys.password)"])
        let bind = sandbox.run(AMJourneys.login(emulator, tree: "Device Binding", ["--answers", answers]))
        #expect(bind.status == 0, "\(bind)")
        let keyID = try #require(emulator.boundDevices().first?.keyID)
        var shell = DocsShell(sandbox)
        shell.substitutions = [("<key-id>", keyID)]
        let list = try shell.succeeds(Self.list).stdout
        #expect(list.hasPrefix("KEY ID") && list.contains(keyID) && list.contains("alice") && list.contains("ES256"), "\(list)")
        let json = try shell.succeeds(Self.json).stdout
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]], "\(json)")
        #expect(parsed.map { $0["key_id"] as? String } == [keyID] && parsed.first?["realm"] as? String == "/alpha", "\(json)")
        let remove = try shell.succeeds(Self.remove)
        #expect(remove.stderr.contains("Removed device key \(keyID) from this machine, and AM's record of it"), "\(remove)")
        #expect(emulator.boundDevices().isEmpty)
        let after = try shell.succeeds(Self.json).stdout
        #expect((try JSONSerialization.jsonObject(with: Data(after.utf8)) as? [Any])?.isEmpty == true, "\(after)")
    }
}
