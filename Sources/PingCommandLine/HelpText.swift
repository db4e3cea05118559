import CPlatform
import PingTerminal

/// Help text fitted to the reader: wrapped to the terminal's width, 80 columns when stdout is not a
/// terminal (a pipe, a file, `man`'s formatter), as gh and git do.
package enum HelpText {
    /// The width help is wrapped to: the terminal's columns (at least 40), else 80.
    package static func width(outputIsTerminal: Bool) -> Int {
        guard outputIsTerminal else { return 80 }
        let columns = Int(pingcli_terminal_columns(1))
        return columns >= 40 ? columns : 80
    }

    /// `text` with every line longer than `width` broken at spaces. A continuation lines up under the
    /// description column of an option or command table (two spaces or more after the name), else under
    /// the line's own indentation. A word longer than the width stays whole.
    package static func wrapped(_ text: String, width: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { wrap(String($0), width: width) }.joined(separator: "\n")
    }

    private static func wrap(_ line: String, width: Int) -> String {
        guard line.count > width else { return line }
        let indent = String(repeating: " ", count: continuationIndent(line))
        var lines: [String] = []
        let leading = line.prefix { $0 == " " }
        var current = String(leading)
        var empty = true
        for word in line.dropFirst(leading.count).split(separator: " ", omittingEmptySubsequences: false) {
            if empty {
                current += word
                empty = false
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else if !word.isEmpty {
                lines.append(current)
                current = indent + word
            }
        }
        lines.append(current)
        return lines.joined(separator: "\n")
    }

    /// Where the description starts (after a run of two or more spaces following the first word), or the
    /// line's own indentation when that column is far right (past 48).
    private static func continuationIndent(_ line: String) -> Int {
        let characters = Array(line)
        let leading = characters.prefix { $0 == " " }.count
        var index = leading
        while index < characters.count - 1 {
            if characters[index] == " " && characters[index + 1] == " " {
                var end = index
                while end < characters.count && characters[end] == " " { end += 1 }
                return end <= 48 ? end : leading
            }
            index += 1
        }
        return leading
    }
}

extension Console {
    /// Writes help text to stdout, wrapped to the terminal (80 columns when stdout is not one).
    package func help(_ text: String) {
        out(HelpText.wrapped(text, width: HelpText.width(outputIsTerminal: outputIsTerminal)))
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
