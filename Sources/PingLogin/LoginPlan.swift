import PingBase
import PingFlowCore
import PingOAuth
import PingPlatform
import PingState

/// What `pingcli login` will do, decided in one place and without I/O (gh's parse → plan → run):
/// `Flags` is what the command line said, typed (`Flags(parsing:)`); `resolve` weighs it against the
/// `PINGCLI_*` environment and the saved profile (`LoginPlan+Resolve.swift`); `LoginCommand.run(_:context:)`
/// reads the files the plan names, asks what only a person can answer, and runs the flow. A saved setting
/// that belongs to an issuer (the ports registered with it, its CA, the way in, the scopes and step-up
/// requirements, the client's key and certificate, the journey) is reused only for that same issuer.
package struct LoginPlan {
    /// What the command line said (nil or false: not given), after each option's own check. No file is
    /// read to make it; a path is made absolute where it is saved with the profile.
    package struct Flags {
        package var issuer: String?
        package var clientID: String?
        package var scope: String?
        package var port: UInt16?
        /// `--logout-port 0` forgets the saved one.
        package var logoutPort: UInt16?
        /// `--ca-file`, unchecked (the file gate runs with the plan: `LoginInputChecks.caFile`).
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
        /// How `--pingone` or `--pingone-domain` made `issuer`, said on stderr before anything else.
        package var issuerDescription: String?
        /// `--timeout SECONDS`.
        package var timeout: Double?
        package var loginHint: String?
        /// `--prompt`, checked (`LoginInputChecks.prompt`).
        package var prompt: String?
        /// `--param KEY=VALUE`, checked, without the step-up ones (`requirements` holds those).
        package var parameters: [FormEncoding.Pair] = []
        package var noPAR = false
        package var force = false
        package var json = false
        /// `--client-secret-file PATH` (`-`: standard input).
        package var clientSecretFile: String?
        package var clientKeyFile: String?
        package var clientKeyID: String?
        package var clientAssertionAudience: ClientAssertionAudience?
        /// `--client-cert` and `--client-key` (absolute paths) and `--pin`s, checked.
        package var clientTLS = ClientTLS()
        package var journey: String?
        package var resume: String?
        package var authenticateEndpoint: String?
        package var cookieName: String?
        /// `--answers FILE`, read through the file gate with the plan.
        package var answers: String?
        /// `--otp NAME`: the stored OTP account that answers a journey's code prompts (saved).
        package var otp: String?
        /// `--idp NAME`: the identity provider a Select Identity Provider step picks.
        package var idp: String?
        /// `--otp-enroll NAME`: register pingcli at a journey's OATH registration step without asking.
        package var otpEnroll: String?
        /// `--otp-replace`: an OATH registration may replace this AM's account of the same name.
        package var otpReplace = false
        /// `--webauthn-origin URL`: the origin a journey's WebAuthn steps speak for (saved).
        package var webAuthnOrigin: String?
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

    /// Where a confidential client's secret comes from (`ClientSecretInput` reads a file or standard input).
    package enum SecretSource: Equatable {
        case file(String)
        case standardInput
        /// `PINGCLI_CLIENT_SECRET`, checked at the secret's gate.
        case environment(ClientSecret)
    }

    package var profile: ProfileName
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
    /// Where `caFile` came from when it was given now (`--ca-file` or `PINGCLI_CA_FILE`): such a file
    /// passes the file gate before any network. nil for a saved one.
    package var caFileSource: String?
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
    /// The authorization request's extra parameters: the step-up ones, `login_hint`, `prompt`, `--param`s.
    package var extraParameters: [FormEncoding.Pair] = []
    /// How long the sign-in may take: `--timeout`, else 300 s (a device code: its own lifetime).
    package var timeout: Double = 300
    package var openBrowser = true
    /// No browser because this is an SSH session without a display (said on stderr, as gcloud does).
    package var browserHeldBack = false
    /// Push the authorization request (RFC 9126) when the provider offers it (not with `--no-par`).
    package var pushedAuthorization = true
    /// The client's authentication: a secret, a `private_key_jwt` key, or the certificate in `tls`.
    package var clientSecret: SecretSource?
    package var clientKey: ClientKeyOptions?
    /// `--client-cert`, `--client-key` and `--pin`, else the saved ones (same issuer).
    package var tls = ClientTLS()
    /// `--force`: replace a session at another issuer without asking.
    package var force = false
    /// A PingAM journey in the terminal (a browser sign-in's tree given or saved), and its answers file.
    package var journey: SignIn.Journey?
    package var journeyAnswers: String?
    /// `--json`: the profile's status on stdout afterwards.
    package var printJSON = false
    /// Said on stderr first (how `--pingone` made the issuer).
    package var announcement: String?

    package static let defaultScopes = ["openid", "profile", "email"]
}

extension LoginPlan {
    /// The sign-in the flows run: the plan, with what `LoginCommand.run(_:context:)` read and asked, and
    /// what the context says of the terminal. A machine's sign-in asks for its own scopes and has no
    /// browser, journey or step-up parameters.
    package func signIn(clientSecret: ClientSecret?, tls: LoginTLS, replacing: Profile?, context: CommandContext) -> SignIn {
        let way: SignIn.Way =
            switch grant {
            case .browser: .browser
            case .device: .device
            case .clientCredentials: .clientCredentials
            }
        var signIn = SignIn(
            profile: profile, issuer: issuer, clientID: clientID, scopes: way == .clientCredentials ? clientCredentialsScopes : scopes,
            way: way)
        signIn.caFile = caFile
        signIn.clientSecret = clientSecret
        signIn.clientKey = clientKey
        signIn.tls = tls
        signIn.dpop = dpop
        signIn.endpoints = endpoints
        signIn.gitHosts = gitHosts
        signIn.apiBase = apiBase
        signIn.replacing = replacing
        guard way != .clientCredentials else { return signIn }
        signIn.journey = journey
        signIn.port = port
        signIn.logoutPort = logoutPort
        signIn.openBrowser = openBrowser
        signIn.timeout = timeout
        signIn.hintAfter = context.hintAfter
        signIn.extraParameters = extraParameters
        signIn.pushedAuthorization = pushedAuthorization
        signIn.requirements = requirements
        signIn.qrCode = context.console.errorIsTerminal  // a QR code only where someone looks at the terminal
        return signIn
    }
}
