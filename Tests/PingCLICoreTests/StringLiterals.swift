/// The string literals of a Swift source file, without a parser: comments are skipped, and an
/// interpolation's code (`\(…)`) is scanned as code, so a literal nested in it is a literal of its own.
/// Each literal's text keeps its escapes as written and shows an interpolation as `\u{1}`.
struct StringLiterals {
    struct Literal: Equatable {
        let line: Int
        let text: String
    }

    private enum Mode {
        /// Code; `parens`: unclosed `(` since an interpolation began (nil at the top level).
        case code(parens: Int?)
        case string(hashes: Int, multiline: Bool, start: Int, text: [UInt8])
    }

    private(set) var literals: [Literal] = []
    private let source: [UInt8]
    private var index = 0
    private var line = 1
    private var stack: [Mode] = [.code(parens: nil)]

    init(_ text: String) {
        source = Array(text.utf8)
        run()
    }

    private func at(_ offset: Int) -> UInt8? { index + offset < source.count ? source[index + offset] : nil }
    private func starts(with text: String) -> Bool { Array(text.utf8).enumerated().allSatisfy { at($0.offset) == $0.element } }

    private mutating func advance(_ count: Int = 1) {
        for _ in 0..<count where index < source.count {
            if source[index] == UInt8(ascii: "\n") { line += 1 }
            index += 1
        }
    }

    private mutating func run() {
        while index < source.count {
            switch stack[stack.count - 1] {
            case .code(let parens): code(parens)
            case .string(let hashes, let multiline, let start, let text): string(hashes, multiline, start, text)
            }
        }
    }

    private mutating func code(_ parens: Int?) {
        if starts(with: "//") {
            while let byte = at(0), byte != UInt8(ascii: "\n") { advance() }
        } else if starts(with: "/*") {
            var depth = 0
            repeat {
                if starts(with: "/*") {
                    depth += 1
                    advance(2)
                } else if starts(with: "*/") {
                    depth -= 1
                    advance(2)
                } else {
                    advance()
                }
            } while depth > 0 && index < source.count
        } else if at(0) == UInt8(ascii: "#") || at(0) == UInt8(ascii: "\"") {
            var hashes = 0
            while at(hashes) == UInt8(ascii: "#") { hashes += 1 }
            guard at(hashes) == UInt8(ascii: "\"") else {
                advance(max(hashes, 1))
                return
            }
            advance(hashes)
            let multiline = starts(with: "\"\"\"")
            advance(multiline ? 3 : 1)
            stack.append(.string(hashes: hashes, multiline: multiline, start: line, text: []))
        } else if let parens, at(0) == UInt8(ascii: "(") {
            stack[stack.count - 1] = .code(parens: parens + 1)
            advance()
        } else if let parens, at(0) == UInt8(ascii: ")") {
            advance()
            if parens == 0 { stack.removeLast() } else { stack[stack.count - 1] = .code(parens: parens - 1) }
        } else {
            advance()
        }
    }

    private mutating func string(_ hashes: Int, _ multiline: Bool, _ start: Int, _ text: [UInt8]) {
        var text = text
        let close = (multiline ? "\"\"\"" : "\"") + String(repeating: "#", count: hashes)
        let escape = "\\" + String(repeating: "#", count: hashes)
        if starts(with: close) {
            advance(close.utf8.count)
            stack.removeLast()
            literals.append(Literal(line: start, text: String(decoding: text, as: UTF8.self)))
            return
        }
        if starts(with: escape + "(") {
            advance(escape.utf8.count + 1)
            text.append(1)
            stack[stack.count - 1] = .string(hashes: hashes, multiline: multiline, start: start, text: text)
            stack.append(.code(parens: 0))
            return
        }
        let step = starts(with: escape) ? escape.utf8.count + 1 : 1
        text.append(contentsOf: source[index..<min(index + step, source.count)])
        advance(step)
        stack[stack.count - 1] = .string(hashes: hashes, multiline: multiline, start: start, text: text)
    }
}
