import PingBase
import PingFlowCore
import PingPlatform

/// The options every command shares (`CommonOptions`).
package enum CommonOption: String, OptionName {
    case profile, verbose, help
    case httpTimeout = "http-timeout"
}

/// Options every command shares, and the environment variables behind them.
package struct CommonOptions {
    package static let specs: [OptionSpec] = [
        OptionSpec(
            CommonOption.profile, valueName: "NAME",
            help: "profile to use (default: $PINGCLI_PROFILE, else the current profile, else \"default\")"),
        OptionSpec(CommonOption.verbose, help: "describe each HTTP request on stderr (never tokens or codes)"),
        OptionSpec(
            CommonOption.httpTimeout, valueName: "SECONDS",
            help: "the longest one HTTP request may take, connecting included (default 30; $PINGCLI_HTTP_TIMEOUT)"),
        OptionSpec(CommonOption.help, help: "show this help"),
    ]

    package var profile: ProfileName
    package var verbose: Bool
    /// `--http-timeout` or `PINGCLI_HTTP_TIMEOUT`: the per-request limit (libcurl's CURLOPT_TIMEOUT).
    package var httpTimeout: Int?

    package init(_ parsed: ParsedOptions, environment: Environment) throws(PingCLIError) {
        do { profile = try ProfileName(parsed.value(CommonOption.profile) ?? environment["PINGCLI_PROFILE"] ?? "default") } catch {
            throw error.cliError
        }
        verbose = parsed.flag(CommonOption.verbose)
        if let text = parsed.value(CommonOption.httpTimeout) {
            httpTimeout = Int(try parseSeconds(text, option: CommonOption.httpTimeout.rawValue, allowZero: false))
        } else if let text = environment["PINGCLI_HTTP_TIMEOUT"], !text.isEmpty {
            guard let value = Int(text), (1...86_400).contains(value) else {
                throw .usage(
                    "PINGCLI_HTTP_TIMEOUT must be a whole number of seconds above 0, not \"\(displaySafe(text, limit: 30))\"",
                    rule: .secondsGate)
            }
            httpTimeout = value
        }
    }
}

/// `--min-ttl`, for the commands that hand out an access token (`token`, `userinfo`, `api`, `dpop-proof`,
/// `git-credential`).
package enum MinimumTTLOption: String, OptionName {
    case minTTL = "min-ttl"

    /// The Ping SDKs' refresh threshold.
    package static let defaultSeconds = 30.0

    // The default written out: an interpolated integer is code every start would page in for it alone
    // (docs/performance.md); a test checks it is `defaultSeconds`.
    package static let spec = OptionSpec(
        MinimumTTLOption.minTTL, valueName: "SECONDS",
        help: "refresh first when the token expires within this many seconds (default 30)")

    package static func value(_ parsed: ParsedOptions) throws(PingCLIError) -> Double {
        try parsed.seconds(MinimumTTLOption.minTTL, allowZero: true) ?? defaultSeconds
    }
}

/// `--all`, for the commands that work on every profile at once (`status`, `logout`).
package enum AllProfilesOption: String, OptionName {
    case all

    package static let spec = OptionSpec(AllProfilesOption.all, help: "every profile")
}
