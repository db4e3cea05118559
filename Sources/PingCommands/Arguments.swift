import PingBase
import PingPlatform
import PingState
import PingTerminal

/// One option a command accepts.
package struct OptionSpec {
    package var name: String
    package var valueName: String?
    package var repeatable = false
    package var help: String
    /// A flag that may take one of these values (`--dpop`, `--dpop ES256`, `--dpop=ES256`).
    package var optionalValues: [String] = []

    package var takesValue: Bool { valueName != nil }
    /// The value is a file's path (`PATH`, `PEM`, `FILE`): the shells complete file names for it.
    package var takesFile: Bool { ["PATH", "PEM", "FILE"].contains(valueName ?? "") }
}

/// The options a command received, by name without dashes.
package struct ParsedOptions {
    /// The options' names in the order given, and beside each its value (empty for a flag): two searched
    /// arrays of strings. A `[String: [String]]` cost every run its generic metadata and its growth, and
    /// so would an array of a struct of ours (about 0.03 M instructions of `token --raw`, docs/performance.md).
    private var givenNames: [String] = []
    private var givenValues: [String] = []

    /// The names given, in order, each once.
    package var names: [String] {
        var names: [String] = []
        for name in givenNames where !names.contains(name) { names.append(name) }
        return names
    }

    package mutating func add(_ name: String, _ value: String) {
        givenNames.append(name)
        givenValues.append(value)
    }

    package func value(_ name: String) -> String? { givenNames.lastIndex(of: name).map { givenValues[$0] } }
    package func all(_ name: String) -> [String] { givenNames.indices.filter { givenNames[$0] == name }.map { givenValues[$0] } }
    package func flag(_ name: String) -> Bool { givenNames.contains(name) }

    /// A whole number of seconds given as `--name`, or `defaultValue`.
    package func seconds(_ name: String, default defaultValue: Double, allowZero: Bool) throws(PingCLIError) -> Double {
        guard let text = value(name) else { return defaultValue }
        return try parseSeconds(text, option: name, allowZero: allowZero)
    }

    /// The profiles a command with `--all` works on: every one, or the one chosen.
    package func profiles(_ common: CommonOptions, store: TokenStore) throws(PingCLIError) -> [ProfileName] {
        guard flag("all") else { return [common.profile] }
        guard value("profile") == nil else { throw .usage("--all and --profile cannot be combined: choose one", rule: .optionConflict) }
        return store.profileNames()
    }
}

/// Separates the words of a command that takes operands (`setup git HOST`, `configure HOST…`) from its
/// options, each option keeping the value that follows it when its spec takes one.
func splitOperands(_ arguments: [String], specs: [OptionSpec]) -> (options: [String], operands: [String]) {
    var options: [String] = []
    var operands: [String] = []
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        if argument.hasPrefix("-") {
            options.append(argument)
            if specs.contains(where: { $0.takesValue && "--" + $0.name == argument }), index + 1 < arguments.count {
                index += 1
                options.append(arguments[index])
            }
        } else {
            operands.append(argument)
        }
        index += 1
    }
    return (options, operands)
}

