import Foundation
import Testing

/// One example in the documentation: a command line of a shell block (its `\` and `|` continuations
/// joined), or a whole block that is not a list of commands (a transcript, JSON, YAML, an output line).
struct DocExample: Hashable, CustomStringConvertible {
    /// The document, as a path from the repository root, or `pingcli --help-man` for the man page.
    let document: String
    /// The first line of the example in the document (1-based; for the man page, in `--help-man`'s output).
    let line: Int
    /// The example as written, lines joined with newlines.
    let text: String

    /// What the inventory is keyed by: a command line with its whitespace collapsed; for a block of more
    /// than one line, its language, first line and a hash of the whole (FNV-1a of the collapsed text), so
    /// any change to it is a new key.
    let key: String

    var description: String { "\(document):\(line): \(key)" }
}

enum DocExamples {
    /// The documents whose examples must each be run (issue 23): the man page comes from the binary.
    static let documents = ["docs/usage.md", "docs/configuration.md", "docs/exit-codes.md", "README.md"]
    static let manPage = "pingcli --help-man"

    /// Whitespace runs collapsed to one space, the ends trimmed.
    static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
    }

    /// 64-bit FNV-1a, in hex.
    static func fnv(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    static func blockKey(language: String, lines: [String]) -> String {
        let first = collapsed(lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? "")
        return "\(language.isEmpty ? "plain" : language) block \"\(first)\" #\(fnv(collapsed(lines.joined(separator: "\n"))))"
    }

    /// The examples of one Markdown document: every fenced block (also indented ones, inside a list).
    /// A `sh` block without a `$ ` prompt line gives one example per command line (comment and blank lines
    /// skipped); any other block (`$ ` transcripts, json, yaml, text, none) is one example.
    static func extract(markdown: String, document: String) -> [DocExample] {
        let lines = markdown.components(separatedBy: "\n")
        var examples: [DocExample] = []
        var index = 0
        while index < lines.count {
            let opening = lines[index].trimmingCharacters(in: .whitespaces)
            guard opening.hasPrefix("```") else {
                index += 1
                continue
            }
            let indent = lines[index].prefix { $0 == " " }.count
            let language = String(opening.dropFirst(3)).trimmingCharacters(in: .whitespaces)
            var body: [(Int, String)] = []
            index += 1
            while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                body.append((index + 1, String(lines[index].dropFirst(min(indent, lines[index].prefix { $0 == " " }.count)))))
                index += 1
            }
            index += 1
            let isTranscript = body.contains { $0.1.hasPrefix("$ ") }
            if language == "sh" && !isTranscript {
                examples += commands(body, document: document)
            } else if let first = body.first {
                let text = body.map(\.1).joined(separator: "\n")
                examples.append(
                    DocExample(document: document, line: first.0, text: text, key: blockKey(language: language, lines: body.map(\.1))))
            }
        }
        return examples
    }

    /// The command lines of a shell block: lines ending in `\` or `|` continue on the next one.
    static func commands(_ body: [(Int, String)], document: String) -> [DocExample] {
        var examples: [DocExample] = []
        var pending: [String] = []
        var start = 0
        for (number, line) in body {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if pending.isEmpty && (trimmed.isEmpty || trimmed.hasPrefix("#")) { continue }
            if pending.isEmpty { start = number }
            pending.append(line)
            if trimmed.hasSuffix("\\") || trimmed.hasSuffix("|") { continue }
            let text = pending.joined(separator: "\n")
            examples.append(DocExample(document: document, line: start, text: text, key: collapsed(text)))
            pending = []
        }
        return examples
    }

    /// The man page's EXAMPLES section (`.nf` … `.fi`), one example per line, roff escapes undone.
    static func extract(manPage page: String) -> [DocExample] {
        let lines = page.components(separatedBy: "\n")
        guard let section = lines.firstIndex(of: ".SH EXAMPLES") else { return [] }
        var examples: [DocExample] = []
        for index in (section + 1)..<lines.count {
            let line = lines[index]
            if line.hasPrefix(".SH") { break }
            if line.hasPrefix(".") || line.isEmpty { continue }
            let unescaped = line.hasPrefix("\\&") ? String(line.dropFirst(2)) : line
            let text = unescaped.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\e", with: "\\")
            examples.append(DocExample(document: manPage, line: index + 1, text: text, key: collapsed(text)))
        }
        return examples
    }

    /// Every example of the documents and the man page, read now.
    static func all() throws -> [DocExample] {
        var examples: [DocExample] = []
        for document in documents {
            let text = try #require(readText(DebianTools.repositoryRoot + "/" + document), "\(document) is missing")
            examples += extract(markdown: text, document: document)
        }
        let page = runProcess(Locations.pingcli, ["--help-man"], environment: [:], timeout: 60)
        #expect(page.status == 0, "\(page)")
        return examples + extract(manPage: page.stdout)
    }

    /// The example whose key is `key`, as written; the runners look their examples up by the same key as
    /// the inventory, so an example changed in the docs fails its runner until the runner is revisited.
    static func text(_ key: String) throws -> String {
        let found = try all().filter { $0.key == key }
        return try #require(found.first?.text, "no example \"\(key)\" in the docs any more: revisit its runner")
    }
}
