import Foundation

/// Measures Swift source without a parser: comments and string literals (interpolations included) are blanked,
/// declarations (`func`, `init`, `deinit`, `subscript`, computed `var`) are found by keyword, and their bodies
/// by brace matching. Lines are counted from the declaration's keyword to the closing brace.
struct SourceShape {
    struct Function: Equatable, CustomStringConvertible {
        let name: String
        let line: Int
        let lines: Int
        var description: String { "\(line) \(name) (\(lines) lines)" }
    }

    private enum Mode {
        case code(parens: Int)
        case string(hashes: Int, multiline: Bool)
        case lineComment
        case blockComment(depth: Int)
    }

    private static let newline = UInt8(ascii: "\n")
    private static let quote = UInt8(ascii: "\"")
    private static let hash = UInt8(ascii: "#")
    private static let slash = UInt8(ascii: "/")
    private static let star = UInt8(ascii: "*")
    private static let backslash = UInt8(ascii: "\\")

    let code: [UInt8]
    private let lineStarts: [Int]

    init(_ source: String) {
        code = Self.blanked(Array(source.utf8))
        lineStarts = code.withUnsafeBufferPointer { code in
            var starts = [0]
            for index in 0..<code.count where code[index] == Self.newline { starts.append(index + 1) }
            return starts
        }
    }

    /// The number of lines, as `wc -l` counts them.
    var lineCount: Int { lineStarts.count - 1 + (code.last == Self.newline || code.isEmpty ? 0 : 1) }

    // MARK: - Blanking strings and comments

    /// `source` with every comment and string literal replaced by spaces; newlines are kept.
    static func blanked(_ source: [UInt8]) -> [UInt8] {
        var out = source
        out.withUnsafeMutableBufferPointer { out in
            source.withUnsafeBufferPointer { source in
                var blanker = Blanker(source: source, out: out)
                blanker.run()
            }
        }
        return out
    }

    private struct Blanker {
        let source: UnsafeBufferPointer<UInt8>
        let out: UnsafeMutableBufferPointer<UInt8>
        var index = 0
        var stack: [Mode] = [.code(parens: 0)]

        init(source: UnsafeBufferPointer<UInt8>, out: UnsafeMutableBufferPointer<UInt8>) {
            self.source = source
            self.out = out
        }

        func at(_ offset: Int) -> UInt8 { index + offset < source.count ? source[index + offset] : 0 }

        mutating func blank(_ count: Int) {
            for position in index..<min(index + count, source.count) where out[position] != newline {
                out[position] = 0x20
            }
            index += count
        }

        func hashes(_ count: Int, from offset: Int) -> Bool {
            for position in 0..<count where at(offset + position) != hash { return false }
            return true
        }

        mutating func run() {
            while index < source.count {
                switch stack[stack.count - 1] {
                case .code(let parens): code(parens: parens)
                case .string(let hashes, let multiline): string(hashes: hashes, multiline: multiline)
                case .lineComment:
                    while index < source.count, source[index] != newline { blank(1) }
                    stack.removeLast()
                case .blockComment(let depth): blockComment(depth: depth)
                }
            }
        }

        mutating func code(parens: Int) {
            let inInterpolation = stack.count > 1
            if at(0) == slash, at(1) == slash {
                stack.append(.lineComment)
                blank(2)
            } else if at(0) == slash, at(1) == star {
                stack.append(.blockComment(depth: 1))
                blank(2)
            } else if (at(0) == quote || at(0) == hash), let (hashes, multiline, length) = stringOpening(source, at: index) {
                stack.append(.string(hashes: hashes, multiline: multiline))
                blank(length)
            } else if inInterpolation, at(0) == UInt8(ascii: "(") {
                stack[stack.count - 1] = .code(parens: parens + 1)
                blank(1)
            } else if inInterpolation, at(0) == UInt8(ascii: ")") {
                if parens == 0 { stack.removeLast() } else { stack[stack.count - 1] = .code(parens: parens - 1) }
                blank(1)
            } else if inInterpolation {
                blank(1)
            } else {
                // Plain code: skip to the next byte that could open a comment or a string.
                index += 1
                while index < source.count, source[index] != slash, source[index] != quote, source[index] != hash { index += 1 }
            }
        }

        mutating func string(hashes: Int, multiline: Bool) {
            let delimiter = multiline ? 3 : 1
            if at(0) == backslash, self.hashes(hashes, from: 1) {
                if at(1 + hashes) == UInt8(ascii: "(") {
                    blank(2 + hashes)
                    stack.append(.code(parens: 0))
                } else {
                    blank(hashes == 0 ? 2 : 1 + hashes)
                }
            } else if at(0) == quote, !multiline || (at(1) == quote && at(2) == quote), self.hashes(hashes, from: delimiter) {
                stack.removeLast()
                blank(delimiter + hashes)
            } else {
                // Plain string text: blank up to the next byte that could escape or close.
                repeat {
                    if out[index] != newline { out[index] = 0x20 }
                    index += 1
                } while index < source.count && source[index] != backslash && source[index] != quote
            }
        }

