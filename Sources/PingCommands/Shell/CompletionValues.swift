import PingCommandLine
import PingIntegrations
import PingLogin

/// The values the completions read when a person presses Tab: profile names, OTP account names, device
/// key ids and the journey trees the profiles use, each listed by a pingcli command that sends no request
/// and prints no secret; and the options each `setup` target takes.
extension CompletionCommand {
    /// A list of values read at completion time, and the command that prints it, one value a line.
    package enum Listing: String, CaseIterable {
        case profiles, otp, devices, trees

        /// The shell function that prints the values.
        package var function: String { "_pingcli_" + rawValue }

        package var command: String {
            switch self {
            case .profiles: "command pingcli profiles --names 2>/dev/null"
            case .otp: "command pingcli otp list 2>/dev/null | cut -f1"
            case .devices: "command pingcli devices 2>/dev/null | tail -n +2 | cut -d ' ' -f1"
            case .trees: "command pingcli profiles --trees 2>/dev/null"
            }
        }

        /// What a value is, for zsh's descriptions.
        package var what: String {
            switch self {
            case .profiles: "profile"
            case .otp: "OTP account"
            case .devices: "device key id"
            case .trees: "journey tree"
            }
        }
    }

    /// The listing an option's value comes from.
    package static func listing(option: String) -> Listing? {
        switch option {
        case CommonOption.profile.rawValue: .profiles
        case LoginOption.otp.rawValue: .otp
        case LoginOption.journey.rawValue: .trees
        default: nil
        }
    }

    /// The operands completed from a listing: the word after `COMMAND OPERATION`.
    package static let operandListings: [(command: String, operation: String, listing: Listing)] = [
        ("profiles", "use", .profiles), ("profiles", "remove", .profiles), ("otp", "code", .otp), ("otp", "remove", .otp),
        ("devices", "remove", .devices),
    ]

    /// The options whose value comes from a listing, in the order of the command table.
    package static var listedOptions: [String] {
        var seen: [String] = []
        for spec in PingCLI.commandTable.flatMap(\.specs) where listing(option: spec.name) != nil && !seen.contains(spec.name) {
            seen.append(spec.name)
        }
        return seen
    }

    // MARK: bash

    /// The listing functions, and `_pingcli_values LISTING`, which completes one value a line (spaces
    /// escaped, so that a tree such as "Device Binding" stays one word).
    package static var bashFunctions: String {
        (Listing.allCases.map { "\($0.function)() { \($0.command); }" } + [
            #"_pingcli_values() { local IFS=$'\n'; COMPREPLY=($(compgen -W "$("$1")" -- "$cur")); [[ "$cur" == *:* && "$COMP_WORDBREAKS" == *:* ]] && COMPREPLY=("${COMPREPLY[@]#"${cur%"${cur##*:}"}"}"); COMPREPLY=("${COMPREPLY[@]// /\\ }"); }"#
        ]).joined(separator: "\n")
    }

    /// bash splits the word being completed at the colons of `COMP_WORDBREAKS` (`ACME:alice` arrives as
    /// three words): the words are read again from the line, and a value offered for a word with a colon
    /// is cut to what follows its last colon, the part bash replaces.
    static var bashRejoinColons: String {
        """
            if [[ "${COMP_LINE:0:COMP_POINT}" == *:* ]]; then
                local -a rejoined
                read -ra rejoined <<< "${COMP_LINE:0:COMP_POINT}"
                [[ "${COMP_LINE:0:COMP_POINT}" == *[[:space:]] ]] && rejoined+=("")
                COMP_WORDS=("${rejoined[@]}"); COMP_CWORD=$((${#rejoined[@]} - 1))
            fi
        """
    }

    /// `case "$prev"` arms for the options whose value is listed.
    static var bashOptionCases: String {
        listedOptions.map { "        --\($0)) _pingcli_values \(listing(option: $0)!.function); return ;;" }.joined(separator: "\n")
    }

    /// Operands from a listing, and `setup TARGET`'s own options: set before the words are offered.
    static var bashOperands: String {
        let operands = operandListings.map {
            "    if [ \"$command\" = \($0.command) ] && [ \"$prev\" = \($0.operation) ]; then _pingcli_values \($0.listing.function); return; fi"
        }
        let targets = SetupCommand.Target.allCases.map { target in
            "*\" \(target.rawValue) \"*) words=\(quoted(SetupCommand.specs(for: target).map { "--" + $0.name }.joined(separator: " "))) ;;"
        }
        return
            (operands + [
                "    if [ \"$command\" = setup ]; then",
                "        case \" ${COMP_WORDS[*]:1:COMP_CWORD-1} \" in \(targets.joined(separator: " ")) esac",
                "    fi",
            ]).joined(separator: "\n")
    }

    // MARK: zsh

    /// The listing functions (a colon in a value escaped for `_describe`), and `_pingcli_operand`, which
    /// completes the word after an operation that takes a listed value.
    static var zshFunctions: String {
        var lines: [String] = []
        for listing in Listing.allCases {
            lines += [
                "\(listing.function)() {", "    local -a values", "    values=(${(f)\"$(\(listing.command))\"})",
                "    values=(${values//:/\\\\:})", "    _describe -t \(listing.rawValue) '\(listing.what)' values", "}",
            ]
        }
        let arms = operandListings.map { "        (\"\($0.command) \($0.operation)\") \($0.listing.function) ;;" }
        lines += ["_pingcli_operand() {", "    case \"$words[1] $words[2]\" in"] + arms + ["        (*) return 1 ;;", "    esac", "}"]
        return lines.joined(separator: "\n")
    }

    /// The `_arguments` specs after a command's options: its operation, and a listed operand after it.
    static func zshOperands(_ command: String) -> [String] {
        let operations = operations(command)
        guard !operations.isEmpty else { return [] }
        var specs = ["'1:operation:(\(operations.joined(separator: " ")))'"]
        if operandListings.contains(where: { $0.command == command }) { specs.append("'2:value:_pingcli_operand'") }
        return specs
    }

    /// `setup`'s arm: each target's own options once the target is typed.
    static func zshSetup(_ spec: (OptionSpec) -> String) -> String {
        let operation = "'1:operation:(\(SetupCommand.Target.names.joined(separator: " ")))'"
        let arms = SetupCommand.Target.allCases.map { target in
            "\(target.rawValue)) _arguments \(SetupCommand.specs(for: target).map(spec).joined(separator: " ")) \(operation) '*: :' ;;"
        }
        let all = SetupCommand.specs.map(spec).joined(separator: " ")
        return "        setup) case $words[2] in \(arms.joined(separator: " ")) *) _arguments \(all) \(operation) ;; esac ;;"
    }

    // MARK: fish

    /// `-a` for an option whose value is listed (after `-x`), else nil.
    static func fishValues(option: String) -> String? {
        listing(option: option).map { "-a \(quoted("(\($0.command))"))" }
    }

    /// The conditions that keep a `setup` option from the targets that do not take it.
    static func fishSetupConditions(_ spec: OptionSpec) -> String {
        SetupCommand.Target.allCases.filter { target in !SetupCommand.specs(for: target).contains { $0.name == spec.name } }
            .map { " -n 'not __fish_seen_subcommand_from \($0.rawValue)'" }.joined()
    }

    /// The operands completed from a listing.
    static var fishOperands: [String] {
        operandListings.map {
            "complete -c pingcli -n '__fish_seen_subcommand_from \($0.command)' -n '__fish_seen_subcommand_from \($0.operation)' -a \(quoted("(\($0.listing.command))"))"
        }
    }
}
