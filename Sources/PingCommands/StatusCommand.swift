import PingBase
import PingFlows
import PingPlatform
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli status`: what is cached, without the network and without secrets.
package enum StatusCommand {
    /// `status`'s own options, beside `--all` (`AllProfilesOption`).
    package enum Option: String, OptionName {
        case json
    }

    package static let specs: [OptionSpec] =
        [
            AllProfilesOption.spec,
            OptionSpec(Option.json, help: "JSON for programs"),
        ] + CommonOptions.specs

    package static let help = helpText(
        usage: "pingcli status [--all | --profile NAME] [--json]",
        summary: """
            Shows the issuer, client id, subject, the scopes and audience the access token was granted, its
            expiry, whether a refresh token is held, the narrower tokens held, what pingcli token would do next
            and where the files are. Never a token. --all: one line per profile ("*" on the one in effect);
            --json: the contract in docs/json.md. Exit 0 when logged in (every profile, with --all), 4 when not, 1 when
            a file or the key command is broken (as pingcli token).
            """,
        specs: specs)

    package static func run(_ arguments: [String], environment: Environment, context: FlowContext) throws(PingCLIError) {
        let parsed = try parseOptions(arguments, specs: specs, command: "status")
        if parsed.flag(CommonOption.help) { return context.console.help(help) }
        let common = try CommonOptions(parsed, environment: environment)
        let now = context.clock()
        let all = parsed.flag(AllProfilesOption.all)
        let names = try parsed.profiles(all: all, common, store: context.store)
        let (store, key, place) = (context.store, context.store.commandKey(), KeyPlace(context.store.keySource))
        let json = parsed.flag(Option.json)
        let inEffect = common.profile.value
        // Each profile's text is made on the thread that read it: built one after another on one core,
        // the texts cost 86,000 of the 640,000 instructions per profile while the reading had two cores.
        // The profiles' files lie in a few directories: each is judged safe once per thread, not once a file.
        let results = parallelMap(names, sharingPathChecks: true) { name in
            // The table shows the account, issuer, state and expiry: the rest is not read for it, and those
            // come from the profile's status summary while it vouches for the files (StatusSummary).
            let table = all && !json
            let report = ProfileStatus(name, store: store, key: key, now: now, extras: !table, summary: table, keyPlace: place)
            return (
                report: report, text: json || all ? "" : report.text(now: now),
                line: table ? StatusTable.line(report, inEffect: inEffect, now: now) : nil
            )
        }
        let reports = results.map(\.report)
        if json {
            let json = all ? JSONValue.array(reports.map { $0.json(now: now) }) : reports[0].json(now: now)
            context.console.out(json.rendered(pretty: true))
        } else if all && !reports.isEmpty {
            context.console.out(StatusTable.render(results.compactMap(\.line), keyStoreOf: reports.first))
        } else if !reports.isEmpty {
            context.console.out(results.map(\.text).joined(separator: "\n\n"))
        }
        if reports.isEmpty { throw .loginRequired("no profiles: run pingcli login --issuer URL --client-id ID", rule: .notLoggedIn) }
        let failing = reports.filter { !$0.loggedIn }
        guard !failing.isEmpty else { return }
        // The same status `token` would give: 1 when the key command or a file is broken, else 4.
        let status: ExitStatus = failing.contains { $0.problemStatus == .failure } ? .failure : .loginRequired
        throw PingCLIError(
            status, reports.count == 1 ? reports[0].problem ?? "not logged in" : "not every profile is logged in", rule: .statusProblem)
    }
}
