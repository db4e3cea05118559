#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli userinfo`: claims as JSON.
enum UserInfoCommand {
    static let specs: [OptionSpec] =
        [
            OptionSpec(name: "raw", help: "compact JSON on one line"),
            MinimumTTLOption.spec,
        ] + CommonOptions.specs

    static let help = helpText(
        usage: "pingcli userinfo [--raw] [--min-ttl SECONDS] [--profile NAME]",
        summary: """
            Prints the provider's claims about you (the UserInfo endpoint) as JSON. Refreshes the access token
            when needed, and once more if the server rejects it. Its sub must match the ID token's.
            """,
        specs: specs)

    static func run(_ arguments: [String], environment: [String: String], context: FlowContext) throws(PingCLIError) {
        let parsed = try parseOptions(arguments, specs: specs, command: "userinfo")
        if parsed.flag("help") { return context.console.out(help) }
        let common = try CommonOptions(parsed, environment: environment)
        let minimumTTL = try MinimumTTLOption.value(parsed)
        let claims = try UserInfoFlow(profile: common.profile, context: common.applied(to: context), minimumTTL: minimumTTL).run()
        context.console.out(JSONValue.object(claims).rendered(pretty: !parsed.flag("raw")))
    }
}

/// `pingcli logout`: always wipe locally; optionally revoke and end the browser session.
enum LogoutCommand {
    static let specs: [OptionSpec] =
        [
            OptionSpec(name: "revoke", help: "revoke the refresh and access tokens at the server (RFC 7009)"),
            OptionSpec(name: "end-session", help: "also end the provider's browser session (RP-initiated logout)"),
            OptionSpec(name: "all", help: "every profile"),
            OptionSpec(name: "no-browser", help: "with --end-session: print the URL instead of opening a browser"),
            OptionSpec(name: "timeout", valueName: "SECONDS", help: "with --end-session: how long to wait for the browser (default 120)"),
            OptionSpec(
                name: "port", valueName: "PORT",
                help: "with --end-session: port of the sign-off URL http://127.0.0.1:PORT/logout (default: the profile's, else 8252)"),
        ] + CommonOptions.specs

    static let help = helpText(
        usage: "pingcli logout [--revoke] [--end-session] [--all | --profile NAME]",
        summary: """
            Removes the profile's cached tokens first, always, even when the server cannot be reached. With
            --revoke it then revokes them at the server; a failed revocation says which token may still be live
            and exits non-zero. The profile's settings are kept, so `pingcli login --profile NAME` signs in
            again without flags.
            """,
        specs: specs)

    static func run(_ arguments: [String], environment: [String: String], context: FlowContext) throws(PingCLIError) {
        let parsed = try parseOptions(arguments, specs: specs, command: "logout")
        if parsed.flag("help") { return context.console.out(help) }
        let common = try CommonOptions(parsed, environment: environment)
        let timeout =
            try parsed.seconds("timeout", default: 120, allowZero: false)
        let flow = LogoutFlow(
            context: common.applied(to: context), revoke: parsed.flag("revoke"), endSession: parsed.flag("end-session"),
            openBrowser: !parsed.flag("no-browser"), timeout: timeout, port: try LoginCommand.port(parsed),
            hintAfter: CommonOptions.hintDelay(environment),
            // Test-only: Enter on a pipe as on a terminal.
            canConfirm: isatty(context.input) == 1 || environment["PINGCLI_TEST_CONFIRM_INPUT"] == "1")
        let names = try parsed.profiles(common, store: context.store)
        if names.isEmpty { context.console.err("No profiles: nothing to do.") }
        var problems: [PingCLIError] = []
        for name in names { problems += try flow.run(name) }
        // Every problem gets its own line; the last one is thrown and sets the exit status.
        guard let last = problems.last else { return }
        for problem in problems.dropLast() { context.console.err("pingcli: \(problem.message)") }
        throw last
    }
}

/// `pingcli status`: what is cached, without the network and without secrets.
enum StatusCommand {
    static let specs: [OptionSpec] =
        [
            OptionSpec(name: "all", help: "every profile"),
            OptionSpec(name: "json", help: "JSON for programs"),
        ] + CommonOptions.specs

    static let help = helpText(
        usage: "pingcli status [--all | --profile NAME] [--json]",
        summary: """
            Shows the issuer, client id, subject, access-token expiry, whether a refresh token is held and where
            the files are. Never a token. Exit 0 when logged in (every profile, with --all), 4 when not, 1 when
            a file or the key command is broken (as pingcli token).
            """,
        specs: specs)

    static func run(_ arguments: [String], environment: [String: String], context: FlowContext) throws(PingCLIError) {
        let parsed = try parseOptions(arguments, specs: specs, command: "status")
        if parsed.flag("help") { return context.console.out(help) }
        let common = try CommonOptions(parsed, environment: environment)
        let now = context.clock()
        let names = try parsed.profiles(common, store: context.store)
        let (store, key) = (context.store, context.store.commandKey())
        let reports = parallelMap(names) { ProfileStatus($0, store: store, key: key, now: now) }
        if parsed.flag("json") {
            let json = parsed.flag("all") ? JSONValue.array(reports.map(\.json)) : reports[0].json
            context.console.out(json.rendered(pretty: true))
        } else if !reports.isEmpty {
            context.console.out(reports.map { $0.text(now: now) }.joined(separator: "\n\n"))
        }
        if reports.isEmpty { throw .loginRequired("no profiles: run pingcli login --issuer URL --client-id ID") }
        let failing = reports.filter { !$0.loggedIn }
        guard !failing.isEmpty else { return }
        // The same status `token` would give: 1 when the key command or a file is broken, else 4.
        let status: ExitStatus = failing.contains { $0.problemStatus == .failure } ? .failure : .loginRequired
        throw PingCLIError(status, reports.count == 1 ? reports[0].problem ?? "not logged in" : "not every profile is logged in")
    }
}
