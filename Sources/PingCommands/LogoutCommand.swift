import PingBase
import PingFlows

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli logout`: always wipe locally; optionally revoke and end the browser session.
package enum LogoutCommand {
    package static let specs: [OptionSpec] =
        [
            OptionSpec(name: "revoke", help: "revoke the refresh and access tokens at the server (RFC 7009)"),
            OptionSpec(name: "end-session", help: "also end the provider's browser session (RP-initiated logout)"),
            OptionSpec(name: "all", help: "every profile"),
            OptionSpec(name: "json", help: "print what was removed, revoked and ended as JSON on stdout (one object per profile)"),
            OptionSpec(name: "no-browser", help: "with --end-session: print the URL instead of opening a browser"),
            OptionSpec(name: "timeout", valueName: "SECONDS", help: "with --end-session: how long to wait for the browser (default 120)"),
            OptionSpec(
                name: "port", valueName: "PORT",
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

    package static func run(_ arguments: [String], environment: Environment, context: FlowContext) throws(PingCLIError) {
        let parsed = try parseOptions(arguments, specs: specs, command: "logout")
        if parsed.flag("help") { return context.console.help(help) }
        let common = try CommonOptions(parsed, environment: environment)
        let timeout =
            try parsed.seconds("timeout", default: 120, allowZero: false)
        let record = parsed.flag("json") ? LogoutRecord(revoke: parsed.flag("revoke"), endSession: parsed.flag("end-session")) : nil
        var flow = LogoutFlow(
            context: common.applied(to: context), revoke: parsed.flag("revoke"), endSession: parsed.flag("end-session"),
            openBrowser: !parsed.flag("no-browser"), timeout: timeout, port: try LoginCommand.port(parsed.value("port"), option: "port"),
            hintAfter: context.hintAfter, canConfirm: context.inputIsTerminal)
        let names = try parsed.profiles(common, store: context.store)
        if names.isEmpty { context.console.err("No profiles: nothing to do.") }
        flow.record = record
        var problems: [PingCLIError] = []
        for name in names {
            let found = try flow.run(name)
            record?.finish(problems: found)
            problems += found
        }
        if let record {
            let json = parsed.flag("all") ? JSONValue.array(record.profiles) : record.profiles.first ?? .object([:])
            context.console.out(json.rendered(pretty: true))
        }
        // Every profile is signed out: the kernel keyring's copy of the key goes too (the Secret Service
        // keeps the key; the next command asks it again).
        if parsed.flag("all") { context.store.keySource.forgetCachedKey() }
        // Every problem gets its own line; the last one is thrown and sets the exit status.
        guard let last = problems.last else { return }
        for problem in problems.dropLast() { context.console.err("pingcli: \(problem.message)") }
        throw last
    }
}
