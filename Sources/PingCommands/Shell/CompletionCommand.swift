import PingBase
import PingCommandLine
import PingFlowCore
import PingIntegrations
import PingLogin
import PingOAuth

/// `pingcli completion bash|zsh|fish`: shell completions generated from the command table, so they
/// cannot drift from what the parser accepts. Profile names are completed at completion time with
/// `pingcli profiles --names`, which reads only the directory listing.
package enum CompletionCommand {
    package static let shells = ["bash", "zsh", "fish"]

    /// `completion`'s options: only `--help`.
    package enum Option: String, OptionName {
        case help
    }

    package static let specs: [OptionSpec] = [OptionSpec(Option.help, help: "show this help")]

    package static let help = helpText(
        usage: "pingcli completion bash|zsh|fish",
        summary: """
            Prints a completion script for the shell: commands, their options, option values and profile names.
            bash: source <(pingcli completion bash), or save it as ~/.local/share/bash-completion/completions/pingcli.
            zsh: save it as _pingcli in a directory of $fpath. fish: save it as ~/.config/fish/completions/pingcli.fish.
            """,
        specs: specs)

    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let parsed = try parseOptions(arguments.filter { $0.hasPrefix("-") }, specs: specs, command: "completion")
        if parsed.flag(Option.help) { return context.console.help(help) }
        let positional = arguments.filter { !$0.hasPrefix("-") }
        guard positional.count == 1, let shell = positional.first, shells.contains(shell) else {
            throw .usage("pingcli completion needs one shell: bash, zsh or fish (see pingcli completion --help)", rule: .commandOperand)
        }
        switch shell {
        case "bash": context.console.out(bash())
        case "zsh": context.console.out(zsh())
        default: context.console.out(fish())
        }
    }

    /// What a command takes besides options: operations, shells, command names.
    package static func operations(_ command: String) -> [String] {
        switch command {
        case "profiles": return ProfilesCommand.Operation.names
        case "key": return KeyCommand.Operation.names
        case "otp": return OTPCommand.Operation.names
        case "devices": return DevicesCommand.Operation.names
        case "git-credential": return GitCredentialCommand.Operation.names + ["configure"]
        case "setup": return SetupCommand.Target.names
        case "aws": return AWSCommand.Operation.names
        case "completion": return shells
        default: return []
        }
    }

    /// The values an option accepts, when they are a fixed list (an optional value's too: `--dpop ES256`).
    /// Keyed by the option's name as its spec has it: `api --method` and `dpop-proof --method` share it.
    package static func choices(_ option: String) -> [String] {
        switch option {
        case TokenCommand.Option.format.rawValue: return TokenCommand.Format.allCases.map(\.rawValue)
        case LoginOption.prompt.rawValue: return LoginInputChecks.promptValues.sorted()
        case LoginOption.region.rawValue: return PingOneIssuer.regions.map(\.name)
        case APICommand.Option.method.rawValue: return httpMethods
        case KeyCommand.Option.to.rawValue: return ["keyring", "file"]
        case LoginOption.dpop.rawValue: return DPoPAlgorithm.allCases.map(\.rawValue)
        case LoginOption.clientAssertionAudience.rawValue: return ClientAssertionAudience.allCases.map(\.rawValue)
        default: return []
        }
    }

    /// The methods offered for `api --method` and `dpop-proof --method` (any token is accepted).
    package static let httpMethods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]

    /// Every option with a fixed list of values.
    package static let choiceOptions = [
        TokenCommand.Option.format.rawValue, LoginOption.prompt.rawValue, LoginOption.region.rawValue, APICommand.Option.method.rawValue,
        KeyCommand.Option.to.rawValue, LoginOption.dpop.rawValue, LoginOption.clientAssertionAudience.rawValue,
    ]

    /// The options that may be given more than once (offered again); every other one is offered once.
    package static var repeatableOptions: [String] {
        Set(PingCLI.commandTable.flatMap(\.specs).filter(\.repeatable).map { "--" + $0.name }).sorted()
    }

    package static var commandNames: [String] { PingCLI.commandTable.map(\.name) + ["help"] }

    /// Text single-quoted for every shell here (bash, zsh and fish all read `'\''` as one quote): no
    /// control character, one line.
    package static func quoted(_ text: String) -> String {
        "'" + displaySafe(text, limit: 4096).replacingAll("'", with: "'\\''") + "'"
    }

    package static func bash() -> String {
        var cases: [String] = []
        for command in PingCLI.commandTable {
            let words = operations(command.name) + command.specs.map { "--" + $0.name }
            cases.append("        \(command.name)) words=\(quoted(words.joined(separator: " "))) ;;")
        }
        cases.append("        help) words=\(quoted(commandNames.joined(separator: " "))) ;;")
        let valueOptions = Set(PingCLI.commandTable.flatMap(\.specs).filter(\.takesValue).map { "--" + $0.name }).sorted()
        let fileOptions = Set(PingCLI.commandTable.flatMap(\.specs).filter(\.takesFile).map { "--" + $0.name }).sorted()
        let choiceCases = choiceOptions.map {
            "        --\($0)) COMPREPLY=($(compgen -W \(quoted(choices($0).joined(separator: " "))) -- \"$cur\")); return ;;"
        }
        return """
            # bash completion for pingcli, generated by `pingcli completion bash` from its command table.
            \(bashFunctions)
            _pingcli() {
            \(bashRejoinColons)
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" command="" i=1 words
                while [ "$i" -lt "$COMP_CWORD" ]; do
                    case "${COMP_WORDS[i]}" in
                        --profile) i=$((i + 2)); continue ;;
                        -*) ;;
                        *) command="${COMP_WORDS[i]}"; break ;;
                    esac
                    i=$((i + 1))
                done
                case "$prev" in
            \(bashOptionCases)
                    \(fileOptions.joined(separator: "|"))) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); return ;;
                    --data) [ "${cur#@}" != "$cur" ] && { compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -P @ -- "${cur#@}")); }; return ;;
            \(choiceCases.joined(separator: "\n"))
                esac
                case " \(valueOptions.joined(separator: " ")) " in
                    *" $prev "*) COMPREPLY=(); return ;;
                esac
                if [ -z "$command" ]; then
                    COMPREPLY=($(compgen -W \(quoted((commandNames + ["--profile", "--verbose", "--help", "--version"]).joined(separator: " "))) -- "$cur"))
                    return
                fi
                case "$command" in
            \(cases.joined(separator: "\n"))
                    *) words="" ;;
                esac
            \(bashOperands)
                # An option already on the line is not offered again, unless it may be repeated.
                local typed=" ${COMP_WORDS[*]:1:COMP_CWORD-1} " word offered=""
                for word in $words; do
                    case "$typed" in
                        *" $word "*) case " \(repeatableOptions.joined(separator: " ")) " in *" $word "*) ;; *) continue ;; esac ;;
                    esac
                    offered="$offered $word"
                done
                COMPREPLY=($(compgen -W "$offered" -- "$cur"))
            }
            complete -F _pingcli pingcli
            """
    }

    /// Text for a zsh `_arguments` spec or `_describe` entry inside single quotes: `\`, `[`, `]` and `:`
    /// backslash-escaped for the completion system, then `'` closed, escaped and reopened for the shell.
    /// Nothing is dropped: `https://auth.pingone.com` and `environment's` arrive as written.
    package static func zshText(_ text: String) -> String {
        var escaped = ""
        for character in displaySafe(text, limit: 120) {
            if "\\[]:".contains(character) { escaped.append("\\") }
            escaped += character == "'" ? "'\\''" : String(character)
        }
        return escaped
    }

    /// One option as a zsh `_arguments` spec: its help, its value's name and how the value completes.
    static func zshSpec(_ spec: OptionSpec) -> String {
        let text = zshText(spec.help)
        let star = spec.repeatable ? "*" : ""
        if !spec.optionalValues.isEmpty {
            return "'--\(spec.name)[\(text)]::\(zshText(spec.name)):(\(spec.optionalValues.joined(separator: " ")))'"
        }
        guard let valueName = spec.valueName else { return "'\(star)--\(spec.name)[\(text)]'" }
        let action: String
        if let listing = listing(option: spec.name) {
            action = listing.function
        } else if spec.takesFile {
            action = "_files"
        } else {
            action = choices(spec.name).isEmpty ? " " : "(\(choices(spec.name).joined(separator: " ")))"
        }
        return "'\(star)--\(spec.name)[\(text)]:\(zshText(valueName)):\(action)'"
    }

    package static func zsh() -> String {
        let described = (PingCLI.commandTable.map { ($0.name, $0.summary) } + [("help", "show the help of pingcli or of a command")])
            .map { "'\($0.0):\(zshText($0.1))'" }
        var cases: [String] = []
        for command in PingCLI.commandTable {
            guard command.name != "setup" else {
                cases.append(zshSetup(zshSpec))
                continue
            }
            let specs = command.specs.map(zshSpec) + zshOperands(command.name)
            cases.append("        \(command.name)) _arguments \(specs.joined(separator: " ")) ;;")
        }
        cases.append("        help) _arguments '1:command:(\(commandNames.joined(separator: " ")))' ;;")
        return """
            #compdef pingcli
            # zsh completion for pingcli, generated by `pingcli completion zsh` from its command table.
            \(zshFunctions)
            _pingcli() {
                local curcontext="$curcontext" state line
                local -a commands
                commands=(\(described.joined(separator: " ")))
                _arguments -C '--profile[profile to use]:profile:_pingcli_profiles' '--verbose[describe each HTTP request on stderr]' \\
                    '--help[show the help]' '--version[show the version]' '1: :->command' '*:: :->arguments'
                case $state in
                    command) _describe -t commands 'pingcli command' commands ;;
                    arguments)
                        case $line[1] in
            \(cases.joined(separator: "\n"))
                        esac ;;
                esac
            }
            if [ "$funcstack[1]" = _pingcli ]; then _pingcli "$@"; else compdef _pingcli pingcli; fi
            """
    }

    package static func fish() -> String {
        var lines = [
            "# fish completion for pingcli, generated by `pingcli completion fish` from its command table.",
            "complete -c pingcli -f",
            "complete -c pingcli -l profile -x -a '(command pingcli profiles --names 2>/dev/null)' -d 'profile to use'",
            "complete -c pingcli -n __fish_use_subcommand -l version -d 'show the version'",
        ]
        let all = commandNames.joined(separator: " ")
        for command in PingCLI.commandTable {
            lines.append("complete -c pingcli -n __fish_use_subcommand -a \(command.name) -d \(quoted(command.summary))")
            let seen = "'__fish_seen_subcommand_from \(command.name)'"
            for spec in command.specs where spec.name != CommonOption.profile.rawValue {
                // Offered once: not again when already on the line (unless it may be repeated).
                // (…or its value is being completed: `--format ` then TAB.)
                let once =
                    spec.repeatable
                    ? "" : " -n 'not __fish_contains_opt \(spec.name); or test (commandline -opc)[-1] = --\(spec.name)'"
                let targets = command.name == "setup" ? fishSetupConditions(spec) : ""
                var line = "complete -c pingcli -n \(seen)\(once)\(targets) -l \(spec.name)"
                if let listed = fishValues(option: spec.name) {
                    line += " -x " + listed
                } else if spec.takesValue || !spec.optionalValues.isEmpty {
                    let values = choices(spec.name)
                    line += spec.takesFile ? " -r -F" : values.isEmpty ? " -x" : " -x -a \(quoted(values.joined(separator: " ")))"
                }
                lines.append(line + " -d \(quoted(spec.help))")
            }
            let operations = operations(command.name)
            if !operations.isEmpty {
                let none = "'not __fish_seen_subcommand_from \(operations.joined(separator: " "))'"
                lines.append("complete -c pingcli -n \(seen) -n \(none) -a \(quoted(operations.joined(separator: " ")))")
            }
        }
        lines += fishOperands
        lines.append("complete -c pingcli -n __fish_use_subcommand -a help -d 'show the help of pingcli or of a command'")
        lines.append("complete -c pingcli -n '__fish_seen_subcommand_from help' -a \(quoted(all))")
        return lines.joined(separator: "\n")
    }
}
