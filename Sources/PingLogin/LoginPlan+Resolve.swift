import PingBase
import PingOAuth
import PingPlatform
import PingState

/// `LoginPlan.resolve`: pure. Flags first, then the `PINGCLI_*` environment, then the saved profile.
extension LoginPlan {
    /// Resolves the flags against `environment` and the saved profile (`saved`, nil when there is none
    /// or nothing vouches for it and the person did not confirm it: `LoginCommand.savedProfile`).
    /// Every check that needs no file, no network and no person fails here.
    package static func resolve(
        _ flags: Flags, environment: Environment, saved: Profile?, profile: ProfileName
    ) throws(PingCLIError) -> LoginPlan {
        var plan = try settings(flags, environment: environment, saved: saved, profile: profile)
        let sameIssuer = saved?.issuer == plan.issuer.value ? saved : nil
        plan.extraParameters = extraParameters(flags, requirements: plan.requirements)
        plan.timeout = flags.timeout ?? (plan.grant == .device ? 24 * 3600 : 300)
        plan.openBrowser = !flags.noBrowser
        if plan.grant != .clientCredentials && plan.openBrowser && LoginCommand.isRemoteWithoutDisplay(environment) {
            plan.openBrowser = false
            plan.browserHeldBack = true
        }
        plan.pushedAuthorization = !flags.noPAR
        plan.force = flags.force
        plan.printJSON = flags.json
        plan.announcement = flags.issuerDescription
        plan.tls = try ClientTLSInputs.settings(flags.clientTLS, issuer: plan.issuer, saved: sameIssuer?.clientTLS)
        try plan.authentication(flags, environment: environment, savedKey: sameIssuer?.clientKey)
        if plan.grant == .browser {
            (plan.journey, plan.journeyAnswers) = try LoginJourneyInputs.resolve(flags, issuer: plan.issuer, saved: sameIssuer)
        }
        return plan
    }

    /// The settings bound to the issuer and the way in (what `LoginPlanTests` checks alone).
    package static func settings(
        _ flags: Flags, environment: Environment, saved: Profile?, profile: ProfileName
    ) throws(PingCLIError) -> LoginPlan {
        guard let issuerText = flags.issuer ?? environment["PINGCLI_ISSUER"] ?? saved?.issuer else {
            throw .usage(
                "missing --issuer URL (or --pingone ENV_ID, or PINGCLI_ISSUER) for profile \"\(profile)\": see pingcli login --help",
                rule: .loginSettingsMissing)
        }
        guard let clientID = flags.clientID ?? environment["PINGCLI_CLIENT_ID"] ?? saved?.clientID, !clientID.isEmpty else {
            throw .usage(
                "missing --client-id ID (or PINGCLI_CLIENT_ID) for profile \"\(profile)\": see pingcli login --help",
                rule: .loginSettingsMissing)
        }
        let issuer: IssuerURL
        do { issuer = try IssuerURL(issuerText) } catch { throw error.cliError }
        // The same-issuer rule, once: settings registered with (or about) one issuer never follow the
        // profile to another.
        let sameIssuer = saved?.issuer == issuer.value ? saved : nil
        // A person's sign-in settings (not a machine's scopes) come back for the next person's login, so
        // `login --profile NAME` (the hint after a logout) signs in for what the profile signed in for.
        let savedPerson = sameIssuer?.grantType == .clientCredentials ? nil : sameIssuer
        let savedScopes = savedPerson.flatMap { $0.scopes.isEmpty ? nil : $0.scopes.joined(separator: " ") }
        let scopes = (flags.scope ?? savedScopes ?? defaultScopes.joined(separator: " ")).split(separator: " ").map(String.init)
        guard !scopes.isEmpty else { throw .usage("--scope is empty: give at least one scope, e.g. --scope openid", rule: .scopeEmpty) }
        // The way a profile was signed in is used again when none is named.
        let named = flags.device || flags.clientCredentials || flags.noBrowser
        let savedGrant = named ? nil : sameIssuer?.grantType
        let grant = try Self.grant(flags, saved: savedGrant)
        let given: EndpointOverrides
        do { given = try EndpointOverrides(checking: flags.endpoints.filter { !$0.value.isEmpty }, issuer: issuer) } catch {
            throw error.cliError
        }
        let endpoints = given.merged(
            over: sameIssuer.map(EndpointOverrides.init(saved:)) ?? EndpointOverrides(),
            forgetting: Set(flags.endpoints.filter { $0.value.isEmpty }.keys))
        let environmentCA = environment["PINGCLI_CA_FILE"]
        return LoginPlan(
            profile: profile, issuer: issuer, clientID: clientID, scopes: scopes,
            clientCredentialsScopes: flags.scope.map { $0.split(separator: " ").map(String.init) }
                ?? (savedGrant == .clientCredentials ? sameIssuer?.scopes : nil) ?? [],
            port: flags.port ?? sameIssuer?.port ?? 0,
            logoutPort: flags.logoutPort.map { $0 == 0 ? nil : $0 } ?? sameIssuer?.logoutPort,
            caFile: flags.caFile ?? environmentCA ?? sameIssuer?.caFile,
            caFileSource: flags.caFile != nil ? "--ca-file" : environmentCA != nil ? "PINGCLI_CA_FILE" : nil,
            gitHosts: flags.gitHosts ?? sameIssuer?.gitHosts, grant: grant,
            dpop: flags.noDPoP ? nil : flags.dpop ?? sameIssuer?.dpop.flatMap(DPoPAlgorithm.init(rawValue:)).map { .algorithm($0) },
            apiBase: flags.apiBase ?? sameIssuer?.apiBase.flatMap { try? APIURL.check($0) }, endpoints: endpoints,
            requirements: requirements(flags, saved: grant == .browser ? savedPerson : nil))
    }

