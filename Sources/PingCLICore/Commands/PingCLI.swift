/// The command-line entry point: argv and environment in, an exit status out.
public enum PingCLI {
    static let usage = """
        pingcli \(PingCLIVersion.current): sign in to PingOne, PingFederate or any OpenID provider, and hand tokens to scripts.

        Usage: pingcli <command> [options]

        Commands:
          login     sign in with the system browser and cache the tokens
          token     print a fresh access token (--raw for scripts)
          help      show this help, or a command's: pingcli help login

        Run pingcli <command> --help for a command's options. Exit codes: 0 ok, 1 failed, 2 usage,
        3 server unreachable, 4 login required.
        """

    /// Runs one command. Errors become one line on stderr, prefixed `pingcli:`, and their exit status.
    public static func run(arguments: [String], environment: [String: String], context: FlowContext) -> Int32 {
        do {
            try dispatch(arguments, environment: environment, context: context)
            return ExitStatus.success.rawValue
        } catch {
            context.console.err("pingcli: \(error.message)")
            return error.status.rawValue
        }
    }

    static func dispatch(_ arguments: [String], environment: [String: String], context: FlowContext) throws(PingCLIError) {
        guard let command = arguments.first else {
            context.console.err(usage)
            throw .usage("no command given: try pingcli login --help")
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "login": try LoginCommand.run(rest, environment: environment, context: context)
        case "token": try TokenCommand.run(rest, environment: environment, context: context)
        case "help", "--help", "-h":
            switch rest.first {
            case "login": context.console.out(LoginCommand.help)
            case "token": context.console.out(TokenCommand.help)
            default: context.console.out(usage)
            }
        case "--version", "version": context.console.out("pingcli \(PingCLIVersion.current)")
        default:
            throw .usage("unknown command \"\(displaySafe(command, limit: 40))\": see pingcli --help")
        }
    }

    /// The live wiring: real files, libcurl, xdg-open, the system clock.
    public static func main(arguments: [String], environment: [String: String]) -> Int32 {
        let console = Console.standard
        let paths: Paths
        do {
            paths = try Paths(environment: environment)
        } catch {
            console.err("pingcli: \(error.message)")
            return error.status.rawValue
        }
        let context = FlowContext(
            store: TokenStore(paths: paths), console: console, clock: systemWallClock,
            browser: SpawnBrowserLauncher(environment: environment), transportOptions: TransportOptions(),
            makeTransport: { CurlTransport(options: $0) })
        return run(arguments: arguments, environment: environment, context: context)
    }
}
