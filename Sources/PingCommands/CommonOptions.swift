import PingBase
import PingFlows
import PingPlatform

/// Options every command shares, and the environment variables behind them.
package struct CommonOptions {
    package static let specs: [OptionSpec] = [
        OptionSpec(
            name: "profile", valueName: "NAME",
            help: "profile to use (default: $PINGCLI_PROFILE, else the current profile, else \"default\")"),
        OptionSpec(name: "verbose", help: "describe each HTTP request on stderr (never tokens or codes)"),
        OptionSpec(name: "help", help: "show this help"),
    ]

    package var profile: ProfileName
    package var verbose: Bool

    package init(_ parsed: ParsedOptions, environment: Environment) throws(PingCLIError) {
        profile = try ProfileName(parsed.value("profile") ?? environment["PINGCLI_PROFILE"] ?? "default")
        verbose = parsed.flag("verbose")
    }

    /// The context with `--verbose` tracing switched on when asked.
    package func applied(to context: FlowContext) -> FlowContext {
        guard verbose else { return context }
        var traced = context
        traced.transportOptions.trace = { [console = context.console] line in console.err(line) }
        return traced
    }
}

/// `--min-ttl`, for the commands that hand out an access token (`token`, `userinfo`).
package enum MinimumTTLOption {
    /// The Ping SDKs' refresh threshold.
    package static let defaultSeconds = 30.0

    package static let spec = OptionSpec(
        name: "min-ttl", valueName: "SECONDS",
        help: "refresh first when the token expires within this many seconds (default \(Int(defaultSeconds)))")

    package static func value(_ parsed: ParsedOptions) throws(PingCLIError) -> Double {
        try parsed.seconds("min-ttl", default: defaultSeconds, allowZero: true)
    }
}
