import PingBase
import PingCommandLine
import PingFlowCore
import PingLogin
import PingSession

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli logout`: always wipe locally; optionally revoke and end the browser session.
package enum LogoutCommand {
    /// `logout`'s own options, beside `--all` (`AllProfilesOption`).
    package enum Option: String, OptionName {
        case revoke, json, timeout, port
        case endSession = "end-session"
        case noBrowser = "no-browser"
    }

    package static let specs: [OptionSpec] =
        [
            OptionSpec(Option.revoke, help: "revoke the refresh and access tokens at the server (RFC 7009)"),
            OptionSpec(Option.endSession, help: "also end the provider's browser session (RP-initiated logout)"),
            AllProfilesOption.spec,
            OptionSpec(Option.json, help: "print what was removed, revoked and ended as JSON on stdout (one object per profile)"),
            OptionSpec(Option.noBrowser, help: "with --end-session: print the URL instead of opening a browser"),
            OptionSpec(Option.timeout, valueName: "SECONDS", help: "with --end-session: how long to wait for the browser (default 120)"),
            OptionSpec(
                Option.port, valueName: "PORT",
                help: "with --end-session: port of the sign-off URL http://127.0.0.1:PORT/logout (default: the profile's, else 8252)"),
        ] + CommonOptions.specs

    package static let help = helpText(
        usage: "pingcli logout [--revoke] [--end-session] [--all | --profile NAME]",
        summary: """
            Removes the profile's cached tokens first, always, even when the server cannot be reached (with
            --end-session, once its sign-off port is known to be free). With --revoke it then revokes them at the
            server; a failed revocation says which token may still be live and exits non-zero. The profile's
            settings are kept: `pingcli login --profile NAME` shows the saved issuer and asks before reusing
            them (without a terminal, give --issuer).
            """,
        specs: specs)

    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let parsed = try parseOptions(arguments, specs: specs, command: "logout")
        if parsed.flag(CommonOption.help) { return context.console.help(help) }
        let common = try CommonOptions(parsed, environment: environment)
        let timeout = try parsed.seconds(Option.timeout, allowZero: false) ?? 120
        let (revoke, endSession, all) = (parsed.flag(Option.revoke), parsed.flag(Option.endSession), parsed.flag(AllProfilesOption.all))
        let record = parsed.flag(Option.json) ? LogoutRecord(revoke: revoke, endSession: endSession) : nil
        let applied = common.applied(to: context)
        var flow = LogoutFlow(
            context: applied.forSession, revoke: revoke, endSession: endSession ? applied.signOff : nil,
            openBrowser: !parsed.flag(Option.noBrowser),
            timeout: timeout,
            port: try LoginCommand.port(parsed.value(Option.port), option: Option.port.rawValue),
            hintAfter: context.hintAfter, canConfirm: context.inputIsTerminal)
        let names = try parsed.profiles(all: all, common, store: context.store)
        if names.isEmpty { context.console.err("No profiles: nothing to do.") }
        flow.record = record
        var problems: [PingCLIError] = []
        for name in names {
            let found = try flow.run(name)
            record?.finish(problems: found)
            problems += found
        }
        if let record {
            let json = all ? JSONValue.array(record.profiles) : record.profiles.first ?? .object([:])
            context.console.out(json.rendered(pretty: true))
        }
        // Every profile is signed out: the kernel keyring's copy of the key goes too (the Secret Service
        // keeps the key; the next command asks it again).
        if all { context.store.keySource.forgetCachedKey() }
        // Every problem gets its own line; the last one is thrown and sets the exit status.
        guard let last = problems.last else { return }
        for problem in problems.dropLast() { context.console.err("pingcli: \(problem.message)") }
        throw last
    }
}
