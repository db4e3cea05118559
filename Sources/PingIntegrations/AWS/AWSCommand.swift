import PingAWS
import PingBase
import PingCloud
import PingCommandLine
import PingFlowCore
import PingLogin
import PingSession

/// `pingcli aws credential-process` and `pingcli aws env`: short-lived AWS credentials for a role, from
/// the profile's ID token through STS `AssumeRoleWithWebIdentity` (`AWSCredentialsFlow`). The first is
/// what the AWS config file's `credential_process` runs (exactly its JSON on stdout); the second prints
/// `export` lines for `eval` (or `--json`).
package enum AWSCommand {
    /// `aws env`'s own option.
    package enum Option: String, OptionName {
        case json
    }

    /// What the role's credentials are asked for with, shared with `setup aws`.
    package enum RoleOption: String, OptionName {
        case roleARN = "role-arn"
        case duration
        case sessionName = "session-name"
        case region
    }

    package static let roleSpecs: [OptionSpec] = [
        OptionSpec(RoleOption.roleARN, valueName: "ARN", help: "the IAM role to assume (arn:aws:iam::ACCOUNT:role/NAME); required"),
        OptionSpec(
            RoleOption.duration, valueName: "SECONDS", help: "how long the credentials live, 900 to 43200 (default: STS's, one hour)"),
        OptionSpec(
            RoleOption.sessionName, valueName: "NAME",
            help: "the role session name (default: the ID token's preferred_username, email, name or sub, in STS's characters)"),
        OptionSpec(
            RoleOption.region, valueName: "REGION",
            help: "STS's region (default: $AWS_REGION, else $AWS_DEFAULT_REGION, else the global endpoint; $AWS_ENDPOINT_URL_STS wins)"),
    ]

    package static let specs: [OptionSpec] =
        roleSpecs + [OptionSpec(Option.json, help: "env: the variables as one JSON object instead of export lines")] + CommonOptions.specs

    /// `aws`' operations: the AWS CLI's `credential_process`, and the variables for a shell.
    package enum Operation: String, CommandOperation {
        case credentialProcess = "credential-process"
        case env

        package static func unknown(_ operand: String?) -> PingCLIError {
            .usage(
                "pingcli aws needs one of credential-process or env\(operand.map { ", not \"\(displaySafe($0, limit: 40))\"" } ?? ""): see pingcli aws --help",
                rule: .commandOperand)
        }
    }

    package static let help = helpText(
        usage: """
            pingcli aws credential-process --role-arn ARN [--duration SECONDS] [--session-name NAME] [--region REGION] [--profile NAME]
              or: pingcli aws env --role-arn ARN [--json] [--duration SECONDS] [--session-name NAME] [--region REGION] [--profile NAME]
            """,
        summary: """
            Exchanges the profile's ID token at AWS STS (AssumeRoleWithWebIdentity) for short-lived credentials
            of the role, refreshing the ID token first when it is about to expire. The credentials are cached
            encrypted beside the profile's tokens and reused until 5 minutes before they expire; logout drops them.
            credential-process prints the JSON the AWS CLI and SDKs read from credential_process (pingcli setup
            aws writes that line); without a usable session it signs in on the terminal first, as the kubectl
            helper does (PINGCLI_HELPER_LOGIN=never turns that off). env prints export lines for eval.
            STS is AWS_ENDPOINT_URL_STS, else AWS_ENDPOINT_URL, else the region's endpoint; AWS_CA_BUNDLE is honoured.
            Exit codes: 0 ok, 1 failed (STS refused: the message names the IAM setup to check), 2 usage,
            3 STS or the provider unreachable or busy, 4 login required.
            """,
        specs: specs,
        footer: "Example: eval \"$(pingcli aws env --role-arn arn:aws:iam::123456789012:role/Developers)\"")

    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let (options, words) = splitOperands(arguments, specs: specs)
        let parsed = try parseOptions(options, specs: specs, command: "aws")
        if parsed.flag(CommonOption.help) { return context.console.help(help) }
        let operation = try Operation.named(words.first)
        guard words.count == 1 else { throw Operation.unknown(words.first) }
        if operation == .credentialProcess && parsed.flag(Option.json) {
            throw .usage("--json is for pingcli aws env (credential-process always prints JSON)", rule: .optionConflict)
        }
        let common = try CommonOptions(parsed, environment: environment)
        let caller: HelperSignIn.Caller? = operation == .credentialProcess ? .aws : nil
        let result = try credentials(parsed, common: common, caller: caller, environment: environment, context: context)
        switch operation {
        case .env where parsed.flag(Option.json): context.console.out(envJSON(result.credentials).rendered(pretty: true))
        case .env: context.console.out(exportLines(result.credentials))
        case .credentialProcess: context.console.out(credentialProcessJSON(result.credentials).rendered(pretty: true))
        }
    }

    /// The flow for the options, run: the credentials, cached or new.
    static func credentials(
        _ parsed: ParsedOptions, common: CommonOptions, caller: HelperSignIn.Caller?, environment: Environment, context: CommandContext
    ) throws(PingCLIError) -> AWSCredentialsFlow.Result {
        guard let roleText = parsed.value(RoleOption.roleARN) else {
            throw .usage("pingcli aws needs --role-arn ARN (the IAM role to assume): see pingcli aws --help", rule: .awsRoleARN)
        }
        let role: RoleARN
        let sessionName: RoleSessionName?
        let endpoint: EndpointURL
        do {
            role = try RoleARN(roleText)
            sessionName = try parsed.value(RoleOption.sessionName).map { text throws(AWSInputFailure) in try RoleSessionName(text) }
            endpoint = try STSEndpoint.resolve(region: parsed.value(RoleOption.region), environment: environment)
        } catch {
            throw AWSAdvice.input(error)
        }
        let duration = try parsed.value(RoleOption.duration).map { text throws(PingCLIError) in
            guard let value = Int(text), AssumeRoleWithWebIdentity.durations.contains(value) else { throw AWSAdvice.input(.duration) }
            return value
        }
        let signIn = try HelperSignIn(caller: caller, environment: environment, context: common.applied(to: context))
        let flow = AWSCredentialsFlow(
            profile: common.profile, context: signIn.context.forSession, sleep: signIn.context.waits.sleep, role: role,
            sessionName: sessionName, duration: duration,
            endpoint: endpoint, caFile: environment["AWS_CA_BUNDLE"].flatMap { $0.isEmpty ? nil : $0 },
            freshIDToken: { () throws(PingCLIError) in
                var provider = TokenProvider(profile: common.profile, context: signIn.context.forSession)
                provider.kind = .id
                return try signIn.fresh(provider, minimumTTL: AWSCredentialsFlow.idTokenMinimumTTL)
            })
        return try flow.credentials()
    }

    /// What `credential_process` must print
    /// ([sourcing credentials with an external process](https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-sourcing-external.html)).
    package static func credentialProcessJSON(_ credentials: AWSCredentials) -> JSONValue {
        .object([
            "Version": .number(1), "AccessKeyId": .string(credentials.accessKeyID), "SecretAccessKey": .string(credentials.secretAccessKey),
            "SessionToken": .string(credentials.sessionToken), "Expiration": .string(formatUTC(credentials.expiration)),
        ])
    }

    /// The variables the AWS tools read, by name.
    package static func variables(_ credentials: AWSCredentials) -> [(String, String)] {
        [
            ("AWS_ACCESS_KEY_ID", credentials.accessKeyID), ("AWS_SECRET_ACCESS_KEY", credentials.secretAccessKey),
            ("AWS_SESSION_TOKEN", credentials.sessionToken), ("AWS_CREDENTIAL_EXPIRATION", formatUTC(credentials.expiration)),
        ]
    }

    package static func exportLines(_ credentials: AWSCredentials) -> String {
        variables(credentials).map { "export \($0.0)=\(shellQuoted($0.1))" }.joined(separator: "\n")
    }

    package static func envJSON(_ credentials: AWSCredentials) -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: variables(credentials).map { ($0.0, JSONValue.string($0.1)) }))
    }
}
