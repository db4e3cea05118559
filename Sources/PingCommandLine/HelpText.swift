import CPlatform
import PingTerminal

/// Help text fitted to the reader: laid out for the terminal's width, `COLUMNS`, else 80 columns (a pipe,
/// a file), as gh and git do (`HelpLayout`).
package enum HelpText {
    /// The width help is laid out to: the terminal's columns when stdout is one, else `COLUMNS`, else 80.
    package static func width(outputIsTerminal: Bool, columnsVariable: String? = nil) -> Int {
        HelpLayout.width(terminalColumns: outputIsTerminal ? Int(pingcli_terminal_columns(1)) : 0, columnsVariable: columnsVariable)
    }
}

extension Console {
    /// Writes help text to stdout, laid out for the terminal (`COLUMNS`, else 80 columns, when stdout is
    /// not one). `pingcli help X`, `pingcli X --help` and bare `pingcli` all print through here.
    package func help(_ text: String, columnsVariable: String? = nil) {
        out(HelpLayout.render(text, width: HelpText.width(outputIsTerminal: outputIsTerminal, columnsVariable: columnsVariable)))
    }
}

/// Renders a command's help text from its specs, so help and parser never disagree.
package func helpText(usage: String, summary: String, specs: [OptionSpec], footer: String = "") -> String {
    var lines = ["Usage: \(usage)", "", summary, "", "Options:"]
    let rendered = specs.map { spec in ("--" + spec.name + (spec.valueName.map { " " + $0 } ?? ""), spec.help) }
    let width = (rendered.map(\.0.count).max() ?? 0) + 2
    for (left, right) in rendered {
        lines.append("  " + left + String(repeating: " ", count: width - left.count) + right)
    }
    if !footer.isEmpty { lines += ["", footer] }
    return lines.joined(separator: "\n")
}
