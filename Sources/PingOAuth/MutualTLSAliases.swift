import PingBase

/// [RFC 8705 §5](https://www.rfc-editor.org/rfc/rfc8705#section-5): a provider may serve mutual TLS on
/// other hosts or ports than its plain endpoints, and lists them in `mtls_endpoint_aliases`. A client
/// that authenticates with a certificate, or wants certificate-bound tokens, uses the alias wherever one
/// is listed and the plain endpoint elsewhere.
extension ProviderMetadata {
    /// The endpoints RFC 8705 §5 allows an alias for, that pingcli uses.
    package static let mutualTLSAliasFields = [
        "token_endpoint", "revocation_endpoint", "introspection_endpoint", "device_authorization_endpoint",
        "pushed_authorization_request_endpoint", "userinfo_endpoint",
    ]

    /// The `mtls_endpoint_aliases` object: each known member a string through the URL gate and endpoint
    /// policy for `issuer`, unknown members ignored (RFC 8705 §5 lets providers add others).
    package static func mutualTLSAliases(
        _ object: [String: JSONValue], issuer: EndpointURL
    ) throws(DiscoveryError) -> [String: EndpointURL]? {
        let key = "mtls_endpoint_aliases"
        guard let value = object[key], value != .null else { return nil }
        guard let aliases = value.objectValue else { throw .wrongType(key) }
        var checked: [String: EndpointURL] = [:]
        for field in mutualTLSAliasFields {
            guard let member = aliases[field], member != .null else { continue }
            guard let text = member.stringValue else { throw .wrongType("\(key).\(field)") }
            do {
                checked[field] = try EndpointPolicy.check(text, issuer: issuer)
            } catch {
                throw .refusedEndpoint(field: "\(key).\(field)", url: text, error)
            }
        }
        return checked
    }

    /// These endpoints with their mutual-TLS aliases in place (RFC 8705 §5), for a client with a certificate.
    package func usingMutualTLSAliases() -> ProviderMetadata {
        guard let aliases = mtlsEndpointAliases else { return self }
        var metadata = self
        metadata.tokenEndpoint = aliases["token_endpoint"] ?? tokenEndpoint
        metadata.revocationEndpoint = aliases["revocation_endpoint"] ?? revocationEndpoint
        metadata.introspectionEndpoint = aliases["introspection_endpoint"] ?? introspectionEndpoint
        metadata.deviceAuthorizationEndpoint = aliases["device_authorization_endpoint"] ?? deviceAuthorizationEndpoint
        metadata.pushedAuthorizationRequestEndpoint = aliases["pushed_authorization_request_endpoint"] ?? pushedAuthorizationRequestEndpoint
        metadata.userinfoEndpoint = aliases["userinfo_endpoint"] ?? userinfoEndpoint
        metadata.mtlsEndpointAliases = nil
        return metadata
    }
}
