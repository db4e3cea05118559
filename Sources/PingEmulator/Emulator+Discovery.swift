import Foundation

extension Emulator {
    // MARK: Discovery

    func discoveryDocument() -> [String: JSONValue] {
        var doc: [String: JSONValue] = [
            "issuer": .string(issuer),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials", .string(Emulator.deviceGrantType)],
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": .array(RegisteredClient.defaultScopes.map { .string($0) }),
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["EdDSA"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            "claims_supported": [
                "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "sid", "name",
                "preferred_username", "given_name", "family_name", "email", "email_verified",
            ],
            "authorization_response_iss_parameter_supported": true,
        ]
        let names: [(EndpointKind, String)] = [
            (.authorize, "authorization_endpoint"), (.token, "token_endpoint"), (.userinfo, "userinfo_endpoint"),
            (.jwks, "jwks_uri"), (.revoke, "revocation_endpoint"), (.introspect, "introspection_endpoint"),
            (.endSession, "end_session_endpoint"), (.deviceAuthorization, "device_authorization_endpoint"),
        ]
        for (kind, name) in names { doc[name] = url(for: kind).map { .string($0) } }
        if configuration.pushedAuthorization != .off {
            doc["pushed_authorization_request_endpoint"] = url(for: .par).map { .string($0) }
            doc["require_pushed_authorization_requests"] = .bool(configuration.pushedAuthorization == .required)
        }
        return doc.applying(faults.discoveryOverrides)
    }
}
