import PingAuthenticators
import PingBase
import PingCommandLine
import PingCrypto
import PingFlowCore
import PingJourney
import PingLogin
import PingOTP
import PingPlatform
import PingTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli otp add|code|list|remove`: pingcli as an OATH authenticator (RFC 4226, RFC 6238).
package enum OTPCommand {
    /// `otp`'s options (no `--profile`: the accounts are the machine's).
    package enum Option: String, OptionName {
        case file, name, replace, origin, json, yes, verbose, help
    }

    package static let specs: [OptionSpec] = [
        OptionSpec(Option.file, valueName: "FILE", help: "add: read the otpauth:// URI from FILE (mode 0600), not standard input"),
        OptionSpec(Option.name, valueName: "NAME", help: "add: the account's name (default: the URI's label, issuer:account)"),
        OptionSpec(Option.replace, help: "add: replace an account of the same name"),
        OptionSpec(
            Option.origin, valueName: "ORIGIN",
            help: "code, remove: the AM origin (https://host) of the account, when accounts of several AMs share its name"),
        OptionSpec(Option.json, help: "code, list: JSON for programs (code: with its remaining validity)"),
        OptionSpec(Option.yes, help: "remove: do not ask (needed without a terminal)"),
        OptionSpec(Option.verbose, help: "accepted; otp sends no request and never prints a secret"),
        OptionSpec(Option.help, help: "show this help"),
    ]

    /// `otp`'s operations.
    package enum Operation: String, CommandOperation {
        case add, code, list, remove

        package static func unknown(_ operand: String?) -> PingCLIError {
            guard let operand else {
                return .usage("pingcli otp needs an operation: add, code, list or remove (see pingcli otp --help)", rule: .commandOperand)
            }
            // A registration URI where the operation goes (`pingcli otp otpauth://…`, "add" forgotten) holds
            // the secret: it is not shown back, not even its start.
            if operand.lowercased().containsText("otpauth:") {
                return .usage(
                    "pingcli otp add reads the URI from standard input or --file, never from the command line (it holds the secret)",
                    rule: .otpUriArgv)
            }
            return unknownOperation(operand, command: "otp")
        }
    }

    package static let help = helpText(
        usage:
            "pingcli otp add [--file FILE] [--name NAME] | otp code NAME [--origin ORIGIN] [--json] | otp list [--json] | otp remove NAME [--origin ORIGIN] [--yes]",
        summary: """
            pingcli as an authenticator for one-time codes (HOTP and TOTP; SHA-1, SHA-256 or SHA-512; 6 to 8
            digits). `add` reads an otpauth:// (or Ping's mfauth://) registration URI from standard input (on a
            terminal, pasted without echo) or from --file, never from the command line, and keeps its secret
            encrypted under the token cache's key. `code NAME` prints the current code; an HOTP counter
            advances under a lock, so two callers never get the same code; NAME may be the start of one
            account's name. `list` shows the accounts (never a secret): a table on a terminal, else one a line,
            tab-separated. `remove NAME` deletes one after asking [y/N] on a terminal (--yes: without asking).
            """,
        specs: specs)

    /// The most a registration URI read from a file or standard input may be.
    package static let inputLimit = OTPAuthURI.maximumLength + 2

    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let (options, operands) = splitOperands(arguments, specs: specs)
        let parsed = try parseOptions(options, specs: specs, command: "otp")
        if parsed.flag(Option.help) { return context.console.help(help) }
        let operation = try Operation.named(operands.first)
        let names = Array(operands.dropFirst())
        func allow(_ allowed: [Option]) throws(PingCLIError) {
            try parsed.refuse(outside: allowed + [.verbose], command: "otp", operation: operation.rawValue)
        }
        func oneName() throws(PingCLIError) -> String {
            guard names.count == 1 else {
                throw .usage("pingcli otp \(operation.rawValue) needs one account name: see pingcli otp list", rule: .commandOperand)
            }
            return names[0]
        }
        let accounts = OTPAccounts(
            store: OTPStore(paths: context.store.paths, tpm: context.tpm), key: context.store.commandKey(), clock: context.clock)
        switch operation {
        case .add:
            try allow([.file, .name, .replace])
            guard names.isEmpty else {
                throw .usage(
                    "pingcli otp add reads the URI from standard input or --file, never from the command line (it holds the secret)",
                    rule: .otpUriArgv)
            }
            try add(parsed, accounts: accounts, context: context)
        case .code:
            try allow([.json, .origin])
            let code = try code(try oneName(), origin: parsed.value(Option.origin), accounts: accounts)
            context.console.out(parsed.flag(Option.json) ? json(code, now: context.clock()).rendered(pretty: true) : code.code)
        case .list:
            try allow([.json])
            guard names.isEmpty else { throw .usage("pingcli otp list takes no name: see pingcli otp --help", rule: .commandOperand) }
            try list(try accounts.list(), json: parsed.flag(Option.json), context: context)
        case .remove:
            try allow([.origin, .yes])
            try remove(
                try oneName(), origin: parsed.value(Option.origin), yes: parsed.flag(Option.yes), accounts: accounts, context: context)
        }
    }

    package static func add(_ parsed: ParsedOptions, accounts: OTPAccounts, context: CommandContext) throws(PingCLIError) {
        var bytes: [UInt8]
        if let path = parsed.value(Option.file) {
            bytes = try readFile(path)
        } else {
            bytes = try SecretInput.read(
                context.input, limit: inputLimit, prompt: "Paste the otpauth:// URI (it is not shown), then Enter: ",
                console: context.console)
        }
        defer { Sodium.wipe(&bytes) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .failure("the OTP URI is not UTF-8 text: give the URI exactly as the QR code holds it", rule: .otpUriCharacters)
        }
        var account = try OTPAuthURI.parse(text, name: parsed.value(Option.name))
        defer { Sodium.wipe(&account.secret) }
        try accounts.add(account, replace: parsed.flag(Option.replace))
        if let notice = accounts.key.notice { context.console.err(notice) }
        let every = account.kind == .totp ? "every \(account.period) s" : "counter \(account.counter)"
        context.console.err(
            "Added the OTP account \"\(displaySafe(account.name, limit: 80))\" (\(account.kind.rawValue.uppercased()), \(account.algorithm.rawValue), \(account.digits) digits, \(every)), encrypted under the cache key: pingcli otp code '\(displaySafe(account.name, limit: 80))' prints its code."
        )
    }

    /// `--file`: the file gate for a file holding a secret: a regular file of this user, closed to group
    /// and others (mode 0600), never a link, a FIFO or a device; bounded.
    package static func readFile(_ path: String) throws(PingCLIError) -> [UInt8] {
        // A secret file: this user's, closed to group and others, on a path no one else may write.
        guard let (descriptor, _) = try FileAdvice.worded(try FileSystem.openCheckedSized(path, flags: O_RDONLY, protection: .secret))
        else {
            throw .usage(
                "--file \(displaySafe(path, limit: 200)) does not exist: give the file holding the otpauth:// URI", rule: .otpFileMissing)
        }
        defer { close(descriptor) }
        return try SecretInput.readAll(descriptor, limit: inputLimit)
    }

    /// `otp code --json` (docs/json.md): every key always present, null where the code's type has none.
    package static func json(_ code: OTPAccounts.Code, now: Double) -> JSONValue {
        var members: [String: JSONValue] = [
            "version": .number(1), "name": .string(code.name), "code": .string(code.code), "type": .string(code.kind.rawValue),
            "valid_from": .null, "expires_at": .null, "remaining_seconds": .null, "counter": .null,
        ]
        if let from = code.validFrom, let until = code.validUntil {
            members["valid_from"] = .number(Double(from))
            members["expires_at"] = .number(Double(until))
            members["remaining_seconds"] = .number(max(0, (Double(until) - now).rounded(.up)))
        }
        if let counter = code.counter { members["counter"] = .number(Double(counter)) }
        return .object(members)
    }

    package static func list(_ accounts: [OTPAccount], json: Bool, context: CommandContext) throws(PingCLIError) {
        if json {
            let objects = accounts.map { account -> JSONValue in
                .object([
                    "version": .number(1), "name": .string(account.name), "account": .string(account.account),
                    "type": .string(account.kind.rawValue), "algorithm": .string(account.algorithm.rawValue),
                    "digits": .number(Double(account.digits)), "issuer": account.issuer.map { .string($0) } ?? .null,
                    "period": account.kind == .totp ? .number(Double(account.period)) : .null,
                    "counter": account.kind == .hotp ? .number(Double(account.counter)) : .null,
                    "origin": account.origin.map { .string($0) } ?? .null,
                ])
            }
            return context.console.out(JSONValue.array(objects).rendered(pretty: true))
        }
        guard !accounts.isEmpty else { return context.console.err("No OTP accounts. pingcli otp add < uri.txt stores one.") }
        for line in listLines(accounts, terminal: context.console.outputIsTerminal) { context.console.out(line) }
    }
}
