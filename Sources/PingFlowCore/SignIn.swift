import PingAM
import PingBase
import PingOAuth
import PingPlatform
import PingState

/// One sign-in, as `login` resolved it (`LoginPlan.signIn`): who signs in where, how the client
/// authenticates, the way in, and what is saved with the profile. Every sign-in flow takes this one
/// value (`LoginFlow`, `DeviceLoginFlow`, `ClientCredentialsFlow`, `JourneyFlow`) and none changes it:
/// what a flow learns (a journey's cookie name, the OTP account it used) travels on as a result.
public struct SignIn: Sendable {
    /// The way in.
    public enum Way: Sendable, Equatable {
        /// The authorization code flow in the system browser (RFC 8252), or a journey when `journey` is set.
        case browser
        /// The device authorization grant (RFC 8628).
        case device
        /// The client credentials grant (RFC 6749 §4.4): a machine, no person.
        case clientCredentials
    }

    /// `login --journey TREE` (or the profile's saved tree): a PingAM journey walked in the terminal.
    public struct Journey: Sendable {
        /// The tree; nil when `--resume` continues a suspended one.
        public var tree: JourneyTree?
        public var resume: SuspendedID?
        /// `--authenticate-endpoint URL`, over the one derived from the issuer.
        public var authenticateEndpoint: EndpointURL?
        /// `--cookie-name NAME`, over serverinfo's.
        public var cookieName: AMCookieName?
        /// `--answers FILE`, read through the file gate.
        public var answers: JourneyAnswersFile?
        /// The tree a resumed journey's profile keeps (the one it was started with).
        public var savedTree: String?
        /// `--otp NAME` (or the profile's): the stored OATH account that answers one-time-code prompts; saved.
        public var otpAccount: String?
        /// `--webauthn-origin URL` (or the profile's): the origin WebAuthn steps speak for; nil: AM's own.
        public var webAuthnOrigin: String?
        /// `--otp-enroll NAME`: an OATH registration step registers pingcli under NAME without asking.
        public var otpEnroll: String?
        /// `--otp-replace`: that registration may replace this AM's account of the same name.
        public var otpReplace = false
        /// `--idp NAME` (or the profile's): the identity provider a Select Identity Provider step picks; saved.
        public var identityProvider: String?

        public init(
            tree: JourneyTree?, resume: SuspendedID? = nil, authenticateEndpoint: EndpointURL? = nil, cookieName: AMCookieName? = nil,
            answers: JourneyAnswersFile? = nil, savedTree: String? = nil
        ) {
            self.tree = tree
            self.resume = resume
            self.authenticateEndpoint = authenticateEndpoint
            self.cookieName = cookieName
            self.answers = answers
            self.savedTree = savedTree
        }
    }

    public var profile: ProfileName
    public var issuer: IssuerURL
    public var clientID: String
    /// The scopes asked for; empty for a machine: no `scope` parameter, the provider's default.
    public var scopes: [String]
    public var way: Way
    /// A PingAM journey in place of the browser (`way` is `.browser`).
    public var journey: Journey? = nil

    // How the client authenticates and what it trusts.
    public var caFile: String? = nil
    /// A confidential client's secret (`--client-secret-file`, `PINGCLI_CLIENT_SECRET`); nil for a public
    /// client or one that authenticates with its key or certificate.
    public var clientSecret: ClientSecret? = nil
    /// A `private_key_jwt` client's key (`--client-key-file`).
    public var clientKey: ClientKeyOptions? = nil
    /// `--client-cert`, `--client-key` and `--pin` (RFC 8705 mutual TLS, key pinning).
    public var tls = LoginTLS()
    /// `--dpop [ALG]` (or the profile's saved choice): DPoP-bound tokens (RFC 9449).
    public var dpop: DPoPRequest? = nil
    /// `--token-endpoint URL` and the like (or the profile's saved ones): over discovery, or instead of it.
    public var endpoints = EndpointOverrides()

    // A person's sign-in: the browser, the device code, a journey.
    /// The loopback listener's port (0: any free one).
    public var port: UInt16 = 0
    public var openBrowser = true
    /// How long the sign-in may take, in seconds.
    public var timeout: Double = 300
    /// Seconds without any request to the listener before pingcli names the likely causes.
    public var hintAfter: Double = 20
    /// The authorization request's extra parameters (the step-up ones, `login_hint`, `prompt`, `--param`).
    public var extraParameters: [FormEncoding.Pair] = []
    /// Push the authorization request (RFC 9126) when the provider offers it; `--no-par` turns it off.
    public var pushedAuthorization = true
    /// `--max-age`, `--acr-values`: sent, then checked in every ID token.
    public var requirements = AuthenticationRequirements()
    /// `--device` on a terminal: also show `verification_uri_complete` as a QR code (for a phone).
    public var qrCode = false

    // Saved with the profile for the commands that come later.
    /// `login --logout-port`: kept for `logout --end-session`.
    public var logoutPort: UInt16? = nil
    /// `login --git-host`: the git servers `git-credential` answers for.
    public var gitHosts: [GitHost]? = nil
    /// `--api-base URL`: what `pingcli api` resolves relative URLs against.
    public var apiBase: EndpointURL? = nil
    /// The profile's session at another issuer that this sign-in replaces (`login --force`, or confirmed
    /// on a terminal): revoked once the new one is saved (`SessionContext.saveSession`).
    public var replacing: Profile? = nil

    public init(profile: ProfileName, issuer: IssuerURL, clientID: String, scopes: [String], way: Way) {
        self.profile = profile
        self.issuer = issuer
        self.clientID = clientID
        self.scopes = scopes
        self.way = way
    }

    /// The client as it authenticates at the token, PAR and device endpoints: its secret or its key.
    package func client(
        metadata: ProviderMetadata, method: ClientAuthMethod?, clock: @escaping WallClock
    ) throws(PingCLIError) -> ClientCredentials {
        ClientCredentials(
            clientID: clientID, secret: clientSecret, method: method,
            assertion: try clientKey.map { key throws(PingCLIError) in try key.load(metadata: metadata, clock: clock) })
    }
}

/// `login`'s TLS inputs after their gates: the settings saved in the profile, and the certificate read
/// from `--client-cert` (its thumbprint binds tokens, RFC 8705 §3).
public struct LoginTLS: Sendable {
    public var settings: ClientTLS
    public var certificate: ClientCertificate?

    public init(settings: ClientTLS = ClientTLS(), certificate: ClientCertificate? = nil) {
        self.settings = settings
        self.certificate = certificate
    }
}
