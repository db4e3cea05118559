import PingBase
import PingCommandLine
import PingFlowCore
import PingLogin
import PingOAuth
import PingSession

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli userinfo`: claims as JSON.
package enum UserInfoCommand {
    /// `userinfo`'s own options.
    package enum Option: String, OptionName {
        case raw
    }

    package static let specs: [OptionSpec] =
        [
            OptionSpec(Option.raw, help: "compact JSON on one line"),
            MinimumTTLOption.spec,
        ] + CommonOptions.specs

    package static let help = helpText(
        usage: "pingcli userinfo [--raw] [--min-ttl SECONDS] [--profile NAME]",
        summary: """
            Prints the provider's claims about you (the UserInfo endpoint) as JSON. Refreshes the access token
            when needed, and once more if the server rejects it. Its sub must match the ID token's.
            """,
        specs: specs)

    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let parsed = try parseOptions(arguments, specs: specs, command: "userinfo")
        if parsed.flag(CommonOption.help) { return context.console.help(help) }
        let common = try CommonOptions(parsed, environment: environment)
        let minimumTTL = try MinimumTTLOption.value(parsed)
        let flow = UserInfoFlow(profile: common.profile, context: common.applied(to: context).forSession, minimumTTL: minimumTTL)
        let claims = try flow.run()
        context.console.out(JSONValue.object(claims).rendered(pretty: !parsed.flag(Option.raw)))
    }
}
