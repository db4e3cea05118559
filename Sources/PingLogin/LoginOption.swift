import PingCommandLine

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
    case otpReplace = "otp-replace"
    case idp
    case webAuthnOrigin = "webauthn-origin"
    // PingOne by its coordinates (`PingOneIssuer`).
    case pingOne = "pingone"
    case region
    case pingOneDomain = "pingone-domain"
}
