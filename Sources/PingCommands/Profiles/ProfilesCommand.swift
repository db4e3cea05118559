import PingBase
import PingCommandLine
import PingFlowCore
import PingLogin
import PingPlatform
import PingSession
import PingState

/// `pingcli profiles [--json]`, `profiles use NAME`, `profiles remove NAME [--revoke]`.
package enum ProfilesCommand {
    /// `profiles`' options (no `--profile`: the operations name the profile).
    package enum Option: String, OptionName {
        case json, names, trees, revoke, verbose, help
    }

    package static let specs: [OptionSpec] = [
        OptionSpec(Option.json, help: "list: JSON for programs"),
        OptionSpec(Option.names, help: "list: only the names, one a line, without reading any token (for completions)"),
        OptionSpec(
            Option.trees,
            help: "list: only the journey trees the profiles sign in with, one a line, without reading any token (for completions)"),
        OptionSpec(Option.revoke, help: "remove: revoke the tokens at the server first, as pingcli logout --revoke"),
        OptionSpec(Option.verbose, help: "describe each HTTP request on stderr (never tokens or codes)"),
        OptionSpec(Option.help, help: "show this help"),
    ]

    /// `profiles`' operations (`list` when none is given).
    package enum Operation: String, CommandOperation {
        case list, use, remove

        package static func unknown(_ operand: String?) -> PingCLIError { unknownOperation(operand ?? "", command: "profiles") }
    }

    package static let help = helpText(
        usage: "pingcli profiles [list] [--json | --names | --trees] | profiles use NAME | profiles remove NAME [--revoke]",
        summary: """
            Lists the profiles, one a line: "*" before the current one, name, issuer, client id and state
            (logged in, not logged in, session expired, or a problem), tab-separated; on a terminal, aligned
            under a header. "*" marks the profile in effect ($PINGCLI_PROFILE, else the current one, else
            default), as --json's "current" does. `use NAME` makes NAME the
            current profile, the default of every command (--profile and $PINGCLI_PROFILE still win); it is
            kept in the config directory. `remove NAME` deletes the profile's tokens and settings; with
            --revoke it first revokes the tokens at the server, as pingcli logout --revoke does.
            """,
        specs: specs)

    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let positional = arguments.filter { !$0.hasPrefix("-") }
        let parsed = try parseOptions(arguments.filter { $0.hasPrefix("-") }, specs: specs, command: "profiles")
        if parsed.flag(Option.help) { return context.console.help(help) }
        let operation = try Operation.named(positional.first ?? Operation.list.rawValue)
        let names = Array(positional.dropFirst())
        func allow(_ allowed: [Option]) throws(PingCLIError) {
            try parsed.refuse(outside: allowed, command: "profiles", operation: operation.rawValue)
        }
        func oneName() throws(PingCLIError) -> ProfileName {
            guard names.count == 1 else {
                throw .usage(
                    "pingcli profiles \(operation.rawValue) needs one profile name: see pingcli profiles --help", rule: .commandOperand)
            }
            do { return try ProfileName(names[0]) } catch { throw error.cliError }
        }
        switch operation {
        case .list:
            try allow([.json, .names, .trees])
            guard names.isEmpty else {
                throw .usage("pingcli profiles list takes no name: see pingcli profiles --help", rule: .commandOperand)
            }
            if parsed.flag(Option.names) {
                for name in context.store.profileNames() { context.console.out(name.value) }
                return
            }
            if parsed.flag(Option.trees) {
                let trees = context.store.profileNames().compactMap { try? context.store.readProfile($0)?.journey }
                for tree in Set(trees).sorted() { context.console.out(tree) }
                return
            }
            try list(json: parsed.flag(Option.json), inEffect: environment["PINGCLI_PROFILE"], context: context)
        case .use:
            try allow([])
            let name = try oneName()
            try FileAdvice.worded(try context.store.setCurrentProfile(name))
            context.console.err("The current profile is now \"\(name)\".")
            if !context.store.profileNames().contains(name) {
                context.console.err("Profile \"\(name)\" has no settings yet: pingcli login --issuer URL --client-id ID signs it in.")
            }
        case .remove:
            try allow([.revoke, .verbose])
            try remove(try oneName(), revoke: parsed.flag(Option.revoke), verbose: parsed.flag(Option.verbose), context: context)
        }
    }

    /// One line (or one JSON object) per profile, the current one marked. On a terminal: a header, aligned
    /// columns, and the mark on the profile in effect (`PINGCLI_PROFILE` when set, else the current one).
    package static func list(json: Bool, inEffect: String?, context: CommandContext) throws(PingCLIError) {
        let current = (try? context.store.readCurrentProfile()) ?? nil
        let now = context.clock()
        let (store, key, place) = (context.store, context.store.commandKey(), KeyPlace(context.store.keySource))
        // The plain list shows no subject and no failed refresh, so it reads neither; what it shows comes
        // from the status index, else each profile's status summary, while they vouch for the files.
        // Without --json it lists the directories and leaves out those its reads find without settings.
        let names = store.profileNames(requireSettings: json)
        let index = json ? nil : StatusIndex(store: store, key: key)
        let reports = Array(
            zip(
                names,
                parallelMap(names, sharingPathChecks: true) {
                    ProfileStatus($0, store: store, key: key, now: now, details: json, summary: !json, keyPlace: place, index: index)
                }
            )
        ).filter { $0.1.hasSettings }
        defer { index?.save() }
        // "*" and `current` name the same profile: the one in effect, which a command without --profile uses.
        let marked = inEffect ?? current?.value ?? "default"
        if json {
            let objects = reports.map { name, report -> JSONValue in
                guard case .object(var members) = report.json(now: now) else { return report.json(now: now) }
                members["current"] = .bool(name.value == marked)
                return .object(members)
            }
            return context.console.out(JSONValue.array(objects).rendered(pretty: true))
        }
        let terminal = context.console.outputIsTerminal
        var rows = reports.map { name, report in
            [
                "\(name.value == marked ? "*" : " ") \(name)", displaySafe(report.issuer ?? "(damaged)"),
                displaySafe(report.clientID ?? ""), state(report),
            ]
        }
        guard terminal, !rows.isEmpty else {
            for row in rows { context.console.out(row.joined(separator: "\t")) }
            if reports.isEmpty { context.console.err("No profiles. Run pingcli login --issuer URL --client-id ID") }
            return
        }
        rows.insert(["  PROFILE", "ISSUER", "CLIENT ID", "STATE"], at: 0)
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let padded = (0..<3).map { row[$0] + String(repeating: " ", count: widths[$0] - row[$0].count + 2) }
            context.console.out(padded.joined() + row[3])
        }
        if let inEffect, !reports.contains(where: { $0.0.value == inEffect }) {
            context.console.err("The profile in effect, \"\(displaySafe(inEffect, limit: 64))\" (PINGCLI_PROFILE), has no settings yet.")
        }
    }

    /// A few words for the list: whether the profile can hand out a token without a new login.
    package static func state(_ report: ProfileStatus) -> String {
        switch report.state {
        case .loggedIn: "logged in"
        case .notLoggedIn: "not logged in"
        case .sessionExpired: "session expired"
        case .problem: "problem: see pingcli status --profile \(report.profile)"
        }
    }

    /// Removes a profile's tokens and settings, revoking the tokens first when asked. A failed
    /// revocation is reported after everything is removed (the tokens are gone locally either way).
    package static func remove(_ name: ProfileName, revoke: Bool, verbose: Bool, context: CommandContext) throws(PingCLIError) {
        guard context.store.profileExists(name) else {
            throw .usage("no profile \"\(name)\": pingcli profiles lists them", rule: .profileUnknown)
        }
        var problems: [PingCLIError] = []
        if revoke, context.store.profileNames().contains(name) {
            var session = context.forSession
            if verbose { session.transports.options.trace = { [console = context.console] line in console.err(line) } }
            problems = try LogoutFlow(context: session, revoke: true, endSession: nil, openBrowser: false, timeout: 120).run(name)
        }
        try StoreAdvice.worded(context.store.deleteProfile(name))
        if (try? context.store.readCurrentProfile()) == name { try FileAdvice.worded(try context.store.setCurrentProfile(nil)) }
        context.console.err("Removed profile \"\(name)\": its tokens and settings.")
        guard let last = problems.last else { return }
        for problem in problems.dropLast() { context.console.err("pingcli: \(problem.message)") }
        throw last
    }
}
