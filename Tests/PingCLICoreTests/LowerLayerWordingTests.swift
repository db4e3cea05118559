import Foundation
import Testing

@testable import PingAuthenticators
@testable import PingCommands
@testable import PingState

/// Failures are typed below the flows and worded once at the top (docs/architecture.md): no string
/// literal in the layers under the use cases names a command-line option (`--issuer`) or tells the person
/// to run a pingcli command (`pingcli login`). The next step is the flows' and the commands' to word.
@Suite("lower layers word no CLI advice")
struct LowerLayerWordingTests {
    /// The targets under the use cases (PingFlowCore and the flows over it).
    static let layers = PingModules.belowFlows

    /// Literals that may stay, as "path under Sources/" and a piece of the literal, each with its reason.
    static let allowed: [(path: String, piece: String, reason: String)] = [
        ("PingState/KeyringKey.swift", "pingcli token cache key", "the Secret Service item's label, not advice"),
        ("PingAuthenticators/OTPStore.swift", "pingcli otp accounts", "the store's associated data (AEAD), not advice"),
    ]

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources")
        .standardizedFileURL

    /// `--name` (or `--` before an interpolation) after a start, a space or punctuation: an option.
    static func namesOption(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.indices.dropLast(2).contains { index in
            let before = index == 0 ? UInt8(ascii: " ") : bytes[index - 1]
            let next = bytes[index + 2]
            return bytes[index] == UInt8(ascii: "-") && bytes[index + 1] == UInt8(ascii: "-")
                && !(before.isASCIILetter || before.isASCIIDigit || before == UInt8(ascii: "-"))
                && ((next >= UInt8(ascii: "a") && next <= UInt8(ascii: "z")) || next == 1)
        }
    }

