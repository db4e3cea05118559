extension String {
    /// Every occurrence of `target` replaced (FoundationEssentials-free).
    package func replacingAll(_ target: Character, with replacement: String) -> String {
        var output = ""
        for character in self { output += character == target ? replacement : String(character) }
        return output
    }
}
