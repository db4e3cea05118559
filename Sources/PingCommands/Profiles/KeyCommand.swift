import PingBase
import PingCommandLine
import PingFlowCore
import PingLogin
import PingState

/// `pingcli key migrate --to keyring|file`: moves the token-cache key between stores.
package enum KeyCommand {
    /// `key`'s options (no `--profile`: the key is every profile's).
    package enum Option: String, OptionName {
        case to, help
    }

    package static let specs: [OptionSpec] = [
        OptionSpec(Option.to, valueName: "STORE", help: "keyring (the Secret Service) or file"),
        OptionSpec(Option.help, help: "show this help"),
    ]

    /// `key`'s operations.
    package enum Operation: String, CommandOperation {
        case migrate

        package static func unknown(_ operand: String?) -> PingCLIError {
            .usage("pingcli key needs an operation: pingcli key migrate --to keyring|file", rule: .commandOperand)
        }
    }

    package static let help = helpText(
        usage: "pingcli key migrate --to keyring|file",
        summary: """
            Moves the key that encrypts every profile's token cache, unchanged, into the Secret Service (and
            wipes the key file) or back into a key file (and deletes the keyring item). No token is lost:
            if the move stops halfway, both stores hold the same key and running the command again finishes
            it. Not for PINGCLI_KEY_COMMAND, which manages its own key.
            """,
        specs: specs)

    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let operation = arguments.first.flatMap { $0.hasPrefix("-") ? nil : $0 }
        let parsed = try parseOptions(operation == nil ? arguments : Array(arguments.dropFirst()), specs: specs, command: "key")
        if parsed.flag(Option.help) { return context.console.help(help) }
        switch try Operation.named(operation) {
        case .migrate: try migrate(parsed, environment: environment, context: context)
        }
    }

    /// `key migrate --to keyring|file`.
    static func migrate(_ parsed: ParsedOptions, environment: Environment, context: CommandContext) throws(PingCLIError) {
        guard let target = parsed.value(Option.to), ["keyring", "file"].contains(target) else {
            throw .usage("pingcli key migrate needs --to keyring or --to file: see pingcli key --help", rule: .commandOperand)
        }
        if case .command = context.store.keySource {
            throw .usage(
                "the key comes from PINGCLI_KEY_COMMAND, which keeps it itself: unset it to use pingcli key migrate",
                rule: .keyCommandKeepsKey)
        }
        let keyring = KeyringKey(paths: context.store.paths, environment: environment)
        let keyFile = context.store.paths.keyFile
        let done: String
        do {
            done = try KeyMigration.move(toKeyring: target == "keyring", keyring, keyFile: keyFile)
        } catch  where error.rule == .sessionBus && target == "keyring" {
            // The key already is a file: "use a key file" would send the person round in a circle.
            throw .failure(
                "moving the key into the Secret Service needs a session bus, and this process has none (DBUS_SESSION_BUS_ADDRESS is not set): run pingcli key migrate --to keyring in your desktop login session; the key stays in \(keyFile) meanwhile",
                rule: .sessionBus)
        }
        context.console.err(done)
    }
}
