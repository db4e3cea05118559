import Foundation
import Testing

/// Test switches do not ship (docs/testing.md, "The test switches in pingcli"): every `PINGCLI_TEST_*`
/// name in the product's sources is inside an `#if DEBUG` block, so the release binary has neither the name
/// nor the code behind it; the one documented exception is the crash tests' pause, which needs a release
/// process killed by a real signal.
struct TestSwitchTests {
    static let shipped = ["PINGCLI_TEST_PAUSE_BEFORE_RENAME"]

    @Test("test-switches-debug-only: every PINGCLI_TEST_ name in Sources/Ping* but the documented one is inside #if DEBUG … #endif")
    func testSwitchesAreDebugOnly() throws {
        var found = 0
        for target in PingModules.product where target != "pingcli" {
            for file in try PingModules.files(target) {
                let text = try String(contentsOfFile: PingModules.sources + "/" + file, encoding: .utf8)
                var depth = 0
                var debugDepth: Int?
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    if code.hasPrefix("#if") {
                        depth += 1
                        if code == "#if DEBUG" && debugDepth == nil { debugDepth = depth }
                    } else if code.hasPrefix("#else") || code.hasPrefix("#elseif") {
                        if debugDepth == depth { debugDepth = nil }
                    } else if code.hasPrefix("#endif") {
                        if debugDepth == depth { debugDepth = nil }
                        depth -= 1
                    } else if line.contains("\"PINGCLI_TEST_") && !Self.shipped.contains(where: { line.contains($0) }) {
                        found += 1
                        #expect(debugDepth != nil, "\(file): \(code)")
                    }
                }
            }
        }
        #expect(found >= 2, "PINGCLI_TEST_RULE_FILE and PINGCLI_TEST_FIDO_SOCKET are read somewhere")
    }
}
