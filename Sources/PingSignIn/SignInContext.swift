import PingBase
import PingCrypto
import PingFlowCore
import PingHTTP
import PingOAuth
import PingPlatform
import PingSession
import PingState

/// What a person's sign-in takes from the outside world (`login`'s browser and device-code ways): the
/// session it saves (store, console, clock, network), the browser, and the waits for the person. A
/// client's own sign-in (client credentials) takes the session alone. Built by the commands layer.
public struct SignInContext {
    public var session: SessionContext
    public var browsing: Browsing
    /// Monotonic time, sleeps between device-code polls, and the listener's `poll(2)`.
    public var waits: WaitClock

    public init(session: SessionContext, browsing: Browsing, waits: WaitClock) {
        (self.session, self.browsing, self.waits) = (session, browsing, waits)
    }
}

extension SessionContext {
    /// The start every way in shares: make sure the tokens can be saved before asking anyone to sign in
    /// (the key, file or command; the directories and any files already there: type, owner, mode), so
    /// nothing after the browser or the device code fails for a reason knowable before it; then
    /// discovery, and the client authentication the provider allows for `secret` (nil: a public client)
    /// or for `tls`'s client certificate (RFC 8705, whose endpoint aliases then replace the plain ones).
    ///
    /// `endpoints` (`login --token-endpoint URL` …) replace discovered ones, or make the metadata when
    /// the issuer serves no discovery document.
    ///
    /// With `dpop`, a new key pair for the algorithm the request and the provider agree on, and a
    /// transport that signs a DPoP proof for every request after discovery (RFC 9449).
    package func discoverForLogin(
        profile: ProfileName, issuer: IssuerURL, caFile: String?, secret: ClientSecret?, key: CommandKey,
        tls: LoginTLS = LoginTLS(),
        clientKey: ClientKeyOptions? = nil, dpop: DPoPRequest? = nil, endpoints: EndpointOverrides = EndpointOverrides()
    ) throws(PingCLIError) -> (
        transport: any HTTPTransport, metadata: ProviderMetadata, methods: (token: ClientAuthMethod?, revocation: ClientAuthMethod?),
        dpopKey: DPoPKey?
    ) {
        try StoreAdvice.worded(store.checkBeforeLogin(profile, key: key))
        let transport = transports.transport(caFile: caFile, tls: tls.settings)
        var metadata = try ProviderMetadata.discover(
            issuer: issuer, transport: transport, standalone: endpoints.standalone(issuer: issuer))
        if tls.certificate != nil { metadata = metadata.usingMutualTLSAliases() }
        endpoints.apply(to: &metadata)  // the person's own endpoints win, over mTLS aliases too
        let methods: (token: ClientAuthMethod?, revocation: ClientAuthMethod?)
        if let clientKey {
            _ = try clientKey.load(metadata: metadata, clock: clock)  // the key must sign before anyone signs in
            methods = try metadata.privateKeyJWTMethods()
        } else {
            methods = try metadata.clientAuthMethods(secret: secret, certificate: tls.certificate)
        }
        guard let dpop else { return (transport, metadata, methods, nil) }
        let algorithm = try dpop.resolve(advertised: metadata.dpopSigningAlgValuesSupported)
        guard let dpopKey = DPoPKey.generate(algorithm) else {
            throw .failure("could not generate a DPoP key (\(algorithm.rawValue)): run pingcli login again", rule: .dpopKeyGeneration)
        }
        return (transports.signing(transport, key: dpopKey), metadata, methods, dpopKey)
    }
}

extension SessionContext {
    /// `discoverForLogin` for a sign-in, from its settings.
    package func discoverForLogin(
        _ signIn: SignIn, key: CommandKey
    ) throws(PingCLIError) -> (
        transport: any HTTPTransport, metadata: ProviderMetadata, methods: (token: ClientAuthMethod?, revocation: ClientAuthMethod?),
        dpopKey: DPoPKey?
    ) {
        try discoverForLogin(
            profile: signIn.profile, issuer: signIn.issuer, caFile: signIn.caFile, secret: signIn.clientSecret, key: key,
            tls: signIn.tls, clientKey: signIn.clientKey, dpop: signIn.dpop, endpoints: signIn.endpoints)
    }
}
