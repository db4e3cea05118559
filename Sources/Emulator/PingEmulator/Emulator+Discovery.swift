import EmulatorHTTP
import Foundation

extension Emulator {
    // MARK: Discovery

    /// The OpenID Provider metadata each product documents, with this emulator's endpoints.
    ///
    /// - PingOne: https://developer.pingidentity.com/pingone-api/auth/openid-connect-oauth-2/discovery-openid-configuration.html
    /// - PingFederate: https://docs.pingidentity.com/pingfederate/latest/developers_reference_guide/pf_openid_provider_config_endpoint.html
    /// - PingAM: https://docs.pingidentity.com/pingoneaic/am-oidc1/rest-api-oidc-discovery-configuration.html
    ///
    /// Advertised but not served here: PingOne's `check_session_iframe`, PingFederate's CIBA
    /// (`backchannel_authentication_endpoint`), `ping_end_session_endpoint` and `ping_revoked_sris_endpoint`.
    /// PAR (RFC 9126) is advertised as the layout does by default (PingOne), or as `pushedAuthorization` says.
    func discoveryDocument() -> [String: EmulatorJSON] {
        var doc: [String: EmulatorJSON] = [
            "issuer": .string(issuer),
            "subject_types_supported": ["public"],
            "claims_parameter_supported": false,
            "request_parameter_supported": true,
        ]
        let names: [(EndpointKind, String)] = [
            (.authorize, "authorization_endpoint"), (.token, "token_endpoint"), (.userinfo, "userinfo_endpoint"),
            (.jwks, "jwks_uri"), (.revoke, "revocation_endpoint"), (.introspect, "introspection_endpoint"),
            (.endSession, "end_session_endpoint"), (.deviceAuthorization, "device_authorization_endpoint"),
        ]
        for (kind, name) in names { doc[name] = url(for: kind).map { .string($0) } }
        doc.merge(vendor.discoveryMetadata(issuer: issuer, baseURL: baseURL)) { _, layout in layout }
        doc["id_token_signing_alg_values_supported"] = vendor.idTokenAlgorithms(signing: configuration.signingAlgorithm)
        if let algorithms = configuration.dpop.algorithms {
            doc["dpop_signing_alg_values_supported"] = .array(algorithms.map { .string($0) })
        }
        if configuration.tokenExchange {
            doc["grant_types_supported"] = .array((doc["grant_types_supported"]?.arrayValue ?? []) + [.string(Self.tokenExchangeGrantType)])
        }
        if includesIssuerInAuthorizationResponse { doc["authorization_response_iss_parameter_supported"] = true }
        if configuration.pushedAuthorization != .off {
            doc["pushed_authorization_request_endpoint"] = url(for: .par).map { .string($0) }
            doc["require_pushed_authorization_requests"] = .bool(configuration.pushedAuthorization == .required)
        }
        if let aliases = mutualTLSAliases() {
            doc["mtls_endpoint_aliases"] = aliases
            doc["tls_client_certificate_bound_access_tokens"] = true
            let methods = doc["token_endpoint_auth_methods_supported"]?.arrayValue ?? []
            doc["token_endpoint_auth_methods_supported"] = .array(methods + Self.mutualTLSMethods.map { .string($0) })
        }
        return doc.applying(faults.discoveryOverrides)
    }
}
