import PingBase
import PingOAuth
import PingPlatform
import PingState

/// What `pingcli login --client-credentials` was asked to do.
public struct ClientCredentialsOptions: Sendable {
    public var profile: ProfileName
    public var issuer: IssuerURL
    public var clientID: String
    /// Empty: no `scope` parameter, the provider's default for the client.
    public var scopes: [String]
    public var caFile: String?
    /// nil for a client that authenticates with its certificate (`tls`, RFC 8705).
    public var clientSecret: ClientSecret?
    /// The git servers `git-credential` answers for.
    public var gitHosts: [GitHost]? = nil
    public var tls = LoginTLS()
    /// A `private_key_jwt` client's key (`--client-key-file`), in place of the secret.
    public var clientKey: ClientKeyOptions? = nil
    /// `--dpop [ALG]`: a DPoP-bound token (RFC 9449).
    public var dpop: DPoPRequest? = nil
    /// `--api-base URL`, saved in the profile for `pingcli api`.
    public var apiBase: EndpointURL? = nil
    /// The profile's session at another issuer that this login replaces (`login --force`).
    public var replacing: Profile? = nil
    /// `--token-endpoint URL` and the like: over discovery, or instead of it.
    public var endpoints = EndpointOverrides()

    package init(
        profile: ProfileName, issuer: IssuerURL, clientID: String, scopes: [String], caFile: String? = nil,
        clientSecret: ClientSecret? = nil, gitHosts: [GitHost]? = nil, tls: LoginTLS = LoginTLS(), clientKey: ClientKeyOptions? = nil,
        dpop: DPoPRequest? = nil, apiBase: EndpointURL? = nil, replacing: Profile? = nil, endpoints: EndpointOverrides = EndpointOverrides()
    ) {
        self.profile = profile
        self.issuer = issuer
        self.clientID = clientID
        self.scopes = scopes
        self.caFile = caFile
        self.clientSecret = clientSecret
        self.gitHosts = gitHosts
        self.tls = tls
        self.clientKey = clientKey
        self.dpop = dpop
        self.apiBase = apiBase
        self.replacing = replacing
        self.endpoints = endpoints
    }
}

/// The client credentials grant for machines ([RFC 6749 §4.4](https://www.rfc-editor.org/rfc/rfc6749#section-4.4)):
/// discovery, one token request authenticated with the client's secret, and an encrypted save of the
/// token with the secret beside it, so that `token` can ask again when the token nears expiry. No
/// person, no browser, no ID token.
public struct ClientCredentialsFlow {
    public let options: ClientCredentialsOptions
    public let context: FlowContext
    package let key: CommandKey

    public init(options: ClientCredentialsOptions, context: FlowContext, key: CommandKey? = nil) {
        self.options = options
        self.context = context
        self.key = key ?? context.store.commandKey()
    }

    public func run() throws(PingCLIError) {
        let (transport, metadata, methods, dpopKey) = try context.discoverForLogin(
            profile: options.profile, issuer: options.issuer, caFile: options.caFile, secret: options.clientSecret, key: key,
            tls: options.tls,
            clientKey: options.clientKey, dpop: options.dpop, endpoints: options.endpoints)
        var profile = Profile(
            issuer: metadata.issuer, clientID: options.clientID, scopes: options.scopes, metadata: metadata,
            caFile: options.caFile, tokenEndpointAuthMethod: methods.token, revocationEndpointAuthMethod: methods.revocation,
            grantType: .clientCredentials, gitHosts: options.gitHosts, dpop: dpopKey?.algorithm.rawValue,
            apiBase: options.apiBase?.value)
        profile.clientTLS = options.tls.settings
        profile.clientKey = options.clientKey
        profile.record(options.endpoints, metadata: metadata)
        let request = TokenEndpoint.clientCredentialsRequest(
            endpoint: metadata.tokenEndpoint, scopes: options.scopes,
            client: try profile.signing(profile.tokenClient(secret: options.clientSecret), clock: context.clock))
        var tokens = try TokenEndpointCall(transport: transport, clock: context.clock, dpop: dpopKey != nil).obtain(
            request, doing: "login",
            advice: { [clientID = options.clientID] in SignInAdvice.after($0, clientID: clientID, confidential: true) })
        tokens.dpopKey = dpopKey
        // OpenID Connect defines no ID token for this grant: one that comes anyway is checked, not required.
        if let idToken = tokens.idToken {
            _ = try IDTokenKeys.verifyAtLogin(
                idToken, metadata: metadata, clientSecret: options.clientSecret?.value, transport: transport, now: context.clock())
            _ = try IDTokenValidation.validateIDToken(
                idToken, issuer: metadata.issuer, clientID: options.clientID, nonce: nil, now: context.clock(), doing: "login")
        }
        try CertificateBinding.check(tokens.accessToken.value, certificate: options.tls.certificate, doing: "login")
        // RFC 6749 §4.4.3: no refresh token is expected, and an ID token would name no person.
        tokens.refreshToken = nil
        tokens.idToken = nil
        tokens.clientSecret = options.clientSecret
        let replaced = try context.saveSession(profile, tokens: tokens, as: options.profile, key: key, replacing: options.replacing)
        context.console.err(
            "Logged in to \(displaySafe(metadata.issuer)) as client \(displaySafe(options.clientID, limit: 120)) (client credentials, profile \"\(options.profile)\")."
        )
        replaced?.revoke(in: context)
    }
}
