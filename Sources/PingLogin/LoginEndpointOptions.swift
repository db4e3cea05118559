import PingCommandLine
import PingOAuth

/// `login`'s endpoint options, one for each `EndpointField`: `--token-endpoint`, `--jwks-uri`.
package enum EndpointOption: String, OptionName {
    case authorizationEndpoint = "authorization-endpoint"
    case tokenEndpoint = "token-endpoint"
    case userinfoEndpoint = "userinfo-endpoint"
    case revocationEndpoint = "revocation-endpoint"
    case endSessionEndpoint = "end-session-endpoint"
    case jwksURI = "jwks-uri"
    case deviceAuthorizationEndpoint = "device-authorization-endpoint"

    /// The provider metadata member the option sets.
    package var field: EndpointField {
        switch self {
        case .authorizationEndpoint: .authorization
        case .tokenEndpoint: .token
        case .userinfoEndpoint: .userinfo
        case .revocationEndpoint: .revocation
        case .endSessionEndpoint: .endSession
        case .jwksURI: .jwks
        case .deviceAuthorizationEndpoint: .deviceAuthorization
        }
    }
}

/// `login --authorization-endpoint URL --token-endpoint URL [--userinfo-endpoint …]`: endpoints given
/// outright, for providers without discovery or to replace one discovered endpoint (`EndpointOverrides`).
extension LoginCommand {
    // Written out, not mapped from `EndpointField.allCases`: every command (`token --raw` too) builds the
    // command table, and a map with string interpolation here cost about 100,000 instructions a start.
    package static let endpointSpecs: [OptionSpec] = [
        OptionSpec(
            EndpointOption.authorizationEndpoint, valueName: "URL",
            help:
                "the provider's authorization_endpoint, over discovery's; with --token-endpoint, enough without discovery; saved ('' forgets)"
        ),
        OptionSpec(
            EndpointOption.tokenEndpoint, valueName: "URL", help: "the provider's token_endpoint, over discovery's; saved ('' forgets)"),
        OptionSpec(
            EndpointOption.userinfoEndpoint, valueName: "URL",
            help: "the provider's userinfo_endpoint, over discovery's; saved ('' forgets)"),
        OptionSpec(
            EndpointOption.revocationEndpoint, valueName: "URL",
            help: "the provider's revocation_endpoint, over discovery's; saved ('' forgets)"),
        OptionSpec(
            EndpointOption.endSessionEndpoint, valueName: "URL",
            help: "the provider's end_session_endpoint, over discovery's; saved ('' forgets)"),
        OptionSpec(
            EndpointOption.jwksURI, valueName: "URL", help: "the provider's jwks_uri (its keys), over discovery's; saved ('' forgets)"),
        OptionSpec(
            EndpointOption.deviceAuthorizationEndpoint, valueName: "URL",
            help: "the provider's device_authorization_endpoint, over discovery's; saved ('' forgets)"),
    ]

    /// The endpoint options given, unchecked (the gate needs the issuer: `LoginPlan.resolve`).
    package static func endpoints(_ parsed: ParsedOptions) -> [EndpointField: String] {
        var given: [EndpointField: String] = [:]
        for option in EndpointOption.allCases { given[option.field] = parsed.value(option) }
        return given
    }
}
