import Foundation
import Testing

/// What a help page must be at any width, checked on the binary's own output.
enum HelpPage {
    /// The commands the overview lists (its `Commands:` rows, `help` itself left out): the command table
    /// as the binary shows it.
    static func commands() -> [String] {
        let overview = Sandbox().run(["--help"], environment: ["COLUMNS": "200"]).stdout
        let lines = overview.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "Commands:") else { return [] }
        return lines[(start + 1)...].prefix { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
            .filter { $0 != "help" }
    }

    /// The first word of `text` as the layout keeps it whole: a `[…]` group (brackets nest), else up to
    /// the first space.
    static func firstWord(_ text: Substring) -> Substring? {
        guard !text.isEmpty else { return nil }
        var depth = 0
        let end =
            text.firstIndex { character in
                if character == "[" { depth += 1 } else if character == "]" { depth = max(depth - 1, 0) }
                return character == " " && depth == 0
            } ?? text.endIndex
        return text[..<end]
    }

    /// Every problem of `page` laid out for `width`: a line over the width that is more than one token
    /// (after its indentation and a row's name), and a line broken although the next line's first word
    /// would have fitted on it (text wrapped twice, or wrapped to another width); an example's line that
    /// ends in ` \` (a shell continuation) may end early.
    static func problems(_ page: String, width: Int) -> [String] {
        var found: [String] = []
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines where line.count > width {
            let body = line.drop { $0 == " " }
            let description = body.range(of: "  ").map { body[$0.upperBound...].drop { $0 == " " } } ?? body
            if description.contains(" ") { found.append("over \(width) columns: \(line)") }
        }
        for (line, next) in zip(lines, lines.dropFirst())
        where !line.isEmpty && !next.isEmpty && !line.hasSuffix(":") && !line.hasSuffix(" \\") {
            let indentation = line.prefix { $0 == " " }.count
            let nextIndentation = next.prefix { $0 == " " }.count
            // The same paragraph (both at column 0), or a row and its continuation (indented deeper).
            guard (indentation == 0 && nextIndentation == 0) || (indentation > 0 && nextIndentation > indentation) else { continue }
            guard let first = firstWord(next.dropFirst(nextIndentation)) else { continue }
            if line.count + 1 + first.count <= width { found.append("broken early at \(width) columns: \(line) | \(first)") }
        }
        return found
    }
}

@Suite("help that reads: one page per command, laid out once for the width")
struct HelpLayoutTests {
    @Test("help-commands: the overview lists the command table, otp and devices among them, and the man page the same commands")
    func commandTable() {
        let commands = HelpPage.commands()
        #expect(commands.count >= 14 && commands.contains("otp") && commands.contains("devices"), "\(commands)")
        let man = Sandbox().run(["--help-man"]).stdout
        let sections = man.split(separator: "\n").filter { $0.hasPrefix(".SS \"pingcli ") }.map { $0.dropFirst(13).dropLast() }
        #expect(sections.map(String.init) == commands, "\(sections)")
    }

    @Test("help-same-bytes: pingcli help X, pingcli X --help, X -h and X with an operation and --help print the same bytes, exit 0")
    func sameBytes() {
        let sandbox = Sandbox()
        for command in HelpPage.commands() {
            let help = sandbox.run(["help", command])
            #expect(help.status == 0 && help.stderr.isEmpty && help.stdout.hasPrefix("Usage: pingcli"), "\(command): \(help)")
            for form in [[command, "--help"], [command, "-h"], [command, "list", "--help"], ["--profile", "p", command, "--help"]] {
                let run = sandbox.run(form)
                #expect(run.status == 0 && run.stderr.isEmpty, "\(form): \(run)")
                #expect(run.stdout == help.stdout, "\(form) differs from help \(command)")
            }
        }
    }

    @Test("help-piped-80: piped, with no COLUMNS, every page is laid out for 80 columns; COLUMNS=N lays it out for N")
    func piped() {
        let sandbox = Sandbox()
        for command in HelpPage.commands() + [""] {
            let arguments = command.isEmpty ? ["--help"] : ["help", command]
            let run = sandbox.run(arguments)
            #expect(run.status == 0, "\(run)")
            #expect(HelpPage.problems(run.stdout, width: 80) == [], "\(command)")
            let wide = sandbox.run(arguments, environment: ["COLUMNS": "132"]).stdout
            #expect(HelpPage.problems(wide, width: 132) == [], "\(command) at 132")
            #expect(wide.split(separator: "\n").count < run.stdout.split(separator: "\n").count, "\(command): 132 columns is no shorter")
        }
    }

    @Test(
        "help-terminal-widths: on a terminal 60, 80 and 132 columns wide (COLUMNS saying otherwise) each page is laid out for the terminal",
        .enabled(if: DebianTools.script != nil, "script (bsdutils) is missing"),
        arguments: [60, 80, 132])
    func terminal(width: Int) {
        let sandbox = Sandbox()
        for command in ["", "login", "token", "otp", "devices", "setup", "git-credential"] {
            let arguments = command.isEmpty ? "--help" : "\(command) --help"
            let run = onTerminal(
                "stty cols \(width); '\(Locations.pingcli)' \(arguments)",
                environment: sandbox.environment.merging(["COLUMNS": "999"]) { $1 })
            let shown = run.stdout.replacingOccurrences(of: "\r\n", with: "\n")
            #expect(run.status == 0, "\(run)")
            #expect(HelpPage.problems(shown, width: width) == [], "\(command) at \(width):\n\(shown)")
            let piped = sandbox.run(command.isEmpty ? ["--help"] : [command, "--help"], environment: ["COLUMNS": String(width)])
            #expect(shown == piped.stdout, "\(command): the terminal's page is not the one COLUMNS=\(width) gives")
        }
    }

    @Test("help-exit-codes: the overview lists every exit code of docs/exit-codes.md as a row of its own, token and setup theirs")
    func exitCodes() throws {
        let table = try #require(readText(DebianTools.repositoryRoot + "/docs/exit-codes.md"))
        let codes = table.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| "), let code = line.dropFirst(2).split(separator: " ").first, Int(code) != nil else { return nil }
            return String(code)
        }
        #expect(codes.count == 8, "\(codes)")
        let overview = Sandbox().run(["--help"]).stdout.split(separator: "\n")
        for code in codes {
            #expect(overview.contains { $0.hasPrefix("  \(code) ") && $0.split(separator: " ").count >= 2 }, "no row for \(code)")
        }
        for command in ["token", "setup"] {
            let page = Sandbox().run(["help", command]).stdout
            #expect(page.contains("\nExit codes:\n  0    ok\n  1    failed\n"), "\(command): \(page)")
        }
    }
}
