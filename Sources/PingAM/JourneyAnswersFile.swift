import PingBase

/// `login --answers FILE`: answers to a journey's prompts for a script, one `PROMPT=VALUE` a line.
/// The prompt is matched with the text AM shows, ignoring case, spaces around it and a final `:`; a
/// choice or a confirmation is answered by its option's text or its number in the menu (from 1); a
/// confirmation without a prompt is named by its options (`Yes/No`). Blank lines and lines starting
/// with `#` are skipped. The file is read through the file gate as a secret (this user's, mode 0600)
/// by the command; this is the gate for its contents, whose errors name lines, never values.
public struct JourneyAnswersFile: Sendable, Equatable {
    /// Normalised prompt → value, in file order.
    private var answers: [(prompt: String, value: String)]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.answers.map(\.prompt) == rhs.answers.map(\.prompt) && lhs.answers.map(\.value) == rhs.answers.map(\.value)
    }

    package static let maximumBytes = 64 * 1024
    package static let maximumLines = 256

    public init(_ bytes: [UInt8]) throws(JourneyAnswersError) {
        guard bytes.count <= Self.maximumBytes else { throw .tooLarge }
        var answers: [(prompt: String, value: String)] = []
        // Lines by bytes: to a Swift string, CR LF is one character, which a split on LF would miss.
        for (index, rawLine) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            guard let line = validUTF8String(rawLine.last == 0x0D ? rawLine.dropLast() : rawLine) else { throw .notUTF8 }
            let trimmed = line.trimmingWhitespace
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else { throw .line(index + 1, "has no PROMPT=VALUE") }
            let prompt = Self.normalised(String(line[..<equals]))
            let value = String(line[line.index(after: equals)...])
            guard !prompt.isEmpty else { throw .line(index + 1, "has no prompt before =") }
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw .line(index + 1, "has a control character in its value")
            }
            guard !answers.contains(where: { $0.prompt == prompt }) else {
                throw .line(index + 1, "answers a prompt an earlier line answers")
            }
            answers.append((prompt, value))
            guard answers.count <= Self.maximumLines else { throw .tooLarge }
        }
        self.answers = answers
    }

    /// A prompt as the file and the server's text are compared: trimmed, a final `:` dropped, lower case.
    package static func normalised(_ prompt: String) -> String {
        var text = prompt.trimmingWhitespace
        while text.hasSuffix(":") { text = String(text.dropLast()).trimmingWhitespace }
        return text.lowercased()
    }

    /// The value for the prompt `prompt`, if the file has one.
    public func value(for prompt: String) -> String? {
        let key = Self.normalised(prompt)
        return answers.first { $0.prompt == key }?.value
    }

    /// The option `value` names among `options`: by its text (ignoring case and spaces around it) or
    /// by its number in the menu, from 1.
    public static func option(_ value: String, in options: [String]) -> Int? {
        let wanted = normalised(value)
        if let index = options.firstIndex(where: { normalised($0) == wanted }) { return index }
        if let number = Int(value.trimmingWhitespace), (1...options.count).contains(number) { return number - 1 }
        return nil
    }

    /// How a confirmation without a prompt is named in the file: its options joined by `/`.
    public static func confirmationName(_ options: [String]) -> String {
        options.map { $0.trimmingWhitespace }.joined(separator: "/")
    }
}

/// Why an answers file was refused.
public enum JourneyAnswersError: Error, Sendable, Equatable {
    case tooLarge
    case notUTF8
    /// A line number and what is wrong with it (never its value: it may be a password).
    case line(Int, String)

    public var message: String {
        switch self {
        case .tooLarge: "it is larger than 64 KiB or has more than 256 answers"
        case .notUTF8: "it is not UTF-8 text"
        case .line(let number, let problem): "line \(number) \(problem)"
        }
    }
}
