import CPlatform
import PingBase
import PingCommandLine
import PingFlowCore
import PingIntegrations
import PingLogin
import PingPlatform
import PingState
import PingTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// The command-line entry point: argv and environment in, an exit status out.
public enum PingCLI {
    package static var usage: String {
        let width = (commandTable.map(\.name.count).max() ?? 0) + 2
        let lines = commandTable.map { "  " + $0.name + String(repeating: " ", count: width - $0.name.count) + $0.summary }
        return """
            pingcli \(PingCLIVersion.current): sign in to PingOne, PingFederate or any OpenID provider, and hand tokens to scripts.

            Usage: pingcli <command> [options]

            Commands:
            \(lines.joined(separator: "\n"))
              help\(String(repeating: " ", count: width - 4))show this help, or a command's: pingcli help login

            Run pingcli <command> --help for a command's options.

            \(HelpExitCodes.block())
            """
    }

    /// Before any secret is in memory: no core file, and no ptrace or /proc/PID/mem reading by other
    /// processes of the same user (`PR_SET_DUMPABLE` 0, as ssh-agent and gpg-agent do; the kernel then
    /// also makes /proc/PID/* owned by root). RLIMIT_CORE 0 too, in case the system dumps
    /// non-dumpable processes for root (`fs.suid_dumpable` 2). And the crash signals go back to their
    /// default action: the Swift runtime's backtracer would otherwise catch them and print registers
    /// and the memory they point to on stderr, token bytes included. Programs pingcli starts (the key
    /// command, the browser) are not affected: exec makes them dumpable again. The release binary turns
    /// the backtracer off before the runtime starts (Sources/CArguments), so it catches nothing and one
    /// look at SIGSEGV's action shows it: the runtime installs its handler for all of them or none.
    package static func hardenProcess() {
        _ = pingcli_set_non_dumpable()
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none)
        guard pingcli_crash_signal_handled() != 0 else { return }
        for crash in [SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP] { signal(crash, SIG_DFL) }
    }

    /// Runs one command. Errors become one line on stderr, prefixed `pingcli:`, and their exit status.
    public static func run(arguments: [String], environment: Environment, context: CommandContext) -> Int32 {
        do {
            try dispatch(arguments, environment: environment, context: context)
            return ExitStatus.success.rawValue
        } catch {
            // An empty message: the command has already shown the failure (bare `status` on a terminal).
            if !error.message.isEmpty { context.console.err("pingcli: \(error.message)") }
            recordRule(error, environment: environment)
            return error.status.rawValue
        }
    }

    /// Test builds only (`#if DEBUG`: the release binary and the package have no such switch): with
    /// `PINGCLI_TEST_RULE_FILE`, the failure's rule is written to that file, so end-to-end tests assert
    /// the rule a failure enforces rather than its wording (docs/testing.md, "Test-only switches").
    static func recordRule(_ error: PingCLIError, environment: Environment) {
        #if DEBUG
            guard let path = environment["PINGCLI_TEST_RULE_FILE"], path.hasPrefix("/") else { return }
            try? FileSystem.atomicWrite(path, Array(error.rule.rawValue.utf8))
        #endif
    }

    package static func dispatch(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let (global, remaining) = try globalOptions(arguments)
        let columns = environment["COLUMNS"]
        // Bare `pingcli` is a request for help, as with gh: the overview on stdout, exit 0.
        guard let command = remaining.first else { return context.console.help(usage, columnsVariable: columns) }
        let rest = Array(remaining.dropFirst())
        switch command {
        case "help", "--help", "-h":
            guard let topic = rest.first else { return context.console.help(usage, columnsVariable: columns) }
            guard let help = Self.command(named: topic)?.help() else {
                if let hint = CommandHints.hint(topic, operand: rest.dropFirst().first) { throw hint }
                throw .usage(
                    "no command \"\(displaySafe(topic, limit: 40))\"\(Self.suggestCommand(topic)): see pingcli --help",
                    rule: .commandUnknown)
            }
            context.console.help(help, columnsVariable: columns)
        case "--version", "version": context.console.out("pingcli \(PingCLIVersion.current)")
        case "--help-man": context.console.out(ManPage.render())
        case "-v", "-V":
            throw .usage("unknown option \(command) (did you mean pingcli --version, or --verbose after a command?)", rule: .optionUnknown)
        default:
            guard let entry = Self.command(named: command) else {
                if let hint = CommandHints.hint(command, operand: rest.first) { throw hint }
                throw .usage(
                    "unknown command \"\(displaySafe(command, limit: 40))\"\(Self.suggestCommand(command)): see pingcli --help",
                    rule: .commandUnknown)
            }
            // `pingcli X --help` is `pingcli help X`: one page, the same bytes (as gh does, whatever else is given).
            if rest.contains("--help") || rest.contains("-h") { return context.console.help(entry.help(), columnsVariable: columns) }
            try entry.run(global + rest, withCurrentProfile(environment, command: command, store: context.store), context)
        }
    }

    /// ` (did you mean X?)` for a mistyped command, or nothing.
    package static func suggestCommand(_ typed: String) -> String {
        Suggestions.didYouMean(typed, among: commandTable.map(\.name) + ["help", "version"], prefix: "pingcli ")
    }

    /// Options given before the command (`pingcli --profile work status`), which are the same as after it.
    package static let globalOptionNames: [CommonOption] = [.profile, .verbose]

    /// Splits leading global options from the command and what follows it.
    package static func globalOptions(_ arguments: [String]) throws(PingCLIError) -> (global: [String], rest: [String]) {
        var global: [String] = []
        var index = 0
        while index < arguments.count, arguments[index].startsWithText("--"),
            !["--help", "--version", "--help-man"].contains(arguments[index])
        {
            let argument = arguments[index]
            let name = CommonOption(rawValue: String(argument.dropFirst(2).prefix { $0 != "=" }))
            guard let name, globalOptionNames.contains(name) else {
                throw .usage(
                    "\(displaySafe(argument, limit: 40)) cannot come before the command (only --profile and --verbose can): see pingcli --help",
                    rule: .argumentUnexpected
                )
            }
            global.append(argument)
            index += 1
            if name == .profile && !argument.contains("=") {
                guard index < arguments.count else {
                    throw .usage("--profile needs a value (NAME): see pingcli --help", rule: .optionValue)
                }
                global.append(arguments[index])
                index += 1
            }
        }
        return (global, Array(arguments[index...]))
    }

    /// The environment a command sees, with the current profile (`profiles use`) as the default behind
    /// `--profile` and `PINGCLI_PROFILE`: it is handed on as `PINGCLI_PROFILE` when neither is set.
    package static func withCurrentProfile(
        _ environment: Environment, command: String, store: TokenStore
    ) throws(PingCLIError)
        -> Environment
    {
        guard command != "profiles", environment["PINGCLI_PROFILE"] == nil else { return environment }
        // Worded by hand on every command's path (see `TokenProvider.cached`).
        let named: ProfileName?
        do { named = try store.readCurrentProfile() } catch { throw error.cliError }
        guard let current = named else { return environment }
        var chosen = environment
        chosen["PINGCLI_PROFILE"] = current.value
        return chosen
    }

    package typealias CommandRun = @Sendable ([String], Environment, CommandContext) throws(PingCLIError) -> Void

    /// One subcommand: its name, one line for the overview, its options, its help text and its entry point.
    /// `--help`, the completions and the man page are all generated from this table.
    package struct Command: Sendable {
        package var name: String
        package var summary: String
        /// Built only when asked for (completions, the man page, the command's own parser): every
        /// command's options built at each start cost `token` about 0.05 M instructions.
        package var specs: [OptionSpec] { optionSpecs() }
        private var optionSpecs: @Sendable () -> [OptionSpec]
        /// Formatted only when asked for: building every command's help text cost every run about 0.17 ms.
        package var help: @Sendable () -> String
        package var run: CommandRun

        package init<Definition: SubCommand>(_ name: String, _ summary: String, _ definition: Definition.Type) {
            self.name = name
            self.summary = summary
            optionSpecs = { Definition.specs }
            help = { Definition.help }
            run = Definition.run
        }
    }

    /// Every subcommand's name, in the order the overview lists them.
    package static let commandNames = [
        "login", "token", "userinfo", "api", "dpop-proof", "status", "logout", "profiles", "key", "otp", "devices", "git-credential",
        "setup", "aws",
        "completion",
    ]

    /// Every subcommand, in the order the overview lists them.
    package static var commandTable: [Command] { commandNames.compactMap(command(named:)) }

    /// The command of that name, built alone: a run makes no table of all of them (an array of
    /// `Command`, its generic metadata and eleven entries cost every `token --raw` 0.01 M instructions,
    /// docs/performance.md). `commandNames` lists each name here; `CommandTableTests` checks the two agree.
    package static func command(named name: String) -> Command? {
        switch name {
        case "login": Command(name, "sign in with the system browser and cache the tokens", LoginCommand.self)
        case "token": Command(name, "print a fresh token: raw, json or a kubectl ExecCredential", TokenCommand.self)
        case "userinfo": Command(name, "print the provider's claims about you as JSON", UserInfoCommand.self)
        case "api": Command(name, "send one HTTP request with the token; the response body on stdout", APICommand.self)
        case "dpop-proof": Command(name, "print a DPoP proof for one request (profiles logged in with --dpop)", DPoPProofCommand.self)
        case "status": Command(name, "show what is cached for a profile (never a token)", StatusCommand.self)
        case "logout": Command(name, "remove cached tokens; --revoke them at the server; --end-session in the browser", LogoutCommand.self)
        case "profiles": Command(name, "list the profiles", ProfilesCommand.self)
        case "key": Command(name, "move the token-cache key: key migrate --to keyring|file", KeyCommand.self)
        case "otp": Command(name, "one-time codes: otp add (a URI on stdin), otp code NAME, otp list, otp remove", OTPCommand.self)
        case "devices": Command(name, "keys journeys bound on this machine: devices [--json], devices remove KEY_ID", DevicesCommand.self)
        case "git-credential": Command(name, "a git credential helper: the access token as the password", GitCredentialCommand.self)
        case "setup":
            Command(
                name, "set git, kubectl or the AWS CLI up to sign in with the profile: setup git HOST, setup kubectl, setup aws",
                SetupCommand.self)
        case "aws":
            Command(name, "AWS credentials for a role from the ID token: aws credential-process, aws env", AWSCommand.self)
        case "completion": Command(name, "print a bash, zsh or fish completion script", CompletionCommand.self)
        default: nil
        }
    }

    /// `pingcli --version`, for `main.swift` to answer before it builds the argument array.
    public static func version() -> Int32 {
        hardenProcess()
        Console.standard.out("pingcli \(PingCLIVersion.current)")
        return ExitStatus.success.rawValue
    }

    /// The exit status the process ends with: `status`, or 1 with one line on stderr when the command
    /// succeeded but standard output could not be written (`StandardOutput`: `> /dev/full`, a full disk).
    public static func finished(_ status: Int32) -> Int32 { StandardOutput.finished(status) }

    /// The live wiring: real files, libcurl, xdg-open, the system clock.
    public static func main(arguments: [String], environment: Environment) -> Int32 {
        hardenProcess()
        let console = Console.standard
        // Needs no file, so no HOME either (`env -i pingcli --version`, a package's post-install check).
        if arguments == ["--version"] || arguments == ["version"] {
            console.out("pingcli \(PingCLIVersion.current)")
            return ExitStatus.success.rawValue
        }
        if arguments == ["--help-man"] {
            console.out(ManPage.render())
            return ExitStatus.success.rawValue
        }
        let paths: Paths
        let keySource: KeySource
        do throws(PingCLIError) {
            do { paths = try Paths(environment: environment) } catch { throw error.cliError }
            do { keySource = try KeySource(paths: paths, environment: environment) } catch { throw error.cliError }
        } catch {
            console.err("pingcli: \(error.message)")
            recordRule(error, environment: environment)
            return error.status.rawValue
        }
        var store = TokenStore(paths: paths, keySource: keySource)
        if let command = arguments.first, self.command(named: command) != nil { store.lockHolder = "pingcli \(command)" }
        if let pause = environment["PINGCLI_TEST_PAUSE_BEFORE_RENAME"].flatMap(Double.init), pause > 0 {
            // The one test switch in the binary: hold a finished cache write just before its rename, so
            // crash tests can kill -9 the process inside the write, which needs a real process (a thread
            // cannot be killed mid-write). docs/testing.md, "Test-only switches".
            store.beforeTokenRename = { usleep(useconds_t(pause * 1_000_000)) }
        }
        var transportOptions = TransportOptions()
        // The CA bundle variables curl and OpenSSL users already set; --ca-file and a profile's CA win.
        transportOptions.caFile = environment["CURL_CA_BUNDLE"] ?? environment["SSL_CERT_FILE"]
        var context = CommandContext(
            store: store, console: console, clock: systemWallClock,
            browser: SpawnBrowserLauncher(environment: environment), transportOptions: transportOptions,
            makeTransport: { CurlTransport(options: $0) })
        context.inputTerminal = .descriptor(context.input)
        // Not even read here: TPM2TOOLS_TCTI is read, gated and the TPM loaded only by a device step.
        context.tpm = .environment(environment)
        return run(arguments: arguments, environment: environment, context: context)
    }
}

/// What each subcommand's type provides for the command table.
package protocol SubCommand: SendableMetatype {
    static var specs: [OptionSpec] { get }
    static var help: String { get }
    static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError)
}

extension LoginCommand: SubCommand {}
extension TokenCommand: SubCommand {}
extension UserInfoCommand: SubCommand {}
extension StatusCommand: SubCommand {}
extension LogoutCommand: SubCommand {}
extension ProfilesCommand: SubCommand {}
extension GitCredentialCommand: SubCommand {}
extension KeyCommand: SubCommand {}
extension CompletionCommand: SubCommand {}
extension OTPCommand: SubCommand {}
extension DevicesCommand: SubCommand {}
extension APICommand: SubCommand {}
extension DPoPProofCommand: SubCommand {}
extension SetupCommand: SubCommand {}
extension AWSCommand: SubCommand {}