/// Parses `--name value`, `--name=value` and `--flag`, rejecting anything unknown (with the nearest
/// option named when it looks like a typo). No positional arguments: every input is named, so scripts
/// stay readable. A `--` is accepted once and the options after it are read the same way: the commands
/// take no operands, and wrappers (`cargo run --`, `npm run x --`, aliases) put one before their arguments.
package func parseOptions(_ arguments: [String], specs: [OptionSpec], command: String) throws(PingCLIError) -> ParsedOptions {
    var parsed = ParsedOptions()
    var index = 0
    var separated = false
    let hint = "see pingcli \(command) --help"
    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        if argument == "-h" { parsed.add("help", ""); continue }
        if argument == "--" {
            guard !separated else {
                throw .usage("-- was given twice for pingcli \(command): give it once, or not at all", rule: .optionRepeated)
            }
            separated = true
            continue
        }
        guard argument.hasPrefix("--"), argument.count > 2 else {
            throw .usage(
                "unexpected argument \"\(displaySafe(argument, limit: 60))\" for pingcli \(command): \(hint)", rule: .argumentUnexpected)
        }
        var name = String(argument.dropFirst(2))
        var inlineValue: String? = nil
        if let equals = name.firstIndex(of: "=") {
            inlineValue = String(name[name.index(after: equals)...])
            name = String(name[..<equals])
        }
        guard let spec = specs.first(where: { $0.name == name }) else { throw unknownOption(name, specs: specs, command: command) }
        if spec.takesValue {
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else {
                    throw .usage("--\(name) needs a value (\(spec.valueName!)): \(hint)", rule: .optionValue)
                }
                value = arguments[index]
                index += 1
            }
            if !spec.repeatable, parsed.flag(name) {
                throw .usage("--\(name) was given twice: give it once", rule: .optionRepeated)
            }
            parsed.add(name, value)
        } else if !spec.optionalValues.isEmpty {
            parsed.add(name, try optionalValue(spec, inline: inlineValue, arguments: arguments, index: &index, hint: hint))
        } else {
            guard inlineValue == nil else { throw .usage("--\(name) takes no value: \(hint)", rule: .optionValue) }
            parsed.add(name, "")
        }
    }
    return parsed
}

/// The value of a flag that may take one (`--dpop`, `--dpop ES256`, `--dpop=ES256`): empty when none follows.
private func optionalValue(
    _ spec: OptionSpec, inline: String?, arguments: [String], index: inout Int, hint: String
) throws(PingCLIError) -> String {
    if let inline {
        guard spec.optionalValues.contains(inline) else {
            throw .usage(
                "--\(spec.name) takes \(spec.optionalValues.joined(separator: ", ")) or nothing, not \"\(displaySafe(inline, limit: 30))\": \(hint)",
                rule: .optionValue
            )
        }
        return inline
    }
    guard index < arguments.count, spec.optionalValues.contains(arguments[index]) else { return "" }
    index += 1
    return arguments[index - 1]
}

/// An option the command does not know: the nearest one named, and a secret's value pointed at the safe ways.
package func unknownOption(_ name: String, specs: [OptionSpec], command: String) -> PingCLIError {
    if name == "client-secret", specs.contains(where: { $0.name == "client-secret-file" }) {
        return .usage(
            "--client-secret is not accepted: a value on the command line is readable by every user of this machine (ps, /proc): give --client-secret-file PATH (mode 0600) or set PINGCLI_CLIENT_SECRET",
            rule: .secretOnCommandLine
        )
    }
    let suggestion = Suggestions.didYouMean(name, among: specs.map(\.name), prefix: "--")
    return .usage(
        "unknown option --\(displaySafe(name, limit: 40)) for pingcli \(command)\(suggestion): see pingcli \(command) --help",
        rule: .optionUnknown)
}

/// Renders a command's help text from its specs, so help and parser never disagree.
package func helpText(usage: String, summary: String, specs: [OptionSpec], footer: String = "") -> String {
    var lines = ["Usage: \(usage)", "", summary, "", "Options:"]
    let rendered = specs.map { spec in ("--" + spec.name + (spec.valueName.map { " " + $0 } ?? ""), spec.help) }
    let width = (rendered.map(\.0.count).max() ?? 0) + 2
    for (left, right) in rendered {
        lines.append("  " + left + String(repeating: " ", count: width - left.count) + right)
    }
    if !footer.isEmpty { lines += ["", footer] }
    return lines.joined(separator: "\n")
}

/// Reads a whole number of seconds, rejecting negatives, fractions and junk.
package func parseSeconds(_ text: String, option: String, allowZero: Bool) throws(PingCLIError) -> Double {
    guard let value = Int(text), value >= (allowZero ? 0 : 1), value <= 86_400 * 365 else {
        throw .usage(
            "--\(option) must be a whole number of seconds\(allowZero ? "" : " above 0"), not \"\(displaySafe(text, limit: 30))\"",
            rule: .secondsGate)
    }
    return Double(value)
}
