/// Makes text from a server, a file or a browser safe to show on one terminal line: every character
/// that could act on the terminal (`isTerminalActive`: controls, escape sequences, newlines, bidi
/// overrides) becomes a space, and it is cut to `limit` characters. The one function every printed
/// value from outside goes through.
package func displaySafe(_ text: String, limit: Int = 300) -> String {
    // Printable ASCII within the limit (an issuer, a client id, a subject) comes back as it is, without
    // the scalar walk: `status --all` shows several per profile.
    let plain = text.utf8.withContiguousStorageIfAvailable { bytes in
        bytes.count <= limit && bytes.allSatisfy { (0x20..<0x7F).contains($0) }
    }
    if plain == true { return text }
    var output = ""
    var count = 0
    for scalar in text.unicodeScalars {
        if count >= limit {
            output += "…"
            break
        }
        output.unicodeScalars.append(isTerminalActive(scalar) ? " " : scalar)
        count += 1
    }
    return output
}

/// Whether a character can change what a terminal shows or does rather than show itself: C0 and C1
/// controls, DEL, format characters (bidi overrides and isolates, zero-width characters, the BOM), and
/// the line and paragraph separators.
package func isTerminalActive(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return true }
    // Printable ASCII acts on nothing; no Unicode property look-up for it (a token is all ASCII).
    if scalar.value < 0x7F { return false }
    switch scalar.properties.generalCategory {
    case .format, .lineSeparator, .paragraphSeparator, .control: return true
    default: return false
    }
}