    package static func grant(_ flags: Flags, saved: Profile.GrantType?) throws(PingCLIError) -> Grant {
        if flags.clientCredentials || saved == .clientCredentials {
            guard !flags.device else {
                throw .usage("--device and --client-credentials cannot be combined: choose one", rule: .optionConflict)
            }
            return .clientCredentials
        }
        return flags.device || saved == .deviceCode ? .device : .browser
    }

    /// Step-up requirements belong to the browser sign-in (the other grants have no such parameters):
    /// each given one, else the saved one unless given empty.
    package static func requirements(_ flags: Flags, saved: Profile?) -> AuthenticationRequirements {
        AuthenticationRequirements(
            maxAge: flags.requirements.maxAge ?? (flags.forgottenRequirements.contains(.maxAge) ? nil : saved?.maxAge),
            acrValues: flags.requirements.acrValues ?? (flags.forgottenRequirements.contains(.acrValues) ? nil : saved?.acrValues))
    }

    package static func extraParameters(_ flags: Flags, requirements: AuthenticationRequirements) -> [FormEncoding.Pair] {
        var extra: [FormEncoding.Pair] = []
        if let maxAge = requirements.maxAge { extra.append(("max_age", String(maxAge))) }
        if let values = requirements.acrValues { extra.append(("acr_values", values.joined(separator: " "))) }
        if let value = flags.loginHint { extra.append(("login_hint", value)) }
        if let value = flags.prompt { extra.append(("prompt", value)) }
        return extra + flags.parameters
    }

    /// How the client authenticates: a secret (`--client-secret-file`, else `PINGCLI_CLIENT_SECRET`), a
    /// `private_key_jwt` key (given, else saved for the same issuer) or the certificate in `tls`; one way.
    package mutating func authentication(_ flags: Flags, environment: Environment, savedKey: ClientKeyOptions?) throws(PingCLIError) {
        if let path = flags.clientSecretFile {
            // /dev/stdin is a symbolic link, which the file gate refuses: it means standard input too.
            clientSecret = path == "-" || path == "/dev/stdin" ? .standardInput : .file(path)
        } else if let text = environment["PINGCLI_CLIENT_SECRET"], !text.isEmpty {
            do {
                clientSecret = .environment(try ClientSecret(checking: text))
            } catch {
                throw .usage("PINGCLI_CLIENT_SECRET: \(error.message): set it to the client secret alone", rule: .clientSecretInput)
            }
        }
        if grant != .browser && flags.requirements != AuthenticationRequirements() {
            throw .usage(
                "--max-age and --acr-values ask the browser sign-in for a kind of authentication; the device and client credentials grants have no such parameters: leave them out, or sign in with the browser (without --device)",
                rule: .stepUpBrowserOnly
            )
        }
        clientKey = try Self.clientKey(flags, saved: savedKey)
        let certificate = tls.certificateFile != nil && tls.keyFile != nil
        if clientKey != nil && (clientSecret != nil || certificate) {
            throw .usage(
                "give either --client-key-file, a client secret or a client certificate, not two: a client authenticates one way",
                rule: .clientAuthOneWay)
        }
        if grant == .clientCredentials && clientSecret == nil && clientKey == nil && !certificate {
            throw .usage(
                "signing in with client credentials needs the client secret, a key or a certificate: give --client-secret-file PATH or set PINGCLI_CLIENT_SECRET (or --client-key-file PEM for private_key_jwt, or --client-cert and --client-key for mutual TLS)",
                rule: .clientCredentialsNoAuth
            )
        }
    }

    /// `--client-key-file`, `--client-key-id`, `--client-assertion-audience`, each over the saved value
    /// of a profile for the same issuer. The file itself is read (through the file gate) by the flow.
    package static func clientKey(_ flags: Flags, saved: ClientKeyOptions?) throws(PingCLIError) -> ClientKeyOptions? {
        guard let path = flags.clientKeyFile ?? saved?.path else {
            if flags.clientKeyID != nil || flags.clientAssertionAudience != nil {
                throw .usage("--client-key-id and --client-assertion-audience need --client-key-file PEM", rule: .clientKeyOptions)
            }
            return nil
        }
        return ClientKeyOptions(
            path: path, keyID: flags.clientKeyID ?? saved?.keyID, audience: flags.clientAssertionAudience ?? saved?.audience ?? .endpoint)
    }

}
