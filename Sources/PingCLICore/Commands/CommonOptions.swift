/// Options every command shares, and the environment variables behind them.
struct CommonOptions {
    static let specs: [OptionSpec] = [
        OptionSpec(name: "profile", valueName: "NAME", help: "profile to use (default: $PINGCLI_PROFILE or \"default\")"),
        OptionSpec(name: "verbose", help: "describe each HTTP request on stderr (never tokens or codes)"),
        OptionSpec(name: "help", help: "show this help"),
    ]

    var profile: ProfileName
    var verbose: Bool

    init(_ parsed: ParsedOptions, environment: [String: String]) throws(PingCLIError) {
        profile = try ProfileName(parsed.value("profile") ?? environment["PINGCLI_PROFILE"] ?? "default")
        verbose = parsed.flag("verbose")
    }
}
