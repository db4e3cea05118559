import PingBase
import PingOAuth
import PingPlatform
import PingState

/// What `pingcli login` will do, resolved from its three sources in one place: flags, then the
/// `PINGCLI_*` environment, then the saved profile. A saved setting that belongs to an issuer (the
/// ports registered with it, its CA, the way in, the scopes and step-up requirements) is reused only
/// for that same issuer. Pure: the command parses and checks the inputs, the flows act on the result.
package struct LoginConfiguration: Equatable {
    /// What the command line said (nil or false: not given), after each option's own check.
    package struct Flags: Equatable {
        package var issuer: String?
        package var clientID: String?
        package var scope: String?
        package var port: UInt16?
        /// `--logout-port 0` forgets the saved one.
        package var logoutPort: UInt16?
        /// `--ca-file`, or `PINGCLI_CA_FILE` (checked by `LoginInputChecks.caFile`).
        package var caFile: String?
        /// `--git-host` (repeatable), checked by `GitHost(checking:)`; nil when none was given.
        package var gitHosts: [GitHost]?
        package var device = false
        package var clientCredentials = false
        package var noBrowser = false
        /// `--dpop [ALG]` (`.some`), `--no-dpop` (`noDPoP`), or neither.
        package var dpop: DPoPRequest?
        package var noDPoP = false
        /// `--api-base URL`, through `APIURL`'s gate.
        package var apiBase: EndpointURL?
        /// `--token-endpoint URL` and the like, unchecked (the gate needs the issuer); an empty value
        /// forgets the saved one.
        package var endpoints: [EndpointField: String] = [:]
        /// `--max-age` and `--acr-values` (or their `--param`s) as given, checked.
        package var requirements = AuthenticationRequirements()
        /// The step-up options given with an empty value (`--max-age ''`): the saved ones are forgotten.
        package var forgottenRequirements: Set<StepUpOption> = []
    }

    /// The options of a step-up requirement (`LoginInputChecks.requirements`).
    package enum StepUpOption: Hashable {
        case maxAge
        case acrValues
    }

    /// The way in.
    package enum Grant: Equatable {
        case browser
        case device
        case clientCredentials
    }

    package var issuer: IssuerURL
    package var clientID: String
    /// The scopes of a person's login: `--scope`, else the saved ones when a person signed in to the same
    /// issuer before, else `openid profile email`.
    package var scopes: [String]
    /// A machine's scopes: `--scope`, else the saved ones when it signed in as a machine before, else none.
    package var clientCredentialsScopes: [String]
    package var port: UInt16
    package var logoutPort: UInt16?
    package var caFile: String?
    /// The hosts `git-credential` answers for: `--git-host`, else the saved ones (same issuer).
    package var gitHosts: [GitHost]?
    package var grant: Grant
    /// DPoP (RFC 9449): `--dpop [ALG]`, else the saved algorithm (same issuer) unless `--no-dpop`.
    package var dpop: DPoPRequest?
    /// `pingcli api`'s base for relative URLs: `--api-base`, else the saved one (same issuer).
    package var apiBase: EndpointURL?
    /// Endpoints given rather than discovered: the flags over the saved ones (same issuer).
    package var endpoints = EndpointOverrides()
    /// What a browser sign-in asks of the authentication (`max_age`, `acr_values`): each given one, else
    /// the saved one (same issuer, a person's browser login) unless given empty.
    package var requirements = AuthenticationRequirements()

    package static let defaultScopes = ["openid", "profile", "email"]

    /// Resolves the flags against `environment` and the saved profile (`saved`, nil when there is none
    /// or nothing vouches for it and the person did not confirm it: `LoginCommand.savedProfile`).
    package static func resolve(
        _ flags: Flags, environment: Environment, saved: Profile?, profile: ProfileName
    ) throws(PingCLIError) -> LoginConfiguration {
        guard let issuerText = flags.issuer ?? environment["PINGCLI_ISSUER"] ?? saved?.issuer else {
            throw .usage(
                "missing --issuer URL (or --pingone ENV_ID, or PINGCLI_ISSUER) for profile \"\(profile)\": see pingcli login --help")
        }
        guard let clientID = flags.clientID ?? environment["PINGCLI_CLIENT_ID"] ?? saved?.clientID, !clientID.isEmpty else {
            throw .usage("missing --client-id ID (or PINGCLI_CLIENT_ID) for profile \"\(profile)\": see pingcli login --help")
        }
        let issuer = try IssuerURL(issuerText)
        // The same-issuer rule, once: settings registered with (or about) one issuer never follow the
        // profile to another.
        let sameIssuer = saved?.issuer == issuer.value ? saved : nil
        // A person's sign-in settings (not a machine's scopes) come back for the next person's login, so
        // `login --profile NAME` (the hint after a logout) signs in for what the profile signed in for.
        let savedPerson = sameIssuer?.grantType == .clientCredentials ? nil : sameIssuer
        let savedScopes = savedPerson.flatMap { $0.scopes.isEmpty ? nil : $0.scopes.joined(separator: " ") }
        let scopes = (flags.scope ?? savedScopes ?? defaultScopes.joined(separator: " ")).split(separator: " ").map(String.init)
        guard !scopes.isEmpty else { throw .usage("--scope is empty: give at least one scope, e.g. --scope openid") }
        // The way a profile was signed in is used again when none is named.
        let named = flags.device || flags.clientCredentials || flags.noBrowser
        let savedGrant = named ? nil : sameIssuer?.grantType
        let grant: Grant
        if flags.clientCredentials || savedGrant == .clientCredentials {
            guard !flags.device else { throw .usage("--device and --client-credentials cannot be combined: choose one") }
            grant = .clientCredentials
        } else {
            grant = flags.device || savedGrant == .deviceCode ? .device : .browser
        }
        let given = try EndpointOverrides(checking: flags.endpoints.filter { !$0.value.isEmpty }, issuer: issuer)
        let endpoints = given.merged(
            over: sameIssuer.map(EndpointOverrides.init(saved:)) ?? EndpointOverrides(),
            forgetting: Set(flags.endpoints.filter { $0.value.isEmpty }.keys))
        // Step-up requirements belong to the browser sign-in (the other grants have no such parameters).
        let stepUp = grant == .browser ? savedPerson : nil
        let requirements = AuthenticationRequirements(
            maxAge: flags.requirements.maxAge ?? (flags.forgottenRequirements.contains(.maxAge) ? nil : stepUp?.maxAge),
            acrValues: flags.requirements.acrValues ?? (flags.forgottenRequirements.contains(.acrValues) ? nil : stepUp?.acrValues))
        return LoginConfiguration(
            issuer: issuer, clientID: clientID, scopes: scopes,
            clientCredentialsScopes: flags.scope.map { $0.split(separator: " ").map(String.init) }
                ?? (savedGrant == .clientCredentials ? sameIssuer?.scopes : nil) ?? [],
            port: flags.port ?? sameIssuer?.port ?? 0,
            logoutPort: flags.logoutPort.map { $0 == 0 ? nil : $0 } ?? sameIssuer?.logoutPort,
            caFile: flags.caFile ?? sameIssuer?.caFile, gitHosts: flags.gitHosts ?? sameIssuer?.gitHosts, grant: grant,
            dpop: flags.noDPoP ? nil : flags.dpop ?? sameIssuer?.dpop.flatMap(DPoPAlgorithm.init(rawValue:)).map { .algorithm($0) },
            apiBase: flags.apiBase ?? sameIssuer?.apiBase.flatMap { try? APIURL.check($0) }, endpoints: endpoints,
            requirements: requirements)
    }
}
