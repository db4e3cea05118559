import PingBase
import PingCommandLine
import PingFlowCore
import PingLogin
import PingPlatform
import PingSession
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

    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let parsed = try parseOptions(arguments, specs: specs, command: "status")
        if parsed.flag(CommonOption.help) { return context.console.help(help) }
        let common = try CommonOptions(parsed, environment: environment)
        let now = context.clock()
        let all = parsed.flag(AllProfilesOption.all)
        let json = parsed.flag(Option.json)
        if all { return try json ? jsonAll(parsed, common, now: now, context: context) : table(parsed, common, now: now, context: context) }
        let names = try parsed.profiles(all: all, common, store: context.store)
        let (store, key, place) = (context.store, context.store.commandKey(), KeyPlace(context.store.keySource))
        // Each profile's text is made on the thread that read it: built one after another on one core,
        // the texts cost 86,000 of the 640,000 instructions per profile while the reading had two cores.
        // The profiles' files lie in a few directories: each is judged safe once per thread, not once a file.
        let results = parallelMap(names, sharingPathChecks: true) { name in
            let report = ProfileStatus(name, store: store, key: key, now: now, keyPlace: place)
            return (report: report, text: json ? "" : report.text(now: now))
        }
        let reports = results.map(\.report)
        if json {
            let json = all ? JSONValue.array(reports.map { $0.json(now: now) }) : reports[0].json(now: now)
            context.console.out(json.rendered(pretty: true))
        } else if !reports.isEmpty {
            context.console.out(results.map(\.text).joined(separator: "\n\n"))
        }
        if reports.isEmpty { throw noProfiles }
        let failing = reports.filter { !$0.loggedIn }
        guard !failing.isEmpty else { return }
        // One profile's problem is already on the screen (its problem: line) when stdout and stderr both are
        // the terminal: only the exit status says it again. Piped, stderr still carries the line.
        let shown =
            !json && reports.count == 1 && reports[0].problem != nil && context.console.outputIsTerminal && context.console.errorIsTerminal
        throw failure(
            shown ? "" : reports.count == 1 ? reports[0].problem ?? "not logged in" : "not every profile is logged in",
            broken: failing.contains { $0.problemStatus == .failure })
    }

    /// `status --all`: one line per profile. The table shows the account, issuer, state and expiry: the
    /// rest is not read for it, and those come from the status index, else the profile's status summary,
    /// while they vouch for the files. It lists the profiles' directories and leaves out those its reads
    /// find without settings; each line is made on the thread that read the profile, and only the line
    /// and the state leave it (a thousand full reports copied cost more than the table).
    private static func table(_ parsed: ParsedOptions, _ common: CommonOptions, now: Double, context: CommandContext) throws(PingCLIError) {
        let names = try parsed.profiles(all: true, common, store: context.store, requireSettings: false)
        let (store, key, place) = (context.store, context.store.commandKey(), KeyPlace(context.store.keySource))
        let inEffect = common.profile.value
        let index = StatusIndex(store: store, key: key)
        let rows = parallelMap(names, sharingPathChecks: true) { name -> StatusTable.Row? in
            let report = ProfileStatus(name, store: store, key: key, now: now, extras: false, summary: true, keyPlace: place, index: index)
            guard report.hasSettings else { return nil }
            return StatusTable.Row(
                line: StatusTable.line(report, inEffect: inEffect, now: now), loggedIn: report.loggedIn,
                broken: report.problemStatus == .failure)
        }.compactMap { $0 }
        if !rows.isEmpty { context.console.out(StatusTable.render(rows.map(\.line), keyStore: place)) }
        index.save()
        if rows.isEmpty { throw noProfiles }
        guard rows.contains(where: { !$0.loggedIn }) else { return }
        throw failure("not every profile is logged in", broken: rows.contains { $0.broken })
    }

    /// `status --all --json`: every profile's object, from the status index or the profile's status
    /// summary (with the details the contract needs) while they vouch for its files and neither the
    /// refresh record nor narrower tokens are there; else from its files, as `status --json` reads them.
    /// Each object is rendered on the thread that read the profile; the array is their texts joined.
    private static func jsonAll(_ parsed: ParsedOptions, _ common: CommonOptions, now: Double, context: CommandContext) throws(PingCLIError)
    {
        let names = try parsed.profiles(all: true, common, store: context.store, requireSettings: false)
        let (store, key, place) = (context.store, context.store.commandKey(), KeyPlace(context.store.keySource))
        let index = StatusIndex(store: store, key: key)
        let rows = parallelMap(names, sharingPathChecks: true) { name -> JSONRow? in
            let report = ProfileStatus(name, store: store, key: key, now: now, summary: true, keyPlace: place, index: index)
            guard report.hasSettings else { return nil }
            var text: [UInt8] = []
            text.reserveCapacity(2048)
            report.writeJSON(now: now, to: &text, prettyAtLevel: 1)
            return JSONRow(text: text, loggedIn: report.loggedIn, broken: report.problemStatus == .failure, problem: report.problem)
        }.compactMap { $0 }
        context.console.outRaw(arrayText(rows.map(\.text)))
        index.save()
        if rows.isEmpty { throw noProfiles }
        guard rows.contains(where: { !$0.loggedIn }) else { return }
        throw failure(
            rows.count == 1 ? rows[0].problem ?? "not logged in" : "not every profile is logged in", broken: rows.contains { $0.broken })
    }

    /// The pretty array of the objects' texts, and a newline, in one buffer written as it is: the
    /// writer already escaped every character that acts on a terminal (`JSONValue`), and a thousand
    /// profiles' report (over a megabyte) is not copied again to be checked and ended.
    private static func arrayText(_ objects: [[UInt8]]) -> [UInt8] {
        guard !objects.isEmpty else { return Array("[]\n".utf8) }
        var text: [UInt8] = []
        text.reserveCapacity(objects.reduce(4) { $0 + $1.count + 4 })
        text += "[\n  ".utf8
        for (index, object) in objects.enumerated() {
            if index > 0 { text += ",\n  ".utf8 }
            text += object
        }
        text += "\n]\n".utf8
        return text
    }

    /// One profile's object of `status --all --json` and what its exit status needs.
    private struct JSONRow: Sendable {
        let text: [UInt8]
        let loggedIn: Bool
        let broken: Bool
        let problem: String?
    }

    package static let noProfiles = PingCLIError.loginRequired(
        "no profiles: run pingcli login --issuer URL --client-id ID", rule: .notLoggedIn)

    /// The same status `token` would give: 1 when the key command or a file is broken, else 4.
    package static func failure(_ message: String, broken: Bool) -> PingCLIError {
        PingCLIError(broken ? .failure : .loginRequired, message, rule: .statusProblem)
    }
}
