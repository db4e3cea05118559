import PingBase
import PingFlowCore
import PingOAuth
import PingSession
import PingState

/// The client credentials grant for machines ([RFC 6749 §4.4](https://www.rfc-editor.org/rfc/rfc6749#section-4.4)):
/// discovery, one token request authenticated with the client's secret, and an encrypted save of the
/// token with the secret beside it, so that `token` can ask again when the token nears expiry. No
/// person, no browser, no ID token.
public struct ClientCredentialsFlow {
    public let signIn: SignIn
    /// The session it saves: a client's sign-in needs no browser and no waits.
    public let context: SessionContext
    package let key: CommandKey

    /// `key`: the command's key, when the caller has already used it (so a key command runs once).
    public init(signIn: SignIn, context: SessionContext, key: CommandKey? = nil) {
        self.signIn = signIn
        self.context = context
        self.key = key ?? context.store.commandKey()
    }

    public func run() throws(PingCLIError) {
        let (transport, metadata, methods, dpopKey) = try context.discoverForLogin(signIn, key: key)
        var profile = Profile(
            issuer: metadata.issuer, clientID: signIn.clientID, scopes: signIn.scopes, metadata: metadata,
            caFile: signIn.caFile, tokenEndpointAuthMethod: methods.token, revocationEndpointAuthMethod: methods.revocation,
            grantType: .clientCredentials, gitHosts: signIn.gitHosts, dpop: dpopKey?.algorithm.rawValue,
            apiBase: signIn.apiBase?.value)
        profile.clientTLS = signIn.tls.settings
        profile.clientKey = signIn.clientKey
        profile.record(signIn.endpoints, metadata: metadata)
        let request = TokenEndpoint.clientCredentialsRequest(
            endpoint: metadata.tokenEndpoint, scopes: signIn.scopes,
            client: try profile.signing(profile.tokenClient(secret: signIn.clientSecret), clock: context.clock))
        var tokens = try TokenEndpointCall(transport: transport, clock: context.clock, dpop: dpopKey != nil).obtain(
            request, doing: "login",
            advice: { [clientID = signIn.clientID] in SignInAdvice.after($0, clientID: clientID, confidential: true) })
        tokens.dpopKey = dpopKey
        // OpenID Connect defines no ID token for this grant: one that comes anyway is checked, not required.
        if let idToken = tokens.idToken {
            _ = try IDTokenKeys.verifyAtLogin(
                idToken, metadata: metadata, clientSecret: signIn.clientSecret?.value, transport: transport, now: context.clock())
            _ = try IDTokenValidation.validateIDToken(
                idToken, issuer: metadata.issuer, clientID: signIn.clientID, nonce: nil, now: context.clock(), doing: "login")
        }
        try CertificateBinding.check(tokens.accessToken.value, certificate: signIn.tls.certificate, doing: "login")
        // RFC 6749 §4.4.3: no refresh token is expected, and an ID token would name no person.
        tokens.refreshToken = nil
        tokens.idToken = nil
        tokens.clientSecret = signIn.clientSecret
        let replaced = try context.saveSession(profile, tokens: tokens, as: signIn.profile, key: key, replacing: signIn.replacing)
        context.console.err(
            "Logged in to \(displaySafe(metadata.issuer)) as client \(displaySafe(signIn.clientID, limit: 120)) (client credentials, profile \"\(signIn.profile)\")."
        )
        replaced?.revoke(in: context)
    }
}