    /// `pingcli NAME` where NAME is one of its commands, as a whole word.
    static func namesCommand(_ text: String) -> Bool {
        PingCLI.commandNames.contains { name in
            var rest = Substring(text)
            while let range = rest.range(of: "pingcli " + name) {
                let after = rest[range.upperBound...].first
                if after.map({ !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) ?? true { return true }
                rest = rest[range.upperBound...]
            }
            return false
        }
    }

    /// Advice about an environment variable: "set", "unset" or "export" before an upper-case name with an
    /// underscore (`set TPM2TOOLS_TCTI`, `unset PINGCLI_KEY_STORE`). Naming a variable as a fact ("the TPM
    /// at TPM2TOOLS_TCTI=…") is a lower layer's to do; telling the person to change it is the flows'.
    static func advisesEnvironment(_ text: String) -> Bool {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == "," || $0 == ":" }).map(String.init)
        return zip(words, words.dropFirst()).contains { verb, name in
            ["set", "unset", "export"].contains(verb.lowercased()) && isVariableName(name)
        }
    }

    /// `PINGCLI_KEY_STORE`, `TPM2TOOLS_TCTI`: upper-case letters, digits and at least one underscore (a
    /// trailing `=value` or punctuation allowed).
    static func isVariableName(_ word: String) -> Bool {
        let name = word.prefix { $0 != "=" && $0 != ")" && $0 != "." && $0 != ";" }
        guard let first = name.first, first.isUppercase, first.isASCII, name.contains("_") else { return false }
        return name.allSatisfy { ($0.isUppercase && $0.isASCII) || $0.isNumber || $0 == "_" }
    }

    /// "path:line: literal" for each literal in the lower layers that names an option or a command,
    /// with the allow-list entry it matches, if any.
    static func findings() throws -> [(report: String, entry: Int?)] {
        try layers.flatMap { layer in
            let paths = try FileManager.default.subpathsOfDirectory(atPath: sources.appendingPathComponent(layer).path)
            return try paths.filter { $0.hasSuffix(".swift") }.sorted().flatMap { file in
                let path = layer + "/" + file
                let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
                return StringLiterals(text).literals.filter {
                    namesOption($0.text) || namesCommand($0.text) || advisesEnvironment($0.text)
                }.map { literal in
                    let entry = allowed.firstIndex { $0.path == path && literal.text.contains($0.piece) }
                    return ("\(path):\(literal.line): \(literal.text)", entry)
                }
            }
        }
    }

    @Test(
        "lower-layer-wording: no literal below the use cases names a CLI option or a pingcli command or advises an environment variable, except the allow-list's"
    )
    func noAdvice() throws {
        let offending = try Self.findings().filter { $0.entry == nil }.map(\.report)
        #expect(
            offending == [],
            "throw a typed failure with the facts and word it in PingFlowCore (StoreAdvice.swift, OAuthAdvice.swift, TransportAdvice.swift)"
        )
    }

    @Test("lower-layer-wording-allow-list-current: every allow-list entry still matches a literal")
    func allowListCurrent() throws {
        let used = Set(try Self.findings().compactMap(\.entry))
        let stale = Self.allowed.indices.filter { !used.contains($0) }.map { "\(Self.allowed[$0].path) \(Self.allowed[$0].piece)" }
        #expect(stale == [], "remove these from allowed: nothing matches them any more")
    }

    /// Where the layers under the flows still make a `PingCLIError` themselves, as "path under Sources/", with
    /// the reason. PingPlatform is not among them: its files, locks and paths throw typed facts (`FileFailure`).
    static let wordedBelow: [(path: String, reason: String)] = [
        ("PingState/GitHost.swift", "the git host gate")
    ]

    /// "path:line" of each line of code (comments aside) in `layers` that names `word`.
    static func codeNaming(_ word: String, in layers: [String]) throws -> [String] {
        try layers.flatMap { layer in
            let paths = try FileManager.default.subpathsOfDirectory(atPath: sources.appendingPathComponent(layer).path)
            return try paths.filter { $0.hasSuffix(".swift") }.sorted().flatMap { file in
                let text = try String(contentsOf: sources.appendingPathComponent(layer + "/" + file), encoding: .utf8)
                return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
                    let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                    return code.contains(word) ? "\(layer)/\(file):\(index + 1)" : nil
                }
            }
        }
    }

    @Test("lower-layer-typed-facts: PingPlatform makes no PingCLIError, and the state layer has no .system escape")
    func typedFacts() throws {
        #expect(
            try Self.codeNaming("PingCLIError", in: ["PingPlatform"]) == [],
            "throw a typed fact and word it in PingFlowCore (FileAdvice.swift)")
        let state = try Self.codeNaming("PingCLIError", in: ["PingState", "PingAuthenticators"])
        let unexpected = state.filter { line in !Self.wordedBelow.contains { line.hasPrefix($0.path + ":") } }
        #expect(unexpected == [], "the state layer carries typed facts: add a case to StoreFailure, SealedFailure or OTPStoreFailure")
        #expect(try Self.codeNaming("case system(", in: ["PingState", "PingAuthenticators"]) == [])
        let stale = Self.wordedBelow.filter { entry in !state.contains { $0.hasPrefix(entry.path + ":") } }.map(\.path)
        #expect(stale == [], "remove these from wordedBelow: they make no PingCLIError any more")
    }

    @Test("the scanner finds options and commands in literals, nested ones too, and skips comments")
    func scanner() {
        let source = """
            // "run pingcli login" in a comment
            /* "--issuer" in a block */
            let a = "give --client-cert"
            let b = "x \\(flag ? "--ca-file" : "CURL_CA_BUNDLE") y"
            let c = #"raw "--pin" here"#
            let d = "pingcli does not follow redirects, pingcli logged in, a-b--c"
            let e = "--\\(field) URL"
            """
        let literals = StringLiterals(source).literals
        #expect(literals.map(\.line) == [3, 4, 4, 4, 5, 6, 7])
        #expect(literals.map { Self.namesOption($0.text) } == [true, true, false, false, true, false, true])
        #expect(Self.namesCommand("then run pingcli login --profile work") && Self.namesCommand("pingcli devices remove it"))
        #expect(!Self.namesCommand("pingcli logged in") && !Self.namesCommand("pingcli does not") && !Self.namesCommand("pingcli tokens"))
        #expect(Self.advisesEnvironment("none is reachable: set TPM2TOOLS_TCTI to the TPM that sealed it"))
        #expect(Self.advisesEnvironment("or unset PINGCLI_KEY_STORE") && Self.advisesEnvironment("export PINGCLI_PROFILE=work"))
        #expect(!Self.advisesEnvironment("the TPM at TPM2TOOLS_TCTI=swtpm") && !Self.advisesEnvironment("PINGCLI_KEY_STORE"))
        #expect(!Self.advisesEnvironment("set the Token") && !Self.advisesEnvironment("unset (no value)"))
    }
}
