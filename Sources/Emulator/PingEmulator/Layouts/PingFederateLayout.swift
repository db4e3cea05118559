import EmulatorHTTP
import Foundation

/// PingFederate: issuer at the origin, its own endpoint names
/// (https://docs.pingidentity.com/pingfederate/latest/developers_reference_guide/pf_openid_provider_config_endpoint.html).
struct PingFederateLayout: VendorLayout {
    func endpointPaths(issuerPath root: String, _ configuration: EmulatorConfiguration) -> [EndpointKind: String] {
        [
            .discovery: "/.well-known/openid-configuration", .authorize: "/as/authorization.oauth2", .token: "/as/token.oauth2",
            .userinfo: "/idp/userinfo.openid", .revoke: "/as/revoke_token.oauth2", .introspect: "/as/introspect.oauth2",
            .jwks: "/pf/JWKS", .endSession: "/idp/init_logout.openid", .deviceAuthorization: "/as/device_authz.oauth2",
            .par: "/as/par.oauth2",
        ]
    }

    /// "Include Issuer in Authorization Response" is cleared by default
    /// (https://docs.pingidentity.com/pingfederate/latest/administrators_reference_guide/help_authorizationserversettingstasklet_oauthauthorizationserversettingsstate.html).
    var sendsIssuerInAuthorizationResponse: Bool { false }

    /// Every algorithm PingFederate can sign ID tokens with.
    func idTokenAlgorithms(signing: SigningAlgorithm) -> EmulatorJSON {
        let documented: [EmulatorJSON] = ["RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512"]
        let algorithm = EmulatorJSON.string(signing.rawValue)
        return .array(documented.contains(algorithm) ? documented : documented + [algorithm])
    }

    func discoveryMetadata(issuer: String, baseURL: String) -> [String: EmulatorJSON] {
        [
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
            "grant_types_supported": .array(Self.standardGrants + ["implicit", "password", "urn:openid:params:grant-type:ciba"]),
            "subject_types_supported": ["public", "pairwise"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": [
                "RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512",
            ],
            "claim_types_supported": ["normal"],
            "scopes_supported": .array(RegisteredClient.defaultScopes.map { .string($0) }),
            "claims_supported": Self.standardClaims,
            "code_challenge_methods_supported": ["plain", "S256"],
            "request_uri_parameter_supported": true,
        ]
    }

    /// Refresh tokens; JWT access tokens only with the access token manager's "Enable Token Revocation"
    /// (https://docs.pingidentity.com/pingfederate/latest/developers_reference_guide/pf_token_revoc_endpoint.html).
    func isRevocable(_ record: TokenRecord, audience: EmulatorJSON, _ configuration: EmulatorConfiguration) -> Bool {
        record.isRefresh || configuration.accessTokenRevocation
    }

    /// JWT access tokens stay valid unless the access token manager names an Access Grant GUID claim.
    func revokesAccessTokensWithGrant(_ configuration: EmulatorConfiguration) -> Bool { configuration.accessGrantGUIDClaim }

    var ignoresForeignIDTokenHint: Bool { true }

    /// A URI that matches none is ignored (PingFederate shows its own signed-out page); with no valid
    /// `id_token_hint`, or when the PingFederate cookie is not configured, the person is asked to confirm
    /// first (https://docs.pingidentity.com/pingfederate/latest/developers_reference_guide/pf_openid_connect_rp_logout_endpoint.html).
    func signOff(_ request: SignOffRequest, on emulator: Emulator) -> HTTPResponse {
        let registered = request.postLogoutRedirectURI.flatMap { uri in
            request.client?.postLogoutRedirectURIs.contains(uri) == true ? uri : nil
        }
        guard request.sid != nil, emulator.configuration.pingFederateCookie else {
            return emulator.askToConfirmSignOff(PendingLogout(sid: request.sid, redirectURI: registered, state: request.state))
        }
        return emulator.signedOff(sid: request.sid, redirectURI: registered, state: request.state)
    }
}
