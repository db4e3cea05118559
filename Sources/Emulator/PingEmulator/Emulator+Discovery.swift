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
    func discoveryDocument() -> [String: JSONValue] {
        var doc: [String: JSONValue] = [
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
        doc.merge(layoutMetadata()) { _, layout in layout }
        doc["id_token_signing_alg_values_supported"] = idTokenAlgorithms()
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

    /// PingOne signs with RS256 only; PingFederate lists every algorithm it can sign ID tokens with.
    private func idTokenAlgorithms() -> JSONValue {
        let signing = JSONValue.string(configuration.signingAlgorithm.rawValue)
        switch configuration.layout {
        case .pingOne, .pingAM: return [signing]
        case .pingFederate:
            let documented: [JSONValue] = ["RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512"]
            return .array(documented.contains(signing) ? documented : documented + [signing])
        }
    }

    private func layoutMetadata() -> [String: JSONValue] {
        let grants: [JSONValue] = ["authorization_code", "refresh_token", "client_credentials", .string(Emulator.deviceGrantType)]
        switch configuration.layout {
        case .pingOne:
            return [
                "check_session_iframe": .string(issuer + "/checksession"),
                "response_types_supported": ["code", "id_token", "token id_token", "code id_token", "code token", "code token id_token"],
                "response_modes_supported": ["pi.flow", "query", "fragment", "form_post"],
                "grant_types_supported": [
                    "authorization_code", "implicit", "client_credentials", "refresh_token", .string(Emulator.deviceGrantType),
                ],
                "userinfo_signing_alg_values_supported": ["none"],
                "request_object_signing_alg_values_supported": ["none", "HS256", "HS384", "HS512", "RS256", "RS384", "RS512"],
                "token_endpoint_auth_methods_supported": [
                    "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt",
                ],
                // PingOne's private_key_jwt takes RS256, RS384 and RS512 only.
                "token_endpoint_auth_signing_alg_values_supported": ["RS256", "RS384", "RS512"],
                "claim_types_supported": ["normal"],
                "scopes_supported": ["openid", "profile", "email", "address", "phone", "offline_access"],
                "claims_supported": [
                    "sub", "iss", "auth_time", "acr", "name", "given_name", "family_name", "middle_name", "preferred_username",
                    "profile", "picture", "zoneinfo", "phone_number", "updated_at", "address", "email", "locale",
                ],
                // The application's "PKCE Enforcement" decides; the emulator enforces S256_REQUIRED.
                "code_challenge_methods_supported": ["plain", "S256"],
                "request_uri_parameter_supported": false,
            ]
        case .pingFederate:
            return [
                "version": "3.0",
                "backchannel_authentication_endpoint": .string(baseURL + "/as/bc-auth.ciba"),
                "backchannel_authentication_request_signing_alg_values_supported": [
                    "RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512",
                ],
                "backchannel_token_delivery_modes_supported": ["poll", "ping"],
                "backchannel_user_code_parameter_supported": true,
                "ping_end_session_endpoint": .string(baseURL + "/idp/startSLO.ping"),
                "ping_revoked_sris_endpoint": .string(baseURL + "/pf-ws/rest/sessionMgmt/revokedSris"),
                "response_types_supported": [
                    "code", "token", "id_token", "code token", "code id_token", "token id_token", "code token id_token",
                ],
                "response_modes_supported": ["fragment", "query", "form_post"],
                "grant_types_supported": .array(grants + ["implicit", "password", "urn:openid:params:grant-type:ciba"]),
                "subject_types_supported": ["public", "pairwise"],
                "token_endpoint_auth_methods_supported": [
                    "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt",
                ],
                "token_endpoint_auth_signing_alg_values_supported": [
                    "RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512",
                ],
                "claim_types_supported": ["normal"],
                "scopes_supported": .array(RegisteredClient.defaultScopes.map { .string($0) }),
                "claims_supported": Self.standardClaims,
                "code_challenge_methods_supported": ["plain", "S256"],
                "request_uri_parameter_supported": true,
            ]
        case .pingAM:
            return [
                "response_types_supported": ["code"],
                "response_modes_supported": ["query", "fragment", "form_post"],
                "grant_types_supported": .array(grants),
                "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"],
                "scopes_supported": .array(RegisteredClient.defaultScopes.map { .string($0) }),
                "claims_supported": Self.standardClaims,
                "code_challenge_methods_supported": ["S256"],
            ]
        }
    }

    static let standardClaims: JSONValue = [
        "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "sid", "name",
        "preferred_username", "given_name", "family_name", "email", "email_verified",
    ]
}
