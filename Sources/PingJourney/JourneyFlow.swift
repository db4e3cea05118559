import PingAM
import PingAuthenticators
import PingBase
import PingFlowCore
import PingHTTP
import PingOAuth
import PingSession
import PingSignIn
import PingState
import PingTerminal
import PingWebAuthn

/// A PingAM / Advanced Identity Cloud journey walked in the terminal, then the session turned into
/// tokens as a browser login's code is: the realm from the issuer (refused before anything is asked
/// when the issuer is not AM's), the cookie's name from serverinfo, the steps put to the person, the
/// code from `/authorize` with PKCE, state and nonce, the token exchange and every check of the ID
/// token, and a save with the session kept only in the encrypted cache.
public struct JourneyFlow {
    public let signIn: SignIn
    public let context: JourneyContext
    package let key: CommandKey
    /// Where typed answers come from; nil: no terminal (the answers file or exit 4).
    package var terminal: TerminalInput?
    package var device: DeviceProfileAnswer
    /// A FIDO2 security key for WebAuthn steps, when one is plugged in; nil: none is wired (the steps
    /// that need one are told `NotAllowedError`).
    package var securityKey: (() -> (any WebAuthnAuthenticator)?)? = nil

    public init(signIn: SignIn, context: JourneyContext, key: CommandKey? = nil, terminal: TerminalInput?) {
        self.signIn = signIn
        self.context = context
        self.key = key ?? context.session.store.commandKey()
        self.terminal = terminal
        self.device = LinuxDeviceFacts.read()
    }

    /// How many times a refused answer (401 Login failure) starts the tree over on a terminal.
    package static let attempts = 3

    public func run() throws(PingCLIError) {
        guard let journey = signIn.journey else { throw .usage("no journey was given: use --journey TREE", rule: .journeyMissing) }
        let started = context.waits.now()
        let realm = try Self.realm(signIn.issuer, journey)
        let (transport, metadata, methods, dpopKey) = try context.session.discoverForLogin(signIn, key: key)
        var cookieName: AMCookieName
        if let given = journey.cookieName { cookieName = given } else { cookieName = try Self.cookieName(realm, transport: transport) }
        var prompter = prompter(journey)
        prompter.now = context.waits.now
        prompter.deadline = started + signIn.timeout
        prompter.devices = devices(realm)
        // The origin a browser on AM's login page would have: the authenticate endpoint's (or --webauthn-origin).
        let origin = journey.webAuthnOrigin ?? realm.authenticateEndpoint.origin
        prompter.passkeys = JourneyPasskeys(
            store: PasskeyStore(paths: context.session.store.paths, tpm: context.tpm), key: key, clock: context.session.clock,
            origin: origin,
            amOrigin: realm.origin, realm: realm.realmName, deviceName: "pingcli on \(JourneyDevices.hostName())", tpm: context.tpm,
            securityKey: securityKey)
        let otp = JourneyOTP(
            accounts: OTPAccounts(
                store: OTPStore(paths: context.session.store.paths, tpm: context.tpm), key: key, clock: context.session.clock,
                holder: "pingcli login"),
            account: journey.otpAccount, enrollName: journey.otpEnroll, hostName: JourneyDevices.hostName(), origin: realm.origin,
            replace: journey.otpReplace)
        prompter.otp = otp
        prompter.identityProvider = journey.identityProvider
        var walker = JourneyWalker(
            realm: realm, transport: transport, prompter: prompter, console: context.session.console,
            retries: terminal == nil ? 1 : Self.attempts,
            timeout: signIn.timeout)
        walker.origin = origin
        let completion = SignInCompletion(signIn: signIn, metadata: metadata, methods: methods, context: context.session, key: key)
        walker.resumeCommand = { () throws(PingCLIError) -> String in try resumeCommand(completion) }
        walker.startCommand = { startCommand() }
        walker.federate = { redirect, left throws(PingCLIError) in try federation.answer(redirect, timeout: left) }
        let session = try walker.walk(tree: journey.tree, resume: journey.resume)
        let exchange = SessionExchange(
            signIn: signIn, realm: realm, cookieName: cookieName, otpAccount: otp.account, metadata: metadata, methods: methods,
            context: context.session, key: key)
        try exchange.signIn(session: session, transport: transport, dpopKey: dpopKey)
    }

    /// The AM realm, before any request: a provider that is not AM has no journeys.
    package static func realm(_ issuer: IssuerURL, _ journey: SignIn.Journey) throws(PingCLIError) -> AMRealm {
        do {
            return try AMRealm(issuer: issuer.url, authenticateEndpoint: journey.authenticateEndpoint)
        } catch {
            throw .usage("--journey: \(error.message)", rule: error.rule)
        }
    }

    /// serverinfo's `cookieName`.
    package static func cookieName(_ realm: AMRealm, transport: any HTTPTransport) throws(PingCLIError) -> AMCookieName {
        let response = try transport.send(
            AMServerInfo.request(realm), doing: "reading AM's server information", url: realm.serverInfoURL)
        do {
            return try AMServerInfo.process(response)
        } catch {
            throw .failure(
                "login failed: \(error.message): give --cookie-name NAME (the AM session cookie's name)", rule: .journeyCookieName)
        }
    }

    /// A social redirect's browser round trip, with login's launcher rules (`--no-browser`, BROWSER, SSH).
    private var federation: FederationAnswerer {
        FederationAnswerer { [context, signIn] timeout in
            context.browsing.roundTrip(
                console: context.session.console, waits: context.waits, openBrowser: signIn.openBrowser, timeout: timeout)
        }
    }

    /// Device binding and signing for this realm: keys in the config directory, sealed under the cache key.
    private func devices(_ realm: AMRealm) -> JourneyDevices {
        JourneyDevices(
            store: DeviceKeyStore(paths: context.session.store.paths, tpm: context.tpm), key: key, clock: context.session.clock,
            issuer: signIn.clientID,
            origin: realm.origin, realm: realm.realmName, deviceName: "pingcli on \(JourneyDevices.hostName())",
            deviceID: device.identifier, tpm: context.tpm, environment: context.tpm.environment ?? [:])
    }

    private func prompter(_ journey: SignIn.Journey) -> JourneyPrompter {
        let tree = journey.tree.map { " (tree \"\(displaySafe($0.name, limit: 80))\")" } ?? ""
        return JourneyPrompter(
            console: context.session.console, terminal: terminal, answers: journey.answers, device: device, sleep: context.waits.sleep,
            browserAlternative:
                "pingcli login --issuer \(signIn.issuer.value) --client-id \(displaySafe(signIn.clientID, limit: 80)), without --journey\(tree)"
        )
    }
}