        mutating func blockComment(depth: Int) {
            if at(0) == slash, at(1) == star {
                stack[stack.count - 1] = .blockComment(depth: depth + 1)
                blank(2)
            } else if at(0) == star, at(1) == slash {
                if depth == 1 { stack.removeLast() } else { stack[stack.count - 1] = .blockComment(depth: depth - 1) }
                blank(2)
            } else {
                blank(1)
            }
        }
    }

    /// A string literal's opening delimiter at `index` (`"`, `"""`, `#"`, `##"""` …): its hashes, whether it is
    /// multi-line, and its length.
    private static func stringOpening(_ source: UnsafeBufferPointer<UInt8>, at index: Int) -> (Int, Bool, Int)? {
        var end = index
        while end < source.count, source[end] == hash { end += 1 }
        guard end < source.count, source[end] == quote else { return nil }
        let multiline = end + 2 < source.count && source[end + 1] == quote && source[end + 2] == quote
        let hashes = end - index
        return (hashes, multiline, hashes + (multiline ? 3 : 1))
    }

    // MARK: - Finding declarations

    private static let stopWords: Set<String> = [
        "func", "init", "var", "let", "deinit", "subscript", "case", "static", "private", "public", "package",
        "internal", "fileprivate", "mutating", "nonisolated", "override", "final", "struct", "class", "enum",
        "protocol", "extension", "typealias", "associatedtype", "convenience", "required", "lazy", "import",
    ]

    private static let keywordStarts: Set<UInt8> = Set("fidsv".utf8)

    private static func isIdentifier(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
    }

    /// The word starting at `index` and the index after it.
    private func word(at index: Int) -> (String, Int) {
        var end = index
        while end < code.count, Self.isIdentifier(code[end]) { end += 1 }
        return (String(decoding: code[index..<end], as: UTF8.self), end)
    }

    private func skipSpaces(_ index: Int, newlines: Bool = true) -> Int {
        var index = index
        while index < code.count, code[index] == 0x20 || code[index] == 0x09 || (newlines && code[index] == Self.newline) {
            index += 1
        }
        return index
    }

