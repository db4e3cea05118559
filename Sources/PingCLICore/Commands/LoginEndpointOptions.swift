/// `login --authorization-endpoint URL --token-endpoint URL [--userinfo-endpoint …]`: endpoints given
/// outright, for providers without discovery or to replace one discovered endpoint (`EndpointOverrides`).
extension LoginCommand {
    static let endpointSpecs: [OptionSpec] = EndpointField.allCases.map { field in
        OptionSpec(
            name: field.option, valueName: "URL",
            help: field == .authorization
                ? "the provider's authorization_endpoint, over discovery's; with --token-endpoint, enough without discovery; saved ('' forgets)"
                : "the provider's \(field.rawValue), over discovery's; saved ('' forgets)")
    }

    /// The endpoint options given, unchecked (the gate needs the issuer: `LoginConfiguration.resolve`).
    static func endpoints(_ parsed: ParsedOptions) -> [EndpointField: String] {
        var given: [EndpointField: String] = [:]
        for field in EndpointField.allCases { given[field] = parsed.value(field.option) }
        return given
    }
}
