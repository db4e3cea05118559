import Foundation
import PingEmulator
import Testing

/// pingcli turns the Swift runtime's crash catcher off before the runtime starts by pointing `environ`
/// at a copy with its own SWIFT_BACKTRACE (Sources/CArguments), and points it back before `main` does
/// anything: what a program pingcli starts sees is the environment pingcli was given.
@Suite("the Swift runtime's crash catcher setting")
struct BacktracerSettingTests {
    @Test("backtracer-setting-passed-on: a child sees SWIFT_BACKTRACE as pingcli got it, and none when pingcli got none")
    func passedOn() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let record = sandbox.root + "/children.txt"
        let keyHex = String(repeating: "cd", count: 32)
        func keyCommand(_ tag: String) -> String {
            // The marker is written as "@@@" and made "===" by tr, so the command's own text (in the
            // environment it records) does not contain it.
            "{ echo '@@@ \(tag)' | tr @ =; tr '\\0' '\\n' </proc/$$/environ; } >>\(record); echo \(keyHex)"
        }
        let given = "enable=yes,color=no"
        let login = sandbox.login(emulator, environment: ["PINGCLI_KEY_COMMAND": keyCommand("given"), "SWIFT_BACKTRACE": given])
        #expect(login.status == 0, "\(login)")
        let token = sandbox.run(["token", "--raw"], environment: ["PINGCLI_KEY_COMMAND": keyCommand("none")])
        #expect(token.status == 0, "\(token)")
        let sections = (readText(record) ?? "").components(separatedBy: "=== ").filter { !$0.isEmpty }
        func settings(_ section: String) -> [String] {
            section.split(separator: "\n").map(String.init).filter { $0.hasPrefix("SWIFT_BACKTRACE=") }
        }
        let withSetting = sections.filter { $0.hasPrefix("given") }
        let without = sections.filter { $0.hasPrefix("none") }
        #expect(!withSetting.isEmpty && !without.isEmpty, "the key command ran: \(sections)")
        for section in withSetting { #expect(settings(section) == ["SWIFT_BACKTRACE=\(given)"], "\(section)") }
        for section in without { #expect(settings(section).isEmpty, "\(section)") }
    }
}