    private func line(of index: Int) -> Int {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= index { low = middle } else { high = middle - 1 }
        }
        return low + 1
    }

    /// Every declaration with a body, in source order.
    func functions() -> [Function] {
        var found: [Function] = []
        var index = 0
        while index < code.count {
            guard Self.isIdentifier(code[index]), index == 0 || !Self.isIdentifier(code[index - 1]) else {
                index += 1
                continue
            }
            var end = index
            while end < code.count, Self.isIdentifier(code[end]) { end += 1 }
            guard (3...9).contains(end - index), Self.keywordStarts.contains(code[index]) else {
                index = end
                continue
            }
            let keyword = String(decoding: code[index..<end], as: UTF8.self)
            let qualified = index > 0 && (code[index - 1] == UInt8(ascii: ".") || code[index - 1] == UInt8(ascii: "`"))
            if !qualified, let function = declaration(keyword, at: index, after: end) { found.append(function) }
            index = end
        }
        return found
    }

    private func declaration(_ keyword: String, at start: Int, after end: Int) -> Function? {
        var index = skipSpaces(end, newlines: false)
        var name = keyword
        switch keyword {
        case "func":
            let nameStart = index
            while index < code.count, ![UInt8(ascii: "("), UInt8(ascii: "<"), 0x20, Self.newline].contains(code[index]) {
                index += 1
            }
            name = String(decoding: code[nameStart..<index], as: UTF8.self)
        case "init":
            if index < code.count, code[index] == UInt8(ascii: "?") || code[index] == UInt8(ascii: "!") { index += 1 }
        case "subscript", "deinit":
            break
        case "var":
            return computedProperty(at: start, nameAt: index)
        default:
            return nil
        }
        if keyword != "deinit" {
            index = skipGenerics(skipSpaces(index))
            guard index < code.count, code[index] == UInt8(ascii: "(") else { return nil }
            let close = matching(from: index, open: UInt8(ascii: "("), close: UInt8(ascii: ")"))
            name += "(" + labels(index + 1..<close).map { $0 + ":" }.joined() + ")"
            index = close + 1
        }
        guard let open = bodyOpening(from: index) else { return nil }
        return body(name: name, declaration: start, open: open)
    }

    /// A `var name: Type {` on one line, without `=`: a computed property.
    private func computedProperty(at start: Int, nameAt index: Int) -> Function? {
        let (name, end) = word(at: index)
        guard !name.isEmpty else { return nil }
        var cursor = end
        var depth = 0
        while cursor < code.count, code[cursor] != Self.newline {
            switch code[cursor] {
            case UInt8(ascii: "("), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: "="), UInt8(ascii: "}"), UInt8(ascii: ","): if depth == 0 { return nil }
            case UInt8(ascii: "{"): if depth == 0 { return body(name: name, declaration: start, open: cursor) }
            default: break
            }
            cursor += 1
        }
        return nil
    }

    private func skipGenerics(_ index: Int) -> Int {
        guard index < code.count, code[index] == UInt8(ascii: "<") else { return index }
        var depth = 0
        var cursor = index
        while cursor < code.count {
            if code[cursor] == UInt8(ascii: "<") { depth += 1 }
            if code[cursor] == UInt8(ascii: ">"), code[cursor - 1] != UInt8(ascii: "-") {
                depth -= 1
                if depth == 0 { return cursor + 1 }
            }
            cursor += 1
        }
        return cursor
    }

    /// The index of the bracket closing the one at `index`.
    private func matching(from index: Int, open: UInt8, close: UInt8) -> Int {
        var depth = 0
        for cursor in index..<code.count {
            if code[cursor] == open { depth += 1 }
            if code[cursor] == close {
                depth -= 1
                if depth == 0 { return cursor }
            }
        }
        return code.count - 1
    }

    /// The argument labels of a parameter list: each parameter's first word (`_` included).
    private func labels(_ range: Range<Int>) -> [String] {
        var labels: [String] = []
        var depth = 0
        var expectLabel = true
        var cursor = range.lowerBound
        while cursor < range.upperBound {
            let byte = code[cursor]
            if expectLabel, depth == 0, Self.isIdentifier(byte) {
                let (label, end) = word(at: cursor)
                labels.append(label)
                expectLabel = false
                cursor = end
                continue
            }
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "<"): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ">"): if code[cursor - 1] != UInt8(ascii: "-") { depth -= 1 }
            case UInt8(ascii: ","): if depth == 0 { expectLabel = true }
            default: break
            }
            cursor += 1
        }
        return labels
    }

    /// The `{` opening a declaration's body after its signature, or nil when it has none (a requirement).
    private func bodyOpening(from index: Int) -> Int? {
        var depth = 0
        var cursor = index
        while cursor < code.count {
            let byte = code[cursor]
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: "{"): if depth == 0 { return cursor }
            case UInt8(ascii: "}"): if depth == 0 { return nil }
            default:
                if depth == 0, Self.isIdentifier(byte), !Self.isIdentifier(code[cursor - 1]) {
                    let (found, end) = word(at: cursor)
                    if Self.stopWords.contains(found) { return nil }
                    cursor = end
                    continue
                }
            }
            cursor += 1
        }
        return nil
    }

    private func body(name: String, declaration start: Int, open: Int) -> Function {
        let close = matching(from: open, open: UInt8(ascii: "{"), close: UInt8(ascii: "}"))
        let first = line(of: start)
        return Function(name: name, line: first, lines: line(of: close) - first + 1)
    }

    // MARK: - Top-level code

    private static let blockDeclarations: Set<String> = ["func", "struct", "class", "enum", "extension", "protocol", "actor"]
    private static let modifiers: Set<String> = ["private", "fileprivate", "public", "package", "internal", "final", "nonisolated"]

    /// After any attributes and modifiers at `index`: the declaration's keyword and the index after it.
    private func declarationKeyword(at index: Int) -> (String, Int) {
        var cursor = index
        while true {
            if cursor < code.count, code[cursor] == UInt8(ascii: "@") {
                let (_, end) = word(at: cursor + 1)
                cursor = skipSpaces(end, newlines: false)
                continue
            }
            let (found, end) = word(at: cursor)
            guard Self.modifiers.contains(found) else { return (found, end) }
            cursor = skipSpaces(end, newlines: false)
        }
    }

    /// The statements of a `main.swift` outside its declarations (functions, types, imports, `#if`), as one
    /// function named "top-level code": they run as one, so they are held to the same limit. Lines of a
    /// string literal count; blank and comment-only lines do not. `original` is the source `code` was made from.
    func topLevelCode(original: String) -> Function {
        let originalLines = original.split(separator: "\n", omittingEmptySubsequences: false)
        var counted = 0
        var first: Int?
        var index = 0
        var line = 0
        while index < code.count {
            let end = code[index...].firstIndex(of: Self.newline) ?? code.count
            let start = skipSpaces(index, newlines: false)
            let (keyword, afterKeyword) = declarationKeyword(at: start)
            if Self.blockDeclarations.contains(keyword), let open = bodyOpening(from: afterKeyword) {
                // A declaration with a body: its lines are its own, not top-level code.
                let close = matching(from: open, open: UInt8(ascii: "{"), close: UInt8(ascii: "}"))
                let next = code[close...].firstIndex(of: Self.newline) ?? code.count
                line = self.line(of: next)
                index = next + 1
                continue
            }
            let directive = start < code.count && code[start] == UInt8(ascii: "#")
            let text = line < originalLines.count ? originalLines[line].drop { $0 == " " || $0 == "\t" } : ""
            if !directive && keyword != "import" && keyword != "typealias" && !text.isEmpty && !text.hasPrefix("//") {
                counted += 1
                if first == nil { first = line + 1 }
            }
            line += 1
            index = end + 1
        }
        return Function(name: "top-level code", line: first ?? 1, lines: counted)
    }
}
