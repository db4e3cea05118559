import PingBase

/// The `users:` list of a kubeconfig, edited as text: one user entry added or replaced, every other line
/// (clusters, contexts, comments, other users) left byte for byte as it was. pingcli has no YAML parser,
/// so it edits only the shape kubectl itself writes (a block sequence under a top-level `users:` key, or
/// `users: []`/`null`, or no `users:` at all) and refuses any other (a JSON kubeconfig, a flow sequence)
/// rather than guess. What it writes is checked by kubectl when kubectl is on PATH.
package enum KubeconfigUsers {
    /// The exec entry pingcli writes for a user: kubectl runs `command args…` with `env` added.
    package struct ExecEntry: Equatable, Sendable {
        package var name: String
        package var apiVersion: String
        package var command: String
        package var args: [String]
        package var env: [(name: String, value: String)]

        package static func == (a: ExecEntry, b: ExecEntry) -> Bool {
            a.name == b.name && a.apiVersion == b.apiVersion && a.command == b.command && a.args == b.args
                && a.env.map(\.name) == b.env.map(\.name) && a.env.map(\.value) == b.env.map(\.value)
        }

        /// The entry as a block sequence item at `indent` spaces, every scalar double-quoted (JSON's string
        /// syntax, which YAML reads as is), in the order `kubectl config view` shows the fields.
        package func lines(indent: Int = 0) -> [String] {
            let pad = String(repeating: " ", count: indent)
            var lines = [
                "- name: \(quoted(name))", "  user:", "    exec:", "      apiVersion: \(quoted(apiVersion))", "      args:",
            ]
            lines += args.map { "      - \(quoted($0))" }
            lines.append("      command: \(quoted(command))")
            lines.append(env.isEmpty ? "      env: []" : "      env:")
            for variable in env { lines += ["      - name: \(quoted(variable.name))", "        value: \(quoted(variable.value))"] }
            // kubectl 1.22+ asks for it with v1 (and hands over the terminal); older ones ignore it.
            lines.append("      interactiveMode: IfAvailable")
            return lines.map { pad + $0 }
        }
    }

    /// The `users:` key setup adds to a kubeconfig that had none; `--remove` takes it out again with the last
    /// item (a YAML comment: kubectl reads the key as it reads `users:`).
    static let addedKey = "users: # added by pingcli setup kubectl"
    /// The `users:` key setup wrote over an empty list (`users: []`, `null`, `~`), the person's line after the
    /// comment: `--remove` puts that line back with the last item.
    static let replacedKeyPrefix = "users: # pingcli setup kubectl; was: users:"

    /// What `upsert` did.
    package enum Outcome: Equatable, Sendable {
        case added
        case replaced
        case unchanged
    }

    /// Why a kubeconfig's text cannot be edited safely.
    package struct Unsupported: Error, Equatable, Sendable {
        package var reason: String
    }

    /// `text` with `entry` in its `users:` list (replacing the item of the same name), and what changed.
    package static func upsert(_ entry: ExecEntry, into text: String) throws(Unsupported) -> (text: String, outcome: Outcome) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        if lines.contains(where: { $0.hasPrefix("---") || $0.hasPrefix("\t") }) || text.contains("\r") {
            throw Unsupported(reason: "it holds a document marker, a tab or a carriage return")
        }
        let keys = lines.indices.filter { isKey("users", lines[$0]) }
        guard keys.count <= 1 else { throw Unsupported(reason: "it has more than one top-level users key") }
        guard let key = keys.first else {
            if let first = lines.first(where: { !isSkippable($0) }), !first.first!.isLetter {
                throw Unsupported(reason: "it is not a YAML mapping (a JSON kubeconfig?)")
            }
            return (joined(lines + [addedKey] + entry.lines()), .added)
        }
        let inline = inlineValue(lines[key])
        if ["[]", "null", "~"].contains(inline) {
            lines.replaceSubrange(key...key, with: [replacedKeyPrefix + lines[key].dropFirst("users:".count)] + entry.lines())
            return (joined(lines), .added)
        }
        guard inline.isEmpty else { throw Unsupported(reason: "its users list is not a YAML block sequence") }
        return try upsertBlock(entry, lines: lines, key: key)
    }

    /// The block after `users:` at `key`: items found, then the named one replaced or a new one appended.
    private static func upsertBlock(_ entry: ExecEntry, lines: [String], key: Int) throws(Unsupported) -> (String, Outcome) {
        let block = try items(lines, key: key)
        guard !block.items.isEmpty else {
            var result = lines
            result.insert(contentsOf: entry.lines(), at: key + 1)
            return (joined(result), .added)
        }
        let rendered = entry.lines(indent: block.indent)
        var result = lines
        if let item = block.items.first(where: { name(of: lines[$0], indent: block.indent) == entry.name }) {
            if Array(lines[item]) == rendered { return (joined(lines), .unchanged) }
            result.replaceSubrange(item, with: rendered)
            return (joined(result), .replaced)
        }
        result.insert(contentsOf: rendered, at: block.items.last?.upperBound ?? block.end)
        return (joined(result), .added)
    }

    /// The items of the block sequence after `users:` at `key`: each from its "- " line to the last line
    /// indented deeper (trailing blank and comment lines left out), their indentation, and where the block ends.
    static func items(_ lines: [String], key: Int) throws(Unsupported) -> (items: [Range<Int>], indent: Int, end: Int) {
        var end = key + 1
        while end < lines.count, isSkippable(lines[end]) || lines[end].hasPrefix(" ") || lines[end].hasPrefix("- ") || lines[end] == "-" {
            end += 1
        }
        let body = (key + 1)..<end
        guard let firstItem = body.first(where: { !isSkippable(lines[$0]) }) else { return ([], 0, end) }
        let indent = lines[firstItem].prefix { $0 == " " }.count
        guard lines[firstItem].dropFirst(indent).hasPrefix("- ") else {
            throw Unsupported(reason: "its users list is not a YAML block sequence")
        }
        var items: [Range<Int>] = []
        var index = firstItem
        while index < end {
            let line = lines[index]
            if isSkippable(line) {
                index += 1
                continue
            }
            let depth = line.prefix { $0 == " " }.count
            if depth == indent && line.dropFirst(indent).hasPrefix("-") {
                items.append(index..<(index + 1))
            } else if depth > indent, let last = items.popLast() {
                items.append(last.lowerBound..<(index + 1))
            } else {
                throw Unsupported(reason: "its users list is indented in a way pingcli does not edit")
            }
            index += 1
        }
        return (items, indent, end)
    }

    /// The `name:` of a sequence item (on its `- ` line or one level in), unquoted; nil when it has none
    /// pingcli can read.
    package static func name(of item: ArraySlice<String>, indent: Int) -> String? {
        for line in item {
            let rest = line.dropFirst(indent)
            let field = rest.hasPrefix("- ") ? rest.dropFirst(2) : rest.hasPrefix("  ") ? rest.dropFirst(2) : nil
            guard let field, field.hasPrefix("name:") else { continue }
            return scalar(String(field.dropFirst(5)))
        }
        return nil
    }

    /// A YAML scalar as kubectl writes names: plain (to a ` #` comment), single- or double-quoted.
    package static func scalar(_ text: String) -> String? {
        let value = Substring(text).drop { $0 == " " }
        if value.hasPrefix("\"") {
            // To the first quote no backslash escapes, read with JSON's string syntax (a subset of YAML's).
            var escaped = false
            guard
                let end = value.dropFirst().firstIndex(where: { character in
                    defer { escaped = !escaped && character == "\\" }
                    return !escaped && character == "\""
                })
            else { return nil }
            guard scalarText(value[value.index(after: end)...]).isEmpty else { return nil }
            return JSONReader.parse(Array(value[...end].utf8))?.stringValue
        }
        if value.hasPrefix("'") {
            let body = value.dropFirst()
            var index = body.startIndex
            var result = ""
            while index < body.endIndex {
                if body[index] == "'" {
                    let next = body.index(after: index)
                    guard next < body.endIndex, body[next] == "'" else {
                        return scalarText(body[next...]).isEmpty ? result : nil
                    }
                    result.append("'")
                    index = body.index(after: next)
                } else {
                    result.append(body[index])
                    index = body.index(after: index)
                }
            }
            return nil
        }
        let plain = scalarText(value)
        return plain.isEmpty ? nil : plain
    }

    package static func quoted(_ text: String) -> String { JSONValue.string(text).rendered(pretty: false) }

    /// A top-level `NAME:` key (column 0).
    package static func isKey(_ name: String, _ line: String) -> Bool {
        line.hasPrefix(name + ":") || line.hasPrefix("\"\(name)\":")
    }

    /// What follows `users:` on its line, without a comment.
    package static func inlineValue(_ line: String) -> String {
        let value = line.drop { $0 != ":" }.dropFirst()
        return scalarText(value)
    }

    private static func scalarText(_ value: Substring) -> String {
        var text = value.drop { $0 == " " }
        if text.hasPrefix("#") { return "" }
        if let comment = text.firstRange(ofText: " #") { text = text[..<comment.lowerBound] }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }

    package static func isSkippable(_ line: String) -> Bool {
        let trimmed = line.drop { $0 == " " }
        return trimmed.isEmpty || trimmed.hasPrefix("#")
    }

    package static func joined(_ lines: [String]) -> String { lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n" }
}
