import PingOAuth

/// `login --authorization-endpoint URL --token-endpoint URL [--userinfo-endpoint …]`: endpoints given
/// outright, for providers without discovery or to replace one discovered endpoint (`EndpointOverrides`).
extension LoginCommand {
    // Written out, not mapped from `EndpointField.allCases`: every command (`token --raw` too) builds the
    // command table, and a map with string interpolation here cost about 100,000 instructions a start.
    package static let endpointSpecs: [OptionSpec] = [
        OptionSpec(
            name: "authorization-endpoint", valueName: "URL",
            help:
                "the provider's authorization_endpoint, over discovery's; with --token-endpoint, enough without discovery; saved ('' forgets)"
        ),
        OptionSpec(name: "token-endpoint", valueName: "URL", help: "the provider's token_endpoint, over discovery's; saved ('' forgets)"),
        OptionSpec(
            name: "userinfo-endpoint", valueName: "URL", help: "the provider's userinfo_endpoint, over discovery's; saved ('' forgets)"),
        OptionSpec(
            name: "revocation-endpoint", valueName: "URL", help: "the provider's revocation_endpoint, over discovery's; saved ('' forgets)"),
        OptionSpec(
            name: "end-session-endpoint", valueName: "URL",
            help: "the provider's end_session_endpoint, over discovery's; saved ('' forgets)"),
        OptionSpec(name: "jwks-uri", valueName: "URL", help: "the provider's jwks_uri (its keys), over discovery's; saved ('' forgets)"),
        OptionSpec(
            name: "device-authorization-endpoint", valueName: "URL",
            help: "the provider's device_authorization_endpoint, over discovery's; saved ('' forgets)"),
    ]

    /// The endpoint options given, unchecked (the gate needs the issuer: `LoginPlan.resolve`).
    package static func endpoints(_ parsed: ParsedOptions) -> [EndpointField: String] {
        var given: [EndpointField: String] = [:]
        for field in EndpointField.allCases { given[field] = parsed.value(field.option) }
        return given
    }
}
