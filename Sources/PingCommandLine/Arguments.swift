import PingBase
import PingPlatform
import PingState
import PingTerminal

/// A command's option names as a type: the command's spec table and its look-ups both name an option
/// by its case, so a misspelt name does not compile. `ParsedOptions` answers only by case: its names are
/// strings inside this file alone, where the parser fills them.
package protocol OptionName: RawRepresentable, CaseIterable where RawValue == String {}

/// One option a command accepts.
package struct OptionSpec {
    package let name: String
    package let valueName: String?
    package let repeatable: Bool
    package let help: String
    /// A flag that may take one of these values (`--dpop`, `--dpop ES256`, `--dpop=ES256`).
    package let optionalValues: [String]

    /// An option named by its case.
    package init(
        _ name: some OptionName, valueName: String? = nil, repeatable: Bool = false, help: String, optionalValues: [String] = []
    ) {
        self.name = name.rawValue
        self.valueName = valueName
        self.repeatable = repeatable
        self.help = help
        self.optionalValues = optionalValues
    }

    package var takesValue: Bool { valueName != nil }
    /// The value is a file's path (`PATH`, `PEM`, `FILE`): the shells complete file names for it.
    package var takesFile: Bool { ["PATH", "PEM", "FILE"].contains(valueName ?? "") }
}

/// The options a command received, asked for by their `OptionName` case.
package struct ParsedOptions {
    /// The options' names in the order given, and beside each its value (empty for a flag): two searched
    /// arrays of strings. A `[String: [String]]` cost every run its generic metadata and its growth, and
    /// so would an array of a struct of ours (about 0.03 M instructions of `token --raw`, docs/performance.md).
    private var givenNames: [String] = []
    private var givenValues: [String] = []

    fileprivate mutating func add(_ name: String, _ value: String) {
        givenNames.append(name)
        givenValues.append(value)
    }

    fileprivate func has(_ name: String) -> Bool { givenNames.contains(name) }

    /// The last value given for the option, nil when it was not given.
    package func value(_ name: some OptionName) -> String? {
        givenNames.lastIndex(of: name.rawValue).map { givenValues[$0] }
    }

    /// Every value given for a repeatable option, in order.
    package func all(_ name: some OptionName) -> [String] {
        givenNames.indices.filter { givenNames[$0] == name.rawValue }.map { givenValues[$0] }
    }

    /// Whether the option was given (a flag, or an option with its value).
    package func flag(_ name: some OptionName) -> Bool { givenNames.contains(name.rawValue) }

    /// Refuses the first option of `Option` given that is not in `allowed`: it does not apply to the
    /// operation (`pingcli otp add`) of `command`.
    package func refuse<Option: OptionName>(
        outside allowed: [Option], command: String, operation: String
    ) throws(PingCLIError) {
        for option in given(Option.self) where !allowed.contains(where: { $0.rawValue == option.rawValue }) {
            throw .usage(
                "--\(option.rawValue) does not apply to pingcli \(command) \(displaySafe(operation, limit: 20)): see pingcli \(command) --help",
                rule: .commandOperand)
        }
    }

    /// The options given that are cases of `Option`, in order, each once (the others are left out).
    package func given<Option: OptionName>(_ type: Option.Type) -> [Option] {
        var given: [Option] = []
        for name in givenNames {
            if let option = Option(rawValue: name), !given.contains(where: { $0.rawValue == name }) { given.append(option) }
        }
        return given
    }

    /// A whole number of seconds given as `--name`, or nil when it is not given.
    package func seconds(_ name: some OptionName, allowZero: Bool) throws(PingCLIError) -> Double? {
        guard let text = value(name) else { return nil }
        return try parseSeconds(text, option: name.rawValue, allowZero: allowZero)
    }

    /// The profiles a command with `--all` works on: every one, or the one chosen.
    package func profiles(
        all: Bool, _ common: CommonOptions, store: TokenStore, requireSettings: Bool = true
    ) throws(PingCLIError)
        -> [ProfileName]
    {
        guard all else { return [common.profile] }
        guard value(CommonOption.profile) == nil else {
            throw .usage("--all and --profile cannot be combined: choose one", rule: .optionConflict)
        }
        return store.profileNames(requireSettings: requireSettings)
    }
}

/// Separates the words of a command that takes operands (`setup git HOST`, `configure HOST…`) from its
/// options, each option keeping the value that follows it when its spec takes one.
package func splitOperands(_ arguments: [String], specs: [OptionSpec]) -> (options: [String], operands: [String]) {
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
        if argument == "-h" { parsed.add(CommonOption.help.rawValue, ""); continue }
        if argument == "--" {
            guard !separated else {
                throw .usage("-- was given twice for pingcli \(command): give it once, or not at all", rule: .optionRepeated)
            }
            separated = true
            continue
        }
        guard argument.startsWithText("--"), argument.count > 2 else {
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
            if !spec.repeatable, parsed.has(name) {
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

/// Reads a whole number of seconds, rejecting negatives, fractions and junk.
package func parseSeconds(_ text: String, option: String, allowZero: Bool) throws(PingCLIError) -> Double {
    guard let value = Int(text), value >= (allowZero ? 0 : 1), value <= 86_400 * 365 else {
        throw .usage(
            "--\(option) must be a whole number of seconds\(allowZero ? "" : " above 0"), not \"\(displaySafe(text, limit: 30))\"",
            rule: .secondsGate)
    }
    return Double(value)
}
