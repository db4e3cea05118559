import Testing

@testable import PingCommands

/// The command table is built from `commandNames` through `command(named:)`'s switch: the two must agree.
@Suite("command table: every listed name is a command of that name, once")
struct CommandTableTests {
    @Test("each name in commandNames resolves to a command of that name; unknown names do not")
    func namesResolve() {
        #expect(Set(PingCLI.commandNames).count == PingCLI.commandNames.count, "a name listed twice")
        #expect(PingCLI.commandTable.map(\.name) == PingCLI.commandNames)
        for name in PingCLI.commandNames {
            #expect(PingCLI.command(named: name)?.name == name, "\(name)")
            #expect(PingCLI.command(named: name)?.summary.isEmpty == false, "\(name)")
        }
        for unknown in ["", "help", "version", "Token", "tokens", "--version"] {
            #expect(PingCLI.command(named: unknown) == nil, "\(unknown)")
        }
    }

    @Test("the overview lists every command in commandNames' order")
    func overview() throws {
        let usage = PingCLI.usage
        var previous = usage.startIndex
        for name in PingCLI.commandNames {
            let found = try #require(usage.range(of: "\n  " + name + " ", range: previous..<usage.endIndex), "\(name)")
            previous = found.upperBound
        }
    }
}
