import PingBase

/// A command's option names as a type: the command's spec table and its typed options value both name
/// an option by its case, so a misspelt name does not compile (a string look-up of one is a silent nil).
package protocol OptionName: RawRepresentable, CaseIterable where RawValue == String {}

extension ParsedOptions {
    package func value(_ name: some OptionName) -> String? { value(name.rawValue) }
    package func all(_ name: some OptionName) -> [String] { all(name.rawValue) }
    package func flag(_ name: some OptionName) -> Bool { flag(name.rawValue) }

    /// A whole number of seconds given as `--name`, or nil when it is not given.
    package func seconds(_ name: some OptionName, allowZero: Bool) throws(PingCLIError) -> Double? {
        guard let text = value(name) else { return nil }
        return try parseSeconds(text, option: name.rawValue, allowZero: allowZero)
    }
}

extension OptionSpec {
    /// An option named by its case.
    package init(
        _ name: some OptionName, valueName: String? = nil, repeatable: Bool = false, help: String, optionalValues: [String] = []
    ) {
        self.init(name: name.rawValue, valueName: valueName, repeatable: repeatable, help: help, optionalValues: optionalValues)
    }
}

/// The options every command shares (`CommonOptions`).
package enum CommonOption: String, OptionName {
    case profile, verbose, help
    case httpTimeout = "http-timeout"
}

/// `pingcli login`'s own options; `LoginCommand.specs` is built from these cases (with the endpoint
/// options, `EndpointField`), and `LoginPlan.Flags(parsing:)` reads them.
package enum LoginOption: String, OptionName {
    case issuer, scope, port, timeout, prompt, param, device, dpop, json, force
    case clientID = "client-id"
    case logoutPort = "logout-port"
    case gitHost = "git-host"
    case noBrowser = "no-browser"
    case acrValues = "acr-values"
    case maxAge = "max-age"
    case loginHint = "login-hint"
    case clientSecretFile = "client-secret-file"
    case clientKeyFile = "client-key-file"
    case clientKeyID = "client-key-id"
    case clientAssertionAudience = "client-assertion-audience"
    case noPAR = "no-par"
    case clientCredentials = "client-credentials"
    case caFile = "ca-file"
    case noDPoP = "no-dpop"
    case apiBase = "api-base"
    // Mutual TLS and key pins (`ClientTLSInputs`).
    case clientCert = "client-cert"
    case clientKey = "client-key"
    case pin
    // A PingAM journey (`LoginJourneyInputs`).
    case journey, resume, answers
    case authenticateEndpoint = "authenticate-endpoint"
    case cookieName = "cookie-name"
    case otp
    case otpEnroll = "otp-enroll"
    // PingOne by its coordinates (`PingOneIssuer`).
    case pingOne = "pingone"
    case region
    case pingOneDomain = "pingone-domain"
}
