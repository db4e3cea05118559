import PingBase
import Testing

@testable import PingCommandLine
@testable import PingCommands

/// The hints for other tools' words point at commands that exist, with options they take.
@Suite("command hints: other tools' words name a real pingcli command")
struct CommandHintTests {
    @Test("command-hint-table: each hint's typed word is no command of pingcli, and its command line parses against the command table")
    func table() throws {
        #expect(Set(CommandHints.table.map(\.typed)).count == CommandHints.table.count, "a word listed twice")
        for entry in CommandHints.table {
            let typed = entry.typed.split(separator: " ").map(String.init)
            #expect(PingCLI.command(named: typed[0]) == nil, "\(entry.typed) is a command: the hint would never show")
            let words = entry.command.split(separator: " ").map(String.init)
            #expect(words.first == "pingcli" && words.count >= 2, "\(entry.command)")
            let command = try #require(PingCLI.command(named: words[1]), "\(entry.command) names no command")
            let (options, operands) = splitOperands(Array(words.dropFirst(2)), specs: command.specs)
            _ = try parseOptions(options, specs: command.specs, command: command.name)
            // Operands: an operation the command knows, or a placeholder in capitals.
            for operand in operands {
                #expect(operand == operand.uppercased() || ["use", "git", "code"].contains(operand), "\(entry.command)")
            }
        }
    }

    @Test("command-hint-lookup: a command and its operand, else the command alone; an unknown word gets no hint")
    func lookup() {
        #expect(CommandHints.hint("auth", operand: "status")?.message.contains("run pingcli status") == true)
        #expect(CommandHints.hint("auth", operand: "frobnicate")?.message.contains("run pingcli login") == true)
        #expect(CommandHints.hint("whoami", operand: nil)?.status == .usage)
        #expect(CommandHints.hint("whoami", operand: nil)?.rule == .commandUnknown)
        #expect(CommandHints.hint("frobnicate", operand: "status") == nil)
    }
}
