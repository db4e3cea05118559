import PingBase
import PingFlowCore
import PingHTTP
import PingOAuth
import PingSession
import PingState
import PingTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// The device authorization grant ([RFC 8628](https://www.rfc-editor.org/rfc/rfc8628)) for a person
/// whose browser is elsewhere: a code shown on stderr, the token endpoint polled until the person has
/// approved, then the same validation and save as `login`.
public struct DeviceLoginFlow {
    /// The sign-in this is: the sign-in's settings, context and command key, and its start.
    package let login: LoginFlow
    public var signIn: SignIn { login.signIn }
    public var context: SignInContext { login.context }

    public init(signIn: SignIn, context: SignInContext, key: CommandKey? = nil) {
        login = LoginFlow(signIn: signIn, context: context, key: key)
    }

    public func run() throws(PingCLIError) {
        let console = context.session.console
        let start = try login.start()
        let (transport, metadata, client) = (start.transport, start.metadata, start.client)
        guard let endpoint = metadata.deviceAuthorizationEndpoint else {
            throw .failure(
                "the provider has no device_authorization_endpoint: enable the device authorization grant for the client, or run pingcli login without --device",
                rule: .deviceUnsupported)
        }
        let issuerURL: EndpointURL
        do { issuerURL = try EndpointPolicy.checkIssuer(metadata.issuer) } catch {
            throw .failure("login failed: \(error.message)", rule: .endpointPolicy)
        }

        let response = try transport.send(
            DeviceAuthorization.request(endpoint: endpoint, scopes: signIn.scopes, client: client), doing: "device authorization",
            endpoint: "device authorization", url: endpoint.value)
        let device: DeviceAuthorization
        do { device = try DeviceAuthorization.process(response, issuer: issuerURL) } catch {
            throw .failure("login failed: \(error.message)", rule: error.rule)
        }

        console.err(
            "To sign in to \(displaySafe(metadata.issuer)), open\n\n  \(device.verificationURI.value)\n\nand enter the code\n\n  \(device.userCode.value)\n"
        )
        if let complete = device.verificationURIComplete {
            console.err("Or open this address, which carries the code:\n\n  \(complete.value)\n")
            if signIn.qrCode, let modules = QRCode.modules(complete.value) {
                console.err("Or scan it with a phone:\n\n" + QRCode.render(modules).map { "  " + $0 }.joined(separator: "\n") + "\n")
            }
        }
        if signIn.openBrowser, let unavailable = context.browsing.launcher.unavailable {
            console.err("pingcli: \(unavailable), so no browser is opened (PINGCLI_BROWSER or BROWSER names one)")
        } else if signIn.openBrowser {
            let target = device.verificationURIComplete ?? device.verificationURI
            if case .failure(let error) = context.browsing.launcher.open(target.value) {
                console.err("pingcli: \(error.reason): open the address above in a browser yourself")
            }
        }
        let wait = min(device.expiresIn, signIn.timeout)
        console.err("Waiting up to \(Int(wait)) s for the sign-in (Ctrl-C to cancel)…")
        var tokens = try poll(
            device, client: client, tokenEndpoint: metadata.tokenEndpoint, transport: transport, wait: wait, dpop: start.dpopKey != nil)
        tokens.dpopKey = start.dpopKey
        let completion = SignInCompletion(
            signIn: signIn, metadata: metadata, methods: start.methods, context: context.session, key: login.key, grantType: .deviceCode)
        try completion.finish(tokens, nonce: nil)
    }

    /// Polls the token endpoint at the interval (§3.4, §3.5) until tokens, a final error, or `wait` seconds.
    private func poll(
        _ device: DeviceAuthorization, client: ClientCredentials, tokenEndpoint: EndpointURL, transport: any HTTPTransport,
        wait: Double, dpop: Bool
    ) throws(PingCLIError) -> TokenSet {
        let deadline = context.waits.now() + wait
        var timeLeft = TimeLeftLine(console: context.session.console, what: "the sign-in to be approved")
        defer { timeLeft.clear() }
        var interval = DevicePolling.firstInterval(device.interval)
        let request = device.tokenRequest(endpoint: tokenEndpoint, client: client)
        let call = TokenEndpointCall(transport: transport, clock: context.session.clock, dpop: dpop)
        while true {
            guard context.waits.now() + interval <= deadline else {
                // --timeout shorter than the code's life: the wait ended, not the code.
                guard wait >= device.expiresIn else {
                    throw PingCLIError(
                        .failure,
                        "no sign-in was approved within --timeout \(Int(wait)) s (the code was valid for \(Int(device.expiresIn)) s): run pingcli login --device again, with a longer --timeout or none",
                        rule: .loginTimeout)
                }
                throw PingCLIError(
                    .failure, "the code expired before the sign-in was approved (after \(Int(wait)) s): run pingcli login --device again",
                    rule: .deviceExpiresIn)
            }
            timeLeft.show(deadline - context.waits.now())
            context.waits.sleep(interval)
            let outcome: DevicePollOutcome
            do {
                outcome = DevicePolling.process(try call.send(request))
            } catch {
                // §3.5: after a connection timeout, poll less often and try again, while there is time.
                guard case .unreachable = error,
                    context.waits.now() + DevicePolling.interval(after: .unavailable(status: nil), current: interval) <= deadline
                else {
                    throw error.asCLIError(doing: "login", endpoint: "token", url: request.url)
                }
                outcome = .unavailable(status: nil)
            }
            interval = DevicePolling.interval(after: outcome, current: interval)
            switch outcome {
            case .tokens(let tokens): return tokens
            case .pending, .slowDown: continue
            case .unavailable(let status?):
                // The server's bad moment, not an answer.
                timeLeft.clear()
                context.session.console.err("pingcli: the token endpoint answered HTTP \(status); polling again in \(Int(interval)) s")
            case .unavailable(nil):
                timeLeft.clear()
                context.session.console.err("pingcli: the token endpoint could not be reached; polling again in \(Int(interval)) s")
            case .denied(let oauth):
                throw PingCLIError(
                    .failure, "the sign-in was declined at the provider (\(oauth.summary)): run pingcli login --device to retry",
                    rule: .deviceDenied)
            case .expired:
                throw PingCLIError(
                    .failure, "the code expired before the sign-in was approved: run pingcli login --device again", rule: .deviceExpired)
            case .failed(let error): throw .failure("login failed: \(error.message)", rule: error.rule)
            }
        }
    }
}
