import Testing

/// What a terminal showed, as lines: CR LF and stray carriage returns gone, trailing blanks trimmed; with
/// `rewritten`, a line rewritten in place (a wait's time left) keeps only what follows its last erase.
/// (A terminal ends its lines with CR LF, which Swift counts as one Character: split on both.)
func terminalLines(_ output: String, rewritten: Bool = false) -> [String] {
    output.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map {
        let line = rewritten ? $0.components(separatedBy: "\u{1B}[K").last ?? "" : String($0)
        return line.replacingOccurrences(of: "\r", with: "").replacing(/\s+$/, with: "")
    }
}

/// Expects each of `expected` among the lines a terminal showed (`output`), in this order, other lines
/// between them allowed; `matches(documented, shown)` decides whether a shown line is the documented one.
func expectShownInOrder(
    _ expected: [String], in output: String, rewritten: Bool = false, matches: (String, String) -> Bool = { $0 == $1 },
    sourceLocation: SourceLocation = #_sourceLocation
) {
    var rest = terminalLines(output, rewritten: rewritten)[...]
    for line in expected {
        guard let index = rest.firstIndex(where: { matches(line, $0) }) else {
            Issue.record("not shown (in this order): \(line)\n--- terminal\n\(output)", sourceLocation: sourceLocation)
            return
        }
        rest = rest[(index + 1)...]
    }
}
