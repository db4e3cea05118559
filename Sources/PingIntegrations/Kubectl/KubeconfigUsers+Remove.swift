/// `setup kubectl --remove`: the user entry setup wrote, taken out of the kubeconfig's text, every other
/// line left byte for byte as it was.
extension KubeconfigUsers {
    /// `text` without the user item named `name`, when `isOurs` says that item (its lines) is the one
    /// setup wrote; nil when there is no item of that name. A list left empty becomes `users: []`.
    package static func remove(
        named name: String, from text: String, isOurs: (ArraySlice<String>, _ indent: Int) -> Bool
    ) throws(Unsupported) -> (text: String, ours: Bool)? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard let key = lines.indices.first(where: { isKey("users", lines[$0]) }), inlineValue(lines[key]).isEmpty else { return nil }
        let block = try items(lines, key: key)
        guard let item = block.items.first(where: { self.name(of: lines[$0], indent: block.indent) == name }) else { return nil }
        guard isOurs(lines[item], block.indent) else { return (text, false) }
        lines.removeSubrange(item)
        if block.items.count == 1 { lines[key] = "users: []" }
        return (joined(lines), true)
    }
}
