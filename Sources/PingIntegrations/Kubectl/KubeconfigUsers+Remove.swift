/// `setup kubectl --remove`: the user entry setup wrote, taken out of the kubeconfig's text, every other
/// line left byte for byte as it was.
extension KubeconfigUsers {
    /// `text` without the user item named `name`, when `isOurs` says that item (its lines) is the one
    /// setup wrote; nil when there is no item of that name. A list left empty becomes what it was before setup (no key, or
    /// the person's empty list) when setup's comment on the key says so, else `users: []`.
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
        if block.items.count == 1 { emptied(&lines, key: key) }
        return (joined(lines), true)
    }

    /// The `users:` key at `key` whose last item went: as it was before setup when setup's comment says
    /// (taken out when setup added it, the person's line when setup replaced an empty list), else `users: []`.
    private static func emptied(_ lines: inout [String], key: Int) {
        if lines[key] == addedKey {
            lines.remove(at: key)
        } else if lines[key].hasPrefix(replacedKeyPrefix) {
            lines[key] = "users:" + lines[key].dropFirst(replacedKeyPrefix.count)
        } else {
            lines[key] = "users: []"
        }
    }
}
