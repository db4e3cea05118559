import PingBase

/// The AWS config file (`~/.aws/config`, INI as botocore's RawConfigParser reads it): one profile's
/// `credential_process` line set or removed, every other line left exactly as it was. Pure: text in,
/// text out. Sections are `[default]` and `[profile NAME]`; keys are matched without regard to case, as
/// configparser does; a key's continuation lines (indented lines after it) go with it.
package struct AWSConfigFile: Equatable {
    package var lines: [String]
    /// Whether the text ended with a newline (kept as it was).
    package var endsWithNewline: Bool

    package init(_ text: String) {
        endsWithNewline = text.isEmpty || text.hasSuffix("\n")
        var lines = text.splitText(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if text.hasSuffix("\n") || text.isEmpty { lines.removeLast() }
        self.lines = lines
    }

    package var text: String { lines.joined(separator: "\n") + (endsWithNewline && !lines.isEmpty ? "\n" : "") }

    /// The section header for an AWS CLI profile.
    package static func header(_ profile: String) -> String { profile == "default" ? "[default]" : "[profile \(profile)]" }

    package static let key = "credential_process"

    /// Why the file cannot be edited safely.
    package enum Failure: Error, Equatable {
        /// configparser refuses a section given twice: so does pingcli, rather than pick one.
        case duplicateSection(String)
    }

    /// The section's name as configparser reads its header line (`[profile work]` → `profile work`).
    static func sectionName(_ line: String) -> String? {
        let trimmed = line.trimmingWhitespace
        guard trimmed.hasPrefix("["), let close = trimmed.lastIndex(of: "]") else { return nil }
        let inner = trimmed[trimmed.index(after: trimmed.startIndex)..<close]
        let words = inner.splitText(separator: " ").filter { !$0.isEmpty }
        return words.joined(separator: " ")
    }

    /// The range of lines of the profile's section (its header first), nil when there is none.
    package func section(_ profile: String) throws(Failure) -> Range<Int>? {
        let wanted = profile == "default" ? ["default", "profile default"] : ["profile \(profile)"]
        var found: Range<Int>? = nil
        var index = 0
        while index < lines.count {
            guard let name = Self.sectionName(lines[index]), wanted.contains(name) else {
                index += 1
                continue
            }
            guard found == nil else { throw .duplicateSection(Self.header(profile)) }
            var end = index + 1
            while end < lines.count, Self.sectionName(lines[end]) == nil { end += 1 }
            found = index..<end
            index = end
        }
        return found
    }

    /// The key's value in the section (continuation lines not included), nil when unset.
    package func value(in profile: String) throws(Failure) -> String? {
        guard let section = try section(profile), let (line, _) = keyLines(in: section) else { return nil }
        let text = lines[line]
        guard let equals = text.firstIndex(where: { $0 == "=" || $0 == ":" }) else { return nil }
        return String(text[text.index(after: equals)...]).trimmingWhitespace
    }

    /// The key's line in `section` and how many continuation lines follow it.
    func keyLines(in section: Range<Int>) -> (Int, Int)? {
        for index in section.dropFirst() {
            let text = lines[index]
            guard let first = text.first, first != " ", first != "\t", first != "#", first != ";",
                let equals = text.firstIndex(where: { $0 == "=" || $0 == ":" }),
                text[..<equals].trimmingWhitespace.lowercased() == Self.key
            else { continue }
            var count = 0
            while index + count + 1 < section.upperBound, let next = lines[index + count + 1].first, next == " " || next == "\t" {
                count += 1
            }
            return (index, count)
        }
        return nil
    }

    /// Sets the profile's `credential_process` to `command`; true when the text changed.
    package mutating func set(_ profile: String, command: String) throws(Failure) -> Bool {
        let line = "\(Self.key) = \(command)"
        guard let section = try section(profile) else {
            if let last = lines.last, !last.trimmingWhitespace.isEmpty { lines.append("") }
            lines += [Self.header(profile), line]
            endsWithNewline = true
            return true
        }
        if let (index, continuation) = keyLines(in: section) {
            guard lines[index] != line || continuation > 0 else { return false }
            lines.replaceSubrange(index...(index + continuation), with: [line])
            return true
        }
        // After the section's last line that is not blank, so a blank line before the next section stays.
        var insert = section.upperBound
        while insert > section.lowerBound + 1, lines[insert - 1].trimmingWhitespace.isEmpty { insert -= 1 }
        lines.insert(line, at: insert)
        return true
    }

    /// Removes the profile's `credential_process`, and the section's header when nothing else is left in
    /// it; true when the text changed.
    package mutating func remove(_ profile: String) throws(Failure) -> Bool {
        guard let section = try section(profile), let (index, continuation) = keyLines(in: section) else { return false }
        lines.removeSubrange(index...(index + continuation))
        let rest = (section.lowerBound + 1)..<(section.upperBound - continuation - 1)
        if rest.allSatisfy({ lines[$0].trimmingWhitespace.isEmpty }) {
            // Only the header (and blank lines) left: the section was pingcli's. One blank line before it goes too.
            var start = section.lowerBound
            if start > 0, lines[start - 1].trimmingWhitespace.isEmpty { start -= 1 }
            lines.removeSubrange(start..<(section.lowerBound + 1))
        }
        return true
    }
}
