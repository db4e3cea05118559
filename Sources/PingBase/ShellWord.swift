/// `word` as a POSIX shell reads it back: bare when it holds only letters, digits and `-_./:=@`, else
/// single-quoted (a `'` inside as `'\''`). For the commands pingcli prints for a person to paste.
package func shellQuoted(_ word: String) -> String {
    let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=@".contains($0) }
    guard !plain else { return word }
    var quoted = "'"
    for character in word { quoted += character == "'" ? "'\\''" : String(character) }
    return quoted + "'"
}
