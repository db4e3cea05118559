import PingBase
import PingCommandLine
import PingFIDO2
import PingFlowCore
import PingJourney
import PingOAuth
import PingPlatform
import PingSession
import PingSignIn
import PingWebAuthn

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli login`: argv and environment to a `LoginPlan`, resolved into one `SignIn`, then the sign-in flow.
package enum LoginCommand {
    package static let specs: [OptionSpec] =
        [
            OptionSpec(
                LoginOption.issuer, valueName: "URL", help: "OpenID issuer, e.g. https://auth.pingone.com/<env-id>/as ($PINGCLI_ISSUER)"),
            OptionSpec(LoginOption.clientID, valueName: "ID", help: "the native application's client id ($PINGCLI_CLIENT_ID)"),
            OptionSpec(
                LoginOption.scope, valueName: "SCOPES",
                help: "space-separated scopes (default: the profile's, else \"openid profile email\")"),
            OptionSpec(
                LoginOption.port, valueName: "PORT",
                help: "loopback redirect port, saved and reused (default 0: any free port; --port 0 forgets a saved one)"),
            OptionSpec(
                LoginOption.logoutPort, valueName: "PORT",
                help:
                    "port of the sign-off URL http://127.0.0.1:PORT/logout for logout --end-session, saved (default 8252; 0 forgets)"
            ),
            OptionSpec(
                LoginOption.gitHost, valueName: "HOST[:PORT][/PATH]", repeatable: true,
                help: "a git server pingcli git-credential may give the token to, saved (repeatable; replaces the saved list)"),
            OptionSpec(LoginOption.noBrowser, help: "print the URL instead of opening a browser; paste back the address it ends on"),
            OptionSpec(
                LoginOption.timeout, valueName: "SECONDS",
                help: "how long to wait for the sign-in (default 300; with --device, the code's lifetime)"),
            OptionSpec(
                LoginOption.acrValues, valueName: "VALUES",
                help:
                    "space-separated authentication context classes to ask for (acr_values); the ID token's acr must be one; saved ('' forgets)"
            ),
            OptionSpec(
                LoginOption.maxAge, valueName: "SECONDS",
                help: "ask for a sign-in no older than this (max_age); the ID token's auth_time must show it; saved ('' forgets)"),
            OptionSpec(LoginOption.loginHint, valueName: "HINT", help: "pre-fill the user name (login_hint)"),
            OptionSpec(LoginOption.prompt, valueName: "PROMPT", help: "none, login, consent or select_account"),
            OptionSpec(LoginOption.param, valueName: "KEY=VALUE", repeatable: true, help: "extra authorization parameter (repeatable)"),
            OptionSpec(
                LoginOption.clientSecretFile, valueName: "PATH",
                help: "a confidential client: read its secret from this file, mode 0600, or - for standard input ($PINGCLI_CLIENT_SECRET)"),
            OptionSpec(
                LoginOption.clientKeyFile, valueName: "PEM",
                help: "a private_key_jwt client (RFC 7523): sign client assertions with this RSA or EC key, mode 0600; saved"),
            OptionSpec(LoginOption.clientKeyID, valueName: "KID", help: "the kid of --client-key-file's key as registered at the provider"),
            OptionSpec(
                LoginOption.clientAssertionAudience, valueName: "AUD",
                help: "the assertion's aud: endpoint (default: the URL it is sent to), token-endpoint or issuer; saved"),
            OptionSpec(
                LoginOption.noPAR,
                help: "do not push the authorization request (RFC 9126) even when the provider offers it"),
            OptionSpec(
                LoginOption.device,
                help: "sign in with a code on another device (RFC 8628): the address and code are shown here, no redirect"),
            OptionSpec(
                LoginOption.clientCredentials,
                help: "sign in as the client itself (RFC 6749 §4.4, no browser, no person); needs the client secret or certificate"),
            OptionSpec(
                LoginOption.caFile, valueName: "PEM", help: "trust this CA bundle for the issuer ($PINGCLI_CA_FILE); saved with the profile"
            ),
            OptionSpec(
                LoginOption.dpop,
                help:
                    "[ALG] DPoP-bound tokens (RFC 9449) with a key per profile; ALG ES256 (default), EdDSA, PS256 or RS256; saved",
                optionalValues: DPoPAlgorithm.allCases.map(\.rawValue)),
            OptionSpec(LoginOption.noDPoP, help: "bearer tokens again for a profile saved with --dpop"),
            OptionSpec(LoginOption.apiBase, valueName: "URL", help: "base URL for relative URLs of pingcli api; saved with the profile"),
            OptionSpec(LoginOption.json, help: "after signing in, print the profile's status as JSON on stdout (as status --json)"),
            OptionSpec(
                LoginOption.force,
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

    /// Parse → plan → run: argv to typed flags, the flags to a plan, the plan to a sign-in.
    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let parsed = try parseOptions(arguments, specs: specs, command: "login")
        if parsed.flag(CommonOption.help) {
            context.console.help(help)
            return
        }
        let common = try CommonOptions(parsed, environment: environment)
        let flags = try LoginPlan.Flags(parsing: parsed)
        let plan = try plan(flags, profile: common.profile, environment: environment, context: context)
        try run(plan, context: common.applied(to: context))
    }

    /// The plan for `flags`: the saved profile this login may reuse (`savedProfile`, which may ask on a
    /// terminal), then the pure `LoginPlan.resolve`. The kubectl and git helpers' sign-in on first use
    /// (`HelperSignIn`) calls this with no flags: the profile's saved login.
    package static func plan(
        _ flags: LoginPlan.Flags, profile: ProfileName, environment: Environment, context: CommandContext
    ) throws(PingCLIError) -> LoginPlan {
        let givenIssuer = flags.issuer ?? environment["PINGCLI_ISSUER"]
        let saved = try savedProfile(profile, givenIssuer: givenIssuer, key: context.store.commandKey(), context: context)
        return try LoginPlan.resolve(flags, environment: environment, saved: saved, profile: profile)
    }

    /// Carries the plan out: says how the issuer was made, reads the files it names through their gates
    /// (CA, certificate and key, secret, journey answers), asks before replacing a session at another
    /// issuer, and runs the grant's flow under the profile's login lock.
    package static func run(_ plan: LoginPlan, context: CommandContext) throws(PingCLIError) {
        // Shown in full before anything else happens, so the person sees which provider the browser will meet.
        if let line = plan.announcement { context.console.err(line) }
        var plan = plan
        if let option = plan.caFileSource, let path = plan.caFile { plan.caFile = try LoginInputChecks.caFile(path, option: option) }
        let tls = try ClientTLSInputs.load(plan.tls, now: context.clock())
        let clientSecret = try ClientSecretInput.read(plan.clientSecret, context: context)
        let key = context.store.commandKey()
        // Every input is checked before the person is asked whether to replace the session.
        let replacing = try replacedSession(plan.profile, issuer: plan.issuer, force: plan.force, key: key, context: context)
        if plan.browserHeldBack {
            context.console.err("pingcli: this is an SSH session without a display, so no browser is opened here (as with --no-browser)")
        }
        var signIn = plan.signIn(clientSecret: clientSecret, tls: tls, replacing: replacing, context: context)
        if let path = plan.journeyAnswers { signIn.journey?.answers = try LoginJourneyInputs.answers(path) }
        let attempt = try LoginAttempt.begin(plan.profile, store: context.store)
        var succeeded = false
        defer { attempt.end(succeeded: succeeded) }
        switch signIn.way {
        case .clientCredentials: try ClientCredentialsFlow(signIn: signIn, context: context.forSession, key: key).run()
        case .browser where signIn.journey != nil:
            var flow = JourneyFlow(signIn: signIn, context: context.forJourney, key: key, terminal: LoginJourneyInputs.terminal(context))
            flow.securityKey = securityKey
            try flow.run()
        case .device: try DeviceLoginFlow(signIn: signIn, context: context.forSignIn, key: key).run()
        case .browser: try LoginFlow(signIn: signIn, context: context.forSignIn, key: key).run()
        }
        succeeded = true
        if plan.printJSON { printJSON(profile: plan.profile, context: context) }
    }

    /// A FIDO2 security key for a journey's WebAuthn steps: called when a step may use one, it returns the
    /// first key plugged in (PingFIDO2, through libfido2), nil when there is none or libfido2 is missing
    /// (the step is then told `NotAllowedError`).
    package static let securityKey: (@Sendable () -> (any WebAuthnAuthenticator)?)? = { SecurityKey.connected() }

    /// `--json`: what `status --json` says about the profile just signed in (never a token).
    package static func printJSON(profile: ProfileName, context: CommandContext) {
        let now = context.clock()
        let report = ProfileStatus(profile, store: context.store, key: context.store.commandKey(), now: now)
        context.console.out(report.json(now: now).rendered(pretty: true))
    }

    /// `--port N` (or another port option): 0…65535, or nil when not given.
    package static func port(_ text: String?, option: String) throws(PingCLIError) -> UInt16? {
        guard let text else { return nil }
        guard let value = UInt16(text) else {
            throw .usage("--\(option) must be a number from 0 to 65535, not \"\(displaySafe(text, limit: 20))\"", rule: .portGate)
        }
        return value
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
