import PingBase
import PingCommandLine
import PingFlowCore
import PingIntegrations
import PingLogin
import PingOAuth
import PingPlatform
import PingSession

/// `pingcli token`: a fresh token for scripts (`--format raw`, `json`, `exec-credential`) or a summary for
/// people. Without `--format`, a terminal gets the summary and a pipe or file exactly the token.
package enum TokenCommand {
    /// What `--format` accepts.
    package enum Format: String, CaseIterable {
        case raw
        case json
        case execCredential = "exec-credential"
        case summary
    }

    /// `token`'s own options.
    package enum Option: String, OptionName {
        case format, raw
        case idToken = "id-token"
    }

    package static let specs: [OptionSpec] =
        [
            OptionSpec(
                Option.format, valueName: "FORMAT",
                help: "raw, json, exec-credential (kubectl) or summary (default: summary on a terminal, else raw)"),
            OptionSpec(Option.raw, help: "the same as --format raw: only the token and a newline"),
            OptionSpec(Option.idToken, help: "the ID token instead of the access token (refreshed when it expires within --min-ttl)"),
            MinimumTTLOption.spec,
        ] + TargetOptions.specs + CommonOptions.specs

    package static let help = helpText(
        usage:
            "pingcli token [--format raw|json|exec-credential|summary] [--id-token] [--scope SCOPES] [--resource URI] [--audience NAME] [--min-ttl SECONDS] [--profile NAME]",
        summary: """
            Prints a valid access token (or, with --id-token, ID token), refreshing it first when it expires
            within --min-ttl seconds. When stdout is not a terminal, the default is the token alone, so
            X=$(pingcli token) works. json adds token_type, expires_at, scope, profile and issuer; exec-credential
            is a Kubernetes ExecCredential for a kubeconfig exec entry. Never opens a browser, except for an
            interactive kubectl on a terminal without a usable session: exec-credential then runs the profile's
            saved login, prompts on stderr (PINGCLI_HELPER_LOGIN=never turns that off). --scope, --resource and
            --audience ask for an access token for just that, obtained with the session's refresh token (or by
            token exchange) and cached beside it.
            """,
        specs: specs,
        footer: """
            Example:
              curl -H "Authorization: Bearer $(pingcli token --raw)" https://api.example.com/me
            """ + "\n\n" + HelpExitCodes.block([0, 1, 2, 3, 4]))

    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let parsed = try parseOptions(arguments, specs: specs, command: "token")
        if parsed.flag(CommonOption.help) {
            context.console.help(help)
            return
        }
        let format = try format(parsed, outputIsTerminal: context.console.outputIsTerminal)
        // Checked before any network, so a kubeconfig asking for an unknown version fails at once.
        let execRequest = format == .execCredential ? try ExecCredential.request(environment["KUBERNETES_EXEC_INFO"]) : nil
        let common = try CommonOptions(parsed, environment: environment)
        let minimumTTL = try MinimumTTLOption.value(parsed)
        let kind: TokenKind = parsed.flag(Option.idToken) ? .id : .access
        // Under an interactive kubectl, no usable session means signing in first (HelperSignIn).
        let execInfo = environment["KUBERNETES_EXEC_INFO"].map { !$0.isEmpty } ?? false
        let signIn = try HelperSignIn(
            caller: execRequest.map { .kubectl(execInfo: execInfo, interactive: $0.interactive) }, environment: environment,
            context: common.applied(to: context))
        var provider = TokenProvider(profile: common.profile, context: signIn.context.forSession)
        provider.kind = kind
        let target = try TargetOptions.target(parsed, idToken: kind == .id)
        let result = try signIn.fresh(provider, target: target, minimumTTL: minimumTTL)
        let now = context.clock()
        if let warning = result.warning {
            context.console.err("pingcli: warning: \(warning)")
        } else if !result.tokens.isFresh(kind, now: now, minimumTTL: minimumTTL), let expiresAt = result.tokens.expiry(of: kind) {
            // Only a token just refreshed gets here: the server's lifetime is shorter than --min-ttl.
            context.console.err(
                "pingcli: warning: the new token expires \(describeInterval(expiresAt - now)), within --min-ttl \(Int(minimumTTL)) s, so every call refreshes it: use a smaller --min-ttl"
            )
        }
        let token = kind == .id ? result.tokens.idToken?.value ?? "" : result.tokens.accessToken.value
        switch format {
        case .raw: context.console.out(token)
        case .summary: context.console.out(TargetOptions.describe(summary(result, profile: common.profile, now: now), target))
        case .json:
            if kind == .access { try checkBinding(result) }
            context.console.out(TargetOptions.describe(json(result, kind: kind, profile: common.profile), target).rendered(pretty: true))
        case .execCredential:
            // kubectl sends what it gets as a bearer token, without a proof: a DPoP-bound one would be refused.
            if kind == .access && result.tokens.dpopKey != nil {
                throw .usage(
                    "profile \"\(common.profile)\" holds a DPoP-bound access token, which kubectl would send without a DPoP proof: use --id-token, or a profile logged in without --dpop",
                    rule: .execCredentialDPoP
                )
            }
            let credential = ExecCredential.object(
                version: execRequest?.version ?? ExecCredential.v1, token: token, expiresAt: result.tokens.expiry(of: kind))
            context.console.out(credential.rendered(pretty: true))
        }
    }

    /// `--format`, `--raw`, or the default for where stdout goes (asked only then: `--raw` probes no terminal).
    package static func format(_ parsed: ParsedOptions, outputIsTerminal: @autoclosure () -> Bool) throws(PingCLIError) -> Format {
        guard let text = parsed.value(Option.format) else { return parsed.flag(Option.raw) || !outputIsTerminal() ? .raw : .summary }
        guard let format = Format(rawValue: text) else {
            throw .usage(
                "--format must be one of \(Format.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(displaySafe(text, limit: 40))\"",
                rule: .optionValue
            )
        }
        guard !parsed.flag(Option.raw) || format == .raw else {
            throw .usage("--raw and --format \(format.rawValue) cannot be combined: choose one", rule: .optionConflict)
        }
        return format
    }

    /// The token with what a caching program needs, in one object, so it cannot disagree across a refresh.
    package static func json(_ result: FreshTokens, kind: TokenKind, profile: ProfileName) -> JSONValue {
        let tokens = result.tokens
        var members: [String: JSONValue] = [
            "expires_at": tokens.expiry(of: kind).map { .string(formatUTC($0)) } ?? .null,
            "scope": .string(tokens.scope ?? result.profile.scopes.joined(separator: " ")),
            "profile": .string(profile.value),
            "issuer": .string(result.profile.issuer),
        ]
        // What the sign-in met (OIDC Core §2): for scripts that need a step-up before an operation.
        if let claims = tokens.idToken.flatMap({ try? IDTokenClaims.decode($0.value) }) {
            if let acr = claims.acr { members["acr"] = .string(acr) }
            if let authTime = claims.authTime { members["auth_time"] = .string(formatUTC(authTime)) }
        }
        switch kind {
        case .access:
            members["access_token"] = .string(tokens.accessToken.value)
            members["token_type"] = .string(tokens.tokenType)
            // RFC 8705 §3.1: the certificate the token is bound to, for a client that uses it elsewhere.
            if let thumbprint = CertificateBinding.thumbprint(ofAccessToken: tokens.accessToken.value) {
                members["cnf"] = .object(["x5t#S256": .string(thumbprint)])
            }
            // RFC 9449 §6: the thumbprint of the key the token is bound to (the key itself never leaves the cache).
            if let key = tokens.dpopKey { members["jkt"] = .string(key.thumbprint) }
        case .id:
            members["id_token"] = .string(tokens.idToken?.value ?? "")
        }
        return .object(members)
    }

    /// A certificate-bound token (RFC 8705 §3) must be bound to the profile's certificate as it is now on
    /// disk: a certificate replaced since the login would make every resource server refuse the token.
    package static func checkBinding(_ result: FreshTokens) throws(PingCLIError) {
        guard CertificateBinding.thumbprint(ofAccessToken: result.tokens.accessToken.value) != nil else { return }
        var certificate: ClientCertificate? = nil
        if let path = result.profile.clientCertificateFile, let bytes = try FileAdvice.worded(try FileSystem.read(path, limit: 64 * 1024)) {
            certificate = try? ClientCertificate(pem: bytes)
        }
        try CertificateBinding.check(result.tokens.accessToken.value, certificate: certificate, doing: "token")
    }

    /// A person's view of the cached session: everything but the secrets.
    package static func summary(_ result: FreshTokens, profile: ProfileName, now: Double) -> String {
        let tokens = result.tokens
        var lines = ["profile:       \(profile)", "issuer:        \(displaySafe(result.profile.issuer))"]
        if let claims = tokens.idToken.flatMap({ try? IDTokenClaims.decode($0.value) }) {
            let name = claims.name ?? claims.preferredUsername ?? claims.email
            lines.append(
                "subject:       \(displaySafe(claims.subject, limit: 120))\(name.map { " (\(displaySafe($0, limit: 80)))" } ?? "")")
        } else if let subject = result.profile.subject {
            lines.append("subject:       \(displaySafe(subject, limit: 120)) (from the UserInfo endpoint: no ID token)")
        }
        if let expiresAt = tokens.expiresAt {
            lines.append("expires:       \(formatUTC(expiresAt)) (\(describeInterval(expiresAt - now)))")
        } else {
            lines.append("expires:       unknown (the server did not say)")
        }
        lines.append("scopes:        \(displaySafe(tokens.scope ?? result.profile.scopes.joined(separator: " ")))")
        lines.append("refresh token: \(tokens.refreshToken == nil ? "none" : "held")")
        return lines.joined(separator: "\n")
    }
}
