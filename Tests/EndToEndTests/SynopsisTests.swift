import Foundation
import Testing

/// The README's usage synopsis and the man page against the command table the binary shows: a command or
/// an option added to the table and missing from either fails here.
@Suite("the README, the man page and the binary agree")
struct SynopsisTests {
    /// The options a command's help lists (`--help` left out).
    func options(_ command: String) -> [String] {
        let page = Sandbox().run(["help", command], environment: ["COLUMNS": "250"]).stdout
        return page.components(separatedBy: "\nOptions:\n").last!.split(separator: "\n").filter { $0.hasPrefix("  --") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }.filter { $0 != "--help" }
    }

    /// Whether `text` shows `option` as a whole word (`--otp` is not `--otp-enroll`).
    func shows(_ text: String, _ option: String) -> Bool {
        var rest = Substring(text)
        while let found = rest.range(of: option) {
            let next = rest[found.upperBound...].first
            if next == nil || !(next!.isLetter || next! == "-") { return true }
            rest = rest[found.upperBound...]
        }
        return false
    }

    @Test("readme-synopsis-complete: every command of the table has lines in the README's usage block that show every option it takes")
    func readme() throws {
        let block = try DocExamples.text(DocsReadmeExamples.synopsis)
        var lines: [String: String] = [:]
        var command = ""
        for line in block.split(separator: "\n") {
            if line.hasPrefix("pingcli ") { command = String(line.dropFirst(8).prefix { $0 != " " }) }
            lines[command, default: ""] += line + "\n"
        }
        let commands = HelpPage.commands()
        #expect(commands.count >= 14)
        for command in commands {
            let text = try #require(lines[command], "no line for pingcli \(command) in the README's usage block")
            let missing = options(command).filter { !shows(text, $0) }
            #expect(missing.isEmpty, "the README's synopsis of pingcli \(command) lacks \(missing)")
        }
    }

    @Test(
        "man-complete: the man page has every command's options under its section, TPM2TOOLS_TCTI and COLUMNS in ENVIRONMENT, the OTP and device files in FILES"
    )
    func man() {
        let page = Sandbox().run(["--help-man"]).stdout.replacingOccurrences(of: "\\-", with: "-")
        let sections = page.components(separatedBy: "\n.SS \"pingcli ")
        for command in HelpPage.commands() {
            let section = sections.first { $0.hasPrefix(command + "\"") } ?? ""
            let missing = options(command).filter { !section.contains("\\fB" + $0 + "\\fR") }
            #expect(!section.isEmpty && missing.isEmpty, "pingcli(1) lacks \(command)'s \(missing)")
        }
        let environment = page.components(separatedBy: ".SH ENVIRONMENT").last?.components(separatedBy: ".SH FILES").first ?? ""
        for variable in ["TPM2TOOLS_TCTI", "COLUMNS", "PINGCLI_PROFILE", "KUBECONFIG"] {
            #expect(environment.contains(variable), "ENVIRONMENT lacks \(variable)")
        }
        let files = page.components(separatedBy: ".SH FILES").last ?? ""
        for file in ["pingcli/otp/accounts.enc", "pingcli/otp-generation", "pingcli/devices/KEY_ID.key"] {
            #expect(files.contains(file), "FILES lacks \(file)")
        }
    }
}
