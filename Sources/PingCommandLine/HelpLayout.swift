import PingBase

/// Help text laid out once for one width, as gh and git lay theirs out.
///
/// The source text of a help page is written in blocks separated by blank lines:
/// - lines that start at column 0 are prose: one paragraph, its lines joined and filled again to the width
///   (so a line break in the source never shows as a short line on a wider or narrower terminal);
/// - indented lines are rows (options, commands, exit codes, examples): each stays one line when it fits,
///   else it is broken at spaces with its continuation under the description column (after two spaces or
///   more), or under its own indentation.
/// A word, or a bracketed group such as `[--file FILE]`, is never split: only a single such token longer than
/// the room left may pass the width.
package enum HelpLayout {
    /// The width help is laid out to: the terminal's columns (from the terminal itself), else `COLUMNS`,
    /// else 80 (a pipe, a file). Never under 20.
    package static func width(terminalColumns: Int, columnsVariable: String?) -> Int {
        if terminalColumns > 0 { return max(terminalColumns, 20) }
        if let text = columnsVariable, let columns = Int(text), columns > 0 { return max(columns, 20) }
        return 80
    }

    /// `text` laid out for `width` columns.
    package static func render(_ text: String, width: Int) -> String {
        var output: [String] = []
        var paragraph: [Substring] = []
        var inExample = false
        func flush() {
            guard !paragraph.isEmpty else { return }
            let words = paragraph.flatMap { tokens($0) }
            let hanging = paragraph[0].hasPrefix("Usage:") ? "    " : ""
            output += fill(words, first: "", hanging: hanging, width: width)
            inExample = paragraph.count == 1 && (paragraph[0] == "Example:" || paragraph[0] == "Examples:")
            paragraph = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.first == " " {
                flush()
                output += inExample ? exampleRow(line, width: width) : row(line, width: width)
            } else if line.allSatisfy({ $0 == " " }) {
                flush()
                inExample = false
                output.append("")
            } else {
                paragraph.append(line)
            }
        }
        flush()
        return output.joined(separator: "\n")
    }

    /// A shell command under `Example:`, broken (when it is too wide) where the shell allows it: between
    /// words outside quotes and brackets, each line but the last ending in ` \`, so that it still runs
    /// when pasted.
    private static func exampleRow(_ line: Substring, width: Int) -> [String] {
        guard line.count > width else { return [String(line)] }
        let leading = line.prefix { $0 == " " }.count
        let hanging = String(repeating: " ", count: leading + 4)
        var lines = fill(
            tokens(line.dropFirst(leading), quoted: true), first: String(line.prefix(leading)), hanging: hanging, width: width - 2)
        for index in lines.indices.dropLast() where !lines[index].hasSuffix("\\") { lines[index] += " \\" }
        return lines
    }

    /// One indented row, broken at spaces when it is wider than `width`.
    private static func row(_ line: Substring, width: Int) -> [String] {
        guard line.count > width else { return [String(line)] }
        let leading = line.prefix { $0 == " " }.count
        let column = descriptionColumn(line, leading: leading, width: width)
        let body = line.dropFirst(leading)
        guard let column else {
            return fill(
                tokens(body), first: String(repeating: " ", count: leading), hanging: String(repeating: " ", count: leading + 2),
                width: width)
        }
        // The name part stays as written; the description is filled beside it.
        let head = String(line.prefix(column))
        let description = tokens(line.dropFirst(column))
        return fill(description, first: head, hanging: String(repeating: " ", count: column), width: width)
    }

    /// Where a row's description starts (after a run of two or more spaces following its first word),
    /// when that leaves room for a description (at most half the width).
    private static func descriptionColumn(_ line: Substring, leading: Int, width: Int) -> Int? {
        let characters = Array(line)
        var index = leading
        while index < characters.count - 1 {
            if characters[index] == " " && characters[index + 1] == " " {
                var end = index
                while end < characters.count && characters[end] == " " { end += 1 }
                return end <= width / 2 && end < characters.count ? end : nil
            }
            index += 1
        }
        return nil
    }

    /// The words of `text`: split at spaces, except inside brackets (`[--file FILE]` is one token) and,
    /// when `quoted` (a shell command), inside quotes.
    package static func tokens(_ text: Substring, quoted: Bool = false) -> [Substring] {
        var result: [Substring] = []
        var depth = 0
        var quote: Character? = nil
        var start: Substring.Index? = nil
        for index in text.indices {
            let character = text[index]
            if quoted && (character == "\"" || character == "'") && (quote == nil || quote == character) {
                quote = quote == nil ? character : nil
            }
            if character == "[" { depth += 1 }
            if character == "]" { depth = max(depth - 1, 0) }
            if character == " " && depth == 0 && quote == nil {
                if let begun = start { result.append(text[begun..<index]) }
                start = nil
            } else if start == nil {
                start = index
            }
        }
        if let begun = start { result.append(text[begun...]) }
        return result
    }

    /// `tokens` filled into lines of at most `width` columns: the first line begins with `first`, the
    /// others with `hanging`. A word longer than the room stays whole on a line of its own.
    /// A group (`[…]`, a quoted string) wider than the room a line leaves is broken at its spaces after all.
    private static func fill(_ tokens: [Substring], first: String, hanging: String, width: Int) -> [String] {
        let room = width - hanging.count
        let words = tokens.flatMap { $0.count > room ? $0.split(separator: " ") : [$0] }
        var lines: [String] = []
        var current = first
        var empty = true
        for word in words {
            if empty {
                current += word
                empty = false
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = hanging + word
            }
        }
        lines.append(current)
        return lines
    }
}

/// The exit statuses a command's help lists, one a row (`Exit codes:` and `  0    ok`, …).
package enum HelpExitCodes {
    /// Every status pingcli exits with, and what it means, as docs/exit-codes.md lists them.
    package static let all: [(code: Int32, meaning: String)] = [
        (ExitStatus.success.rawValue, "ok"),
        (ExitStatus.failure.rawValue, "failed"),
        (ExitStatus.usage.rawValue, "usage error"),
        (ExitStatus.unreachable.rawValue, "server unreachable"),
        (ExitStatus.loginRequired.rawValue, "login required"),
        (ExitStatus.pinMismatch.rawValue, "pinned key mismatch"),
        (ExitStatus.httpError.rawValue, "api --fail got a status outside 2xx"),
        (130, "interrupted (Ctrl-C)"),
    ]

    /// The block for a help page: the heading and a row for each of `codes` (all when empty).
    package static func block(_ codes: [Int32] = []) -> String {
        let chosen = codes.isEmpty ? all : all.filter { codes.contains($0.code) }
        let rows = chosen.map { "  " + String($0.code) + String(repeating: " ", count: 5 - String($0.code).count) + $0.meaning }
        return (["Exit codes:"] + rows).joined(separator: "\n")
    }
}
