import PingBase
import PingCommandLine
import PingOAuth
import PingState

/// `login`'s argv as a typed value: every option read by its `LoginOption` case, once, here, and each
/// through its own check. Nothing is read from a file or asked of a person (`LoginPlan.resolve` and
/// `LoginCommand.run(_:context:)` do that).
extension LoginPlan.Flags {
    package init(parsing parsed: ParsedOptions) throws(PingCLIError) {
        func value(_ name: LoginOption) -> String? { parsed.value(name) }
        func flag(_ name: LoginOption) -> Bool { parsed.flag(name) }
        self.init()
        let pingOne = try PingOneIssuer.issuer(
            environmentID: value(.pingOne), domain: value(.pingOneDomain), region: value(.region), issuer: value(.issuer))
        issuer = pingOne?.issuer ?? value(.issuer)
        issuerDescription = pingOne?.description
        clientID = value(.clientID)
        scope = value(.scope)
        port = try LoginCommand.port(value(.port), option: LoginOption.port.rawValue)
        logoutPort = try LoginCommand.port(value(.logoutPort), option: LoginOption.logoutPort.rawValue)
        caFile = value(.caFile)
        let hosts = parsed.all(LoginOption.gitHost)
        if !hosts.isEmpty {
            gitHosts = []
            for text in hosts { gitHosts?.append(try GitHost(checking: text)) }
        }
        device = flag(.device)
        clientCredentials = flag(.clientCredentials)
        noBrowser = flag(.noBrowser)
        dpop = try Self.dpop(value(.dpop), noDPoP: flag(.noDPoP))
        noDPoP = flag(.noDPoP)
        apiBase = try Self.apiBase(value(.apiBase))
        endpoints = LoginCommand.endpoints(parsed)
        let parameters = parsed.all(LoginOption.param)
        (requirements, forgottenRequirements) = try LoginInputChecks.requirements(
            maxAge: value(.maxAge), acrValues: value(.acrValues), parameters: parameters)
        timeout = try parsed.seconds(LoginOption.timeout, allowZero: false)
        loginHint = value(.loginHint)
        if let text = value(.prompt) { prompt = try LoginInputChecks.prompt(text) }
        self.parameters = try LoginInputChecks.parameters(parameters)
        noPAR = flag(.noPAR)
        force = flag(.force)
        json = flag(.json)
        try readClient(parsed)
        journey = value(.journey)
        resume = value(.resume)
        authenticateEndpoint = value(.authenticateEndpoint)
        cookieName = value(.cookieName)
        answers = value(.answers)
        otp = value(.otp)
        otpEnroll = value(.otpEnroll)
        otpReplace = flag(.otpReplace)
        idp = value(.idp)
        webAuthnOrigin = value(.webAuthnOrigin)
    }

    /// The client's authentication options: secret file, `private_key_jwt` key, certificate and pins.
    private mutating func readClient(_ parsed: ParsedOptions) throws(PingCLIError) {
        func value(_ name: LoginOption) -> String? { parsed.value(name) }
        clientSecretFile = value(.clientSecretFile)
        // Saved with the profile and read again from any directory: made absolute, as --client-cert is.
        if let path = value(.clientKeyFile) { clientKeyFile = try ClientTLSInputs.absolute(path, option: "--client-key-file") }
        clientKeyID = value(.clientKeyID)
        if let text = value(.clientAssertionAudience) {
            guard let audience = ClientAssertionAudience(rawValue: text) else {
                throw .usage(
                    "--client-assertion-audience must be endpoint, token-endpoint or issuer, not \"\(displaySafe(text, limit: 40))\"",
                    rule: .clientKeyOptions)
            }
            clientAssertionAudience = audience
        }
        clientTLS = try ClientTLSInputs.given(
            certificate: value(.clientCert), key: value(.clientKey), pins: parsed.all(LoginOption.pin))
    }

    /// `--dpop [ALG]`: the provider's choice, or the algorithm named; `--dpop` with `--no-dpop` is refused.
    package static func dpop(_ name: String?, noDPoP: Bool) throws(PingCLIError) -> DPoPRequest? {
        guard let name else { return nil }
        guard !noDPoP else { throw .usage("--dpop and --no-dpop cannot be combined: choose one", rule: .optionConflict) }
        return name.isEmpty ? .providerChoice : DPoPAlgorithm(rawValue: name).map { .algorithm($0) }
    }

    /// `--api-base URL` through the gate of the URLs `pingcli api` sends tokens to (https, or plain http
    /// to loopback only).
    package static func apiBase(_ text: String?) throws(PingCLIError) -> EndpointURL? {
        guard let text else { return nil }
        do {
            return try APIURL.check(text)
        } catch {
            throw .usage("--api-base \(displaySafe(text, limit: 200)): \(error.message)", rule: .apiURLGate)
        }
    }
}
