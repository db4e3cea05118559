import Testing

@testable import PingCommandLine
@testable import PingCommands

/// `HelpLayout`: prose refilled once, rows continued under their description, examples broken where the
/// shell allows, groups kept whole while they fit.
@Suite("help layout")
struct HelpLayoutUnitTests {
    static let prose = """
        Prints a valid access token (or, with --id-token, ID token), refreshing it first when it expires
        within --min-ttl seconds. When stdout is not a terminal, the default is the token alone.

        A second paragraph.
        """

    func words(_ text: String) -> [Substring] { text.split(whereSeparator: { $0 == " " || $0 == "\n" }) }

    @Test("help-layout-prose: a paragraph's source lines are refilled to each width: the same words, no line over it, the blank line kept")
    func prose() {
        for width in [40, 60, 80, 132] {
            let laid = HelpLayout.render(Self.prose, width: width)
            #expect(words(laid) == words(Self.prose), "\(width)")
            #expect(laid.split(separator: "\n").allSatisfy { $0.count <= width }, "\(width):\n\(laid)")
            #expect(laid.contains("\n\nA second paragraph."), "\(laid)")
        }
        // Refilled, not wrapped twice: at 132 the first paragraph takes two lines (and the second one).
        #expect(HelpLayout.render(Self.prose, width: 132).split(separator: "\n").count == 3)
    }

    @Test("help-layout-row: a row continues under its description column; a bracket group stays whole unless it alone is too wide")
    func rows() {
        let row = "  --client-secret-file PATH  a confidential client: read its secret from this file, mode 0600, or - for standard input"
        let laid = HelpLayout.render(row, width: 60).split(separator: "\n")
        #expect(
            laid.count > 1 && laid.dropFirst().allSatisfy { $0.hasPrefix(String(repeating: " ", count: 28)) && $0.count <= 60 }, "\(laid)")
        let usage = "Usage: pingcli token [--format raw|json|exec-credential|summary] [--id-token] [--profile NAME]"
        #expect(HelpLayout.render(usage, width: 60).contains("[--format raw|json|exec-credential|summary]"))
        let wide = "Usage: pingcli login [--issuer URL | --pingone ENV_ID [--region R] | --pingone-domain DOMAIN]"
        #expect(HelpLayout.render(wide, width: 50).split(separator: "\n").allSatisfy { $0.count <= 50 })
    }

    @Test(
        "help-layout-example: an example too wide is broken between shell words outside quotes, each line but the last ending in a backslash"
    )
    func example() {
        let command = #"  curl -H "Authorization: Bearer $(pingcli token --raw)" https://api.example.com/me"#
        let laid = HelpLayout.render("Example:\n" + command, width: 60)
        let lines = laid.split(separator: "\n").dropFirst()
        #expect(lines.count == 2 && lines.first!.hasSuffix(" \\") && lines.allSatisfy { $0.count <= 60 }, "\(laid)")
        #expect(lines.first!.contains(#""Authorization: Bearer $(pingcli token --raw)""#), "a quoted word kept whole: \(laid)")
        let joined = lines.map { $0.hasSuffix(" \\") ? String($0.dropLast(2)) : String($0) }.map { $0.trimmingWhitespace }
        #expect("  " + joined.joined(separator: " ") == command)
    }

    @Test("help-layout-width: the terminal's columns, else COLUMNS, else 80")
    func width() {
        #expect(HelpLayout.width(terminalColumns: 60, columnsVariable: "132") == 60)
        #expect(HelpLayout.width(terminalColumns: 0, columnsVariable: "132") == 132)
        #expect(HelpLayout.width(terminalColumns: 0, columnsVariable: "wide") == 80)
        #expect(HelpLayout.width(terminalColumns: 0, columnsVariable: nil) == 80)
    }
}
