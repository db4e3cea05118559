import PingBase
import PingCrypto
import PingHTTP
import PingOAuth
import PingPlatform
import PingState
import PingTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// Everything a flow needs from the outside world, wired once in `PingCLI.run` and replaced by tests.
public struct FlowContext {
    public var store: TokenStore
    public var console: Console
    public var clock: WallClock
    public var browser: any BrowserLauncher
    public var transportOptions: TransportOptions
    /// Builds the transport for a profile's CA settings.
    public var makeTransport: (TransportOptions) -> any HTTPTransport
    /// Standard input, where `login` reads an address pasted back from a browser on another machine.
    public var input: Int32 = 0
    /// Whether `input` is a terminal, so a person may press Enter to stop waiting for the browser.
    public var inputIsTerminal: Bool {
        get { inputTerminal.answer }
        set { inputTerminal = .known(newValue) }
    }
    /// Given (tests), or `isatty(input)` asked when a command wants to know (`token --raw` never does).
    public var inputTerminal: TerminalCheck = .known(false)
    /// Opens the controlling terminal (`/dev/tty`) for a credential helper that signs in (`HelperSignIn`):
    /// the tool owns stdin and stdout, so answers come from here. nil: there is none. Tests pass their own.
    public var openTerminal: @Sendable () -> Int32? = {
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        return descriptor >= 0 ? descriptor : nil
    }
    /// Seconds without a browser coming back before login and logout name the likely causes.
    public var hintAfter: Double = 20
    /// Waits that many seconds (between device-flow polls). Tests pass one that moves their clock instead.
    public var sleep: @Sendable (Double) -> Void = WaitClock.sleepSeconds
    /// Monotonic seconds, for deadlines (how long the device flow may poll, the browser may take).
    public var monotonic: @Sendable () -> Double = MonotonicClock.now
    /// Waits for the loopback listener's connections and standard input (`poll(2)`). Tests pass one
    /// that moves their clock when nothing more can arrive.
    public var poll: @Sendable (_ descriptors: inout [pollfd], _ seconds: Double) -> Int32 = WaitClock.pollSeconds
    /// `--verbose`: the browser launcher's own output is shown too (HTTP tracing is `transportOptions.trace`).
    public var verbose = false
    /// The DPoP nonces servers gave this process, by origin (RFC 9449 §8–9).
    public var dpopNonces = DPoPNonces()
    /// The TPM device keys live in (`TPM2TOOLS_TCTI`, else the system default); `.absent` looks for none.
    package var tpm: TPM2.Access = .absent

    public init(
        store: TokenStore, console: Console, clock: @escaping WallClock, browser: any BrowserLauncher,
        transportOptions: TransportOptions, makeTransport: @escaping (TransportOptions) -> any HTTPTransport
    ) {
        self.store = store
        self.console = console
        self.clock = clock
        self.browser = browser
        self.transportOptions = transportOptions
        self.makeTransport = makeTransport
    }

    /// The context's monotonic time and waits, for the browser's round trip.
    package var waitClock: WaitClock { WaitClock(now: monotonic, sleep: sleep, poll: poll) }

    /// A transport that trusts `caFile` when given (a profile's saved CA, or --ca-file). With
    /// `timeout`, no request takes longer than that many seconds (connect included).
    /// `tls`: the profile's client certificate and key pins, for every request it makes (no default:
    /// a request to the provider built without them would skip the pins, as the JWK Set fetch at
    /// login once did).
    /// With `dpop`, every request carries a DPoP proof signed with that key (RFC 9449).
    package func transport(caFile: String?, tls: ClientTLS, timeout: Int? = nil, dpop: DPoPKey? = nil) -> any HTTPTransport {
        var options = transportOptions
        if let caFile { options.caFile = caFile }
        options.clientTLS = tls
        if let timeout {
            options.connectTimeout = min(options.connectTimeout, timeout)
            options.totalTimeout = min(options.totalTimeout, timeout)
        }
        var transport = makeTransport(options)
        // On a terminal, a request slower than a second says what it waits for.
        if console.errorIsTerminal { transport = WaitNoticeTransport(base: transport, console: console) }
        guard let dpop else { return transport }
        return DPoPTransport(base: transport, key: dpop, nonces: dpopNonces, clock: clock)
    }
}

extension FlowContext {
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
        let transport = transport(caFile: caFile, tls: tls.settings)
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
        return (DPoPTransport(base: transport, key: dpopKey, nonces: dpopNonces, clock: clock), metadata, methods, dpopKey)
    }
}

extension FlowContext {
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
