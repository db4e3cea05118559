import PingBase
import PingFlows
import PingOAuth
import PingPlatform
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli login`: argv and environment to `LoginOptions`, then the login flow.
package enum LoginCommand {
    package static let specs: [OptionSpec] =
        [
            OptionSpec(
                name: "issuer", valueName: "URL", help: "OpenID issuer, e.g. https://auth.pingone.com/<env-id>/as ($PINGCLI_ISSUER)"),
            OptionSpec(name: "client-id", valueName: "ID", help: "the native application's client id ($PINGCLI_CLIENT_ID)"),
            OptionSpec(
                name: "scope", valueName: "SCOPES", help: "space-separated scopes (default: the profile's, else \"openid profile email\")"),
            OptionSpec(
                name: "port", valueName: "PORT",
                help: "loopback redirect port, saved and reused (default 0: any free port; --port 0 forgets a saved one)"),
            OptionSpec(
                name: "logout-port", valueName: "PORT",
                help:
                    "port of the sign-off URL http://127.0.0.1:PORT/logout for logout --end-session, saved (default 8252; 0 forgets)"
            ),
            OptionSpec(
                name: "git-host", valueName: "HOST[:PORT][/PATH]", repeatable: true,
                help: "a git server pingcli git-credential may give the token to, saved (repeatable; replaces the saved list)"),
            OptionSpec(name: "no-browser", help: "print the URL instead of opening a browser; paste back the address it ends on"),
            OptionSpec(
                name: "timeout", valueName: "SECONDS",
                help: "how long to wait for the sign-in (default 300; with --device, the code's lifetime)"),
            OptionSpec(
                name: "acr-values", valueName: "VALUES",
                help:
                    "space-separated authentication context classes to ask for (acr_values); the ID token's acr must be one; saved ('' forgets)"
            ),
            OptionSpec(
                name: "max-age", valueName: "SECONDS",
                help: "ask for a sign-in no older than this (max_age); the ID token's auth_time must show it; saved ('' forgets)"),
            OptionSpec(name: "login-hint", valueName: "HINT", help: "pre-fill the user name (login_hint)"),
            OptionSpec(name: "prompt", valueName: "PROMPT", help: "none, login, consent or select_account"),
            OptionSpec(name: "param", valueName: "KEY=VALUE", repeatable: true, help: "extra authorization parameter (repeatable)"),
            OptionSpec(
                name: "client-secret-file", valueName: "PATH",
                help: "a confidential client: read its secret from this file, mode 0600, or - for standard input ($PINGCLI_CLIENT_SECRET)"),
            OptionSpec(
                name: "client-key-file", valueName: "PEM",
                help: "a private_key_jwt client (RFC 7523): sign client assertions with this RSA or EC key, mode 0600; saved"),
            OptionSpec(name: "client-key-id", valueName: "KID", help: "the kid of --client-key-file's key as registered at the provider"),
            OptionSpec(
                name: "client-assertion-audience", valueName: "AUD",
                help: "the assertion's aud: endpoint (default: the URL it is sent to), token-endpoint or issuer; saved"),
            OptionSpec(
                name: "no-par",
                help: "do not push the authorization request (RFC 9126) even when the provider offers it"),
            OptionSpec(
                name: "device",
                help: "sign in with a code on another device (RFC 8628): the address and code are shown here, no redirect"),
            OptionSpec(
                name: "client-credentials",
                help: "sign in as the client itself (RFC 6749 §4.4, no browser, no person); needs the client secret or certificate"),
            OptionSpec(
                name: "ca-file", valueName: "PEM", help: "trust this CA bundle for the issuer ($PINGCLI_CA_FILE); saved with the profile"),
            OptionSpec(
                name: "dpop",
                help:
                    "[ALG] DPoP-bound tokens (RFC 9449) with a key per profile; ALG ES256 (default), EdDSA, PS256 or RS256; saved",
                optionalValues: DPoPAlgorithm.allCases.map(\.rawValue)),
            OptionSpec(name: "no-dpop", help: "bearer tokens again for a profile saved with --dpop"),
            OptionSpec(name: "api-base", valueName: "URL", help: "base URL for relative URLs of pingcli api; saved with the profile"),
            OptionSpec(name: "json", help: "after signing in, print the profile's status as JSON on stdout (as status --json)"),
            OptionSpec(
                name: "force",
                help: "sign in to another issuer on a profile that holds a session without asking; its old tokens are then revoked"),
        ] + endpointSpecs + ClientTLSInputs.specs + LoginJourneyInputs.specs + PingOneIssuer.specs + CommonOptions.specs

    package static let help = helpText(
        usage: "pingcli login [--issuer URL | --pingone ENV_ID [--region R] | --pingone-domain DOMAIN] [--client-id ID] [options]",
        summary: """
            Signs in with the system browser (RFC 8252: loopback redirect, PKCE S256, state, nonce; the request
            pushed first when the provider offers PAR, RFC 9126), with a code on another device (--device, RFC
            8628), or as the client itself (--client-credentials, RFC 6749 §4.4), and caches the tokens,
            encrypted, for `pingcli token`. A confidential client's secret comes from --client-secret-file or
            PINGCLI_CLIENT_SECRET, never from a flag's value. With an existing profile, --issuer, --client-id,
            --port and the way in (--device, --client-credentials) may be left out.
            """,
        specs: specs)

    package static func run(_ arguments: [String], environment: Environment, context: FlowContext) throws(PingCLIError) {
        let parsed = try parseOptions(arguments, specs: specs, command: "login")
        if parsed.flag("help") {
            context.console.help(help)
            return
        }
        let common = try CommonOptions(parsed, environment: environment)
        let key = context.store.commandKey()
        let pingOne = try PingOneIssuer.issuer(parsed)
        let givenIssuer = pingOne?.issuer ?? parsed.value("issuer") ?? environment["PINGCLI_ISSUER"]
        let existing = try Self.savedProfile(common.profile, givenIssuer: givenIssuer, key: key, context: context)

        var gitHosts: [GitHost]?
        if !parsed.all("git-host").isEmpty {
            gitHosts = []
            for text in parsed.all("git-host") { gitHosts?.append(try GitHost(checking: text)) }
        }
        var flags = LoginConfiguration.Flags(
            issuer: pingOne?.issuer ?? parsed.value("issuer"), clientID: parsed.value("client-id"), scope: parsed.value("scope"),
            port: try Self.port(parsed), logoutPort: try Self.port(parsed, option: "logout-port"),
            caFile: try LoginInputChecks.caFile(option: parsed.value("ca-file"), environment: environment["PINGCLI_CA_FILE"]),
            gitHosts: gitHosts,
            device: parsed.flag("device"), clientCredentials: parsed.flag("client-credentials"), noBrowser: parsed.flag("no-browser"),
            dpop: try Self.dpop(parsed), noDPoP: parsed.flag("no-dpop"), apiBase: try Self.apiBase(parsed),
            endpoints: Self.endpoints(parsed))
        (flags.requirements, flags.forgottenRequirements) = try LoginInputChecks.requirements(parsed)
        let resolved = try LoginConfiguration.resolve(flags, environment: environment, saved: existing, profile: common.profile)
        // Shown in full before anything else happens, so the person sees which provider the browser will meet.
        if let pingOne { context.console.err(pingOne.description) }
        let timeoutText = parsed.value("timeout")
        if let timeoutText { _ = try parseSeconds(timeoutText, option: "timeout", allowZero: false) }

        var extra: [FormEncoding.Pair] = []
        let requirements = resolved.requirements
        if let maxAge = requirements.maxAge { extra.append(("max_age", String(maxAge))) }
        if let values = requirements.acrValues { extra.append(("acr_values", values.joined(separator: " "))) }
        if let value = parsed.value("login-hint") { extra.append(("login_hint", value)) }
        if let value = parsed.value("prompt") { extra.append(("prompt", try LoginInputChecks.prompt(value))) }
        for pair in parsed.all("param") {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw .usage("--param needs KEY=VALUE, not \"\(displaySafe(pair, limit: 60))\"")
            }
            let key = String(pair[..<equals])
            guard !AuthorizationRequest.reservedParameters.contains(key) else {
                throw .usage("--param cannot set \(key): pingcli sets it itself")
            }
            if LoginInputChecks.stepUpParameters.contains(key) { continue }  // taken by `requirements` above
            extra.append((key, String(pair[pair.index(after: equals)...])))
        }
        let tls = try ClientTLSInputs.resolve(parsed, issuer: resolved.issuer, existing: existing, now: context.clock())
        let flowContext = common.applied(to: context)
        let clientSecret = try ClientSecretInput.read(parsed, environment: environment, context: context)
        if resolved.grant != .browser && flags.requirements != AuthenticationRequirements() {
            throw .usage(
                "--max-age and --acr-values ask the browser sign-in for a kind of authentication; the device and client credentials grants have no such parameters: leave them out, or sign in with the browser (without --device)"
            )
        }
        let clientKey = try Self.clientKey(parsed, saved: sameIssuerKey(existing, resolved.issuer))
        if clientKey != nil && (clientSecret != nil || tls.certificate != nil) {
            throw .usage(
                "give either --client-key-file, a client secret or a client certificate, not two: a client authenticates one way")
        }
        // Every input is checked before the person is asked whether to replace the session.
        let replacing = try Self.replacedSession(
            common.profile, issuer: resolved.issuer, force: parsed.flag("force"), key: key, context: context)
        if resolved.grant == .clientCredentials {
            guard clientSecret != nil || clientKey != nil || tls.certificate != nil else {
                throw .usage(
                    "signing in with client credentials needs the client secret, a key or a certificate: give --client-secret-file PATH or set PINGCLI_CLIENT_SECRET (or --client-key-file PEM for private_key_jwt, or --client-cert and --client-key for mutual TLS)"
                )
            }
            let attempt = try LoginAttempt.begin(common.profile, store: context.store)
            var succeeded = false
            defer { attempt.end(succeeded: succeeded) }
            let options = ClientCredentialsOptions(
                profile: common.profile, issuer: resolved.issuer, clientID: resolved.clientID, scopes: resolved.clientCredentialsScopes,
                caFile: resolved.caFile, clientSecret: clientSecret, gitHosts: resolved.gitHosts, tls: tls,
                clientKey: clientKey, dpop: resolved.dpop, apiBase: resolved.apiBase, replacing: replacing,
                endpoints: resolved.endpoints)
            try ClientCredentialsFlow(options: options, context: flowContext, key: key).run()
            succeeded = true
            return printJSON(parsed, profile: common.profile, context: context)
        }
        let device = resolved.grant == .device
        // A device code's own expires_in bounds its wait unless --timeout is given.
        let timeout = try parsed.seconds("timeout", default: device ? 24 * 3600 : 300, allowZero: false)
        var openBrowser = !parsed.flag("no-browser")
        if openBrowser && Self.isRemoteWithoutDisplay(environment) {
            openBrowser = false
            context.console.err("pingcli: this is an SSH session without a display, so no browser is opened here (as with --no-browser)")
        }
        var options = LoginOptions(
            profile: common.profile, issuer: resolved.issuer, clientID: resolved.clientID, scopes: resolved.scopes, port: resolved.port,
            logoutPort: resolved.logoutPort, gitHosts: resolved.gitHosts, openBrowser: openBrowser, timeout: timeout,
            extraParameters: extra, caFile: resolved.caFile,
            clientSecret: clientSecret,
            clientKey: clientKey,
            pushedAuthorization: !parsed.flag("no-par"), tls: tls,
            hintAfter: context.hintAfter,
            // A QR code only where someone looks at the terminal.
            qrCode: context.console.errorIsTerminal, requirements: requirements,
            dpop: resolved.dpop, apiBase: resolved.apiBase, replacing: replacing, endpoints: resolved.endpoints)
        options.journey = device ? nil : try LoginJourneyInputs.resolve(parsed, issuer: resolved.issuer, saved: existing)
        let attempt = try LoginAttempt.begin(common.profile, store: context.store)
        var succeeded = false
        defer { attempt.end(succeeded: succeeded) }
        if options.journey != nil {
            try JourneyFlow(options: options, context: flowContext, key: key, terminal: LoginJourneyInputs.terminal(flowContext)).run()
        } else if device {
            try DeviceLoginFlow(options: options, context: flowContext, key: key).run()
        } else {
            try LoginFlow(options: options, context: flowContext, key: key).run()
        }
        succeeded = true
        printJSON(parsed, profile: common.profile, context: context)
    }

    /// `--json`: what `status --json` says about the profile just signed in (never a token).
    package static func printJSON(_ parsed: ParsedOptions, profile: ProfileName, context: FlowContext) {
        guard parsed.flag("json") else { return }
        let now = context.clock()
        let report = ProfileStatus(profile, store: context.store, key: context.store.commandKey(), now: now)
        context.console.out(report.json(now: now).rendered(pretty: true))
    }

    /// `--dpop [ALG]`: the provider's choice, or the algorithm named; `--dpop` with `--no-dpop` is refused.
    package static func dpop(_ parsed: ParsedOptions) throws(PingCLIError) -> DPoPRequest? {
        guard let name = parsed.value("dpop") else { return nil }
        guard !parsed.flag("no-dpop") else { throw .usage("--dpop and --no-dpop cannot be combined: choose one") }
        return name.isEmpty ? .providerChoice : DPoPAlgorithm(rawValue: name).map { .algorithm($0) }
    }

    /// `--api-base URL` through the gate of the URLs `pingcli api` sends tokens to (https, or plain http
    /// to loopback only).
    package static func apiBase(_ parsed: ParsedOptions) throws(PingCLIError) -> EndpointURL? {
        guard let text = parsed.value("api-base") else { return nil }
        do {
            return try APIURL.check(text)
        } catch {
            throw .usage("--api-base \(displaySafe(text, limit: 200)): \(error.message)")
        }
    }

    /// `--port N` (or another port option): 0…65535, or nil when not given.
    package static func port(_ parsed: ParsedOptions, option: String = "port") throws(PingCLIError) -> UInt16? {
        guard let text = parsed.value(option) else { return nil }
        guard let value = UInt16(text) else {
            throw .usage("--\(option) must be a number from 0 to 65535, not \"\(displaySafe(text, limit: 20))\"")
        }
        return value
    }

    /// `--client-key-file`, `--client-key-id`, `--client-assertion-audience`, each over the saved value
    /// of a profile for the same issuer. The file itself is read (through the file gate) by the flow.
    package static func clientKey(_ parsed: ParsedOptions, saved: ClientKeyOptions?) throws(PingCLIError) -> ClientKeyOptions? {
        var audience = saved?.audience ?? .endpoint
        if let text = parsed.value("client-assertion-audience") {
            guard let value = ClientAssertionAudience(rawValue: text) else {
                throw .usage(
                    "--client-assertion-audience must be endpoint, token-endpoint or issuer, not \"\(displaySafe(text, limit: 40))\"")
            }
            audience = value
        }
        // Saved with the profile and read again from any directory: made absolute, as --client-cert is.
        var path = saved?.path
        if let given = parsed.value("client-key-file") { path = try ClientTLSInputs.absolute(given, option: "--client-key-file") }
        guard let path else {
            if parsed.value("client-key-id") != nil || parsed.value("client-assertion-audience") != nil {
                throw .usage("--client-key-id and --client-assertion-audience need --client-key-file PEM")
            }
            return nil
        }
        return ClientKeyOptions(path: path, keyID: parsed.value("client-key-id") ?? saved?.keyID, audience: audience)
    }

    package static func sameIssuerKey(_ existing: Profile?, _ issuer: IssuerURL) -> ClientKeyOptions? {
        existing?.issuer == issuer.value ? existing?.clientKey : nil
    }

    /// An SSH session with neither X11 nor Wayland cannot show a browser on this machine: `xdg-open` would
    /// fail, or start a text browser with no terminal to draw on. Login then behaves as with --no-browser,
    /// as gcloud does. Setting PINGCLI_BROWSER or BROWSER says otherwise.
    package static func isRemoteWithoutDisplay(_ environment: Environment) -> Bool {
        func isSet(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
        return (isSet("SSH_CONNECTION") || isSet("SSH_TTY")) && !isSet("DISPLAY") && !isSet("WAYLAND_DISPLAY")
            && !isSet("PINGCLI_BROWSER") && !isSet("BROWSER")
    }
}
