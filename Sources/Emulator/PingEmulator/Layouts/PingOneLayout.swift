import EmulatorHTTP
import Foundation

/// PingOne: issuer `{origin}/{environmentID}/as`, endpoints below it
/// (https://developer.pingidentity.com/pingone-api/auth/openid-connect-oauth-2/discovery-openid-configuration.html).
struct PingOneLayout: VendorLayout {
    /// The PingOne API's audience: the `aud` of tokens that carry only OpenID Connect scopes.
    static let apiAudience = "https://api.pingone.com"

    func issuerPath(_ configuration: EmulatorConfiguration) -> String { "/\(configuration.environmentID)/as" }

    func endpointPaths(issuerPath root: String, _ configuration: EmulatorConfiguration) -> [EndpointKind: String] {
        [
            .discovery: root + "/.well-known/openid-configuration", .authorize: root + "/authorize", .token: root + "/token",
            .userinfo: root + "/userinfo", .revoke: root + "/revoke", .introspect: root + "/introspect", .jwks: root + "/jwks",
            .endSession: root + "/signoff", .deviceAuthorization: root + "/device_authorization", .par: root + "/par",
        ]
    }

    /// PingOne lists its PAR endpoint.
    var defaultPushedAuthorization: PushedAuthorizationMode { .offered }

    func discoveryMetadata(issuer: String, baseURL: String) -> [String: EmulatorJSON] {
        [
            "check_session_iframe": .string(issuer + "/checksession"),
            "response_types_supported": ["code", "id_token", "token id_token", "code id_token", "code token", "code token id_token"],
            "response_modes_supported": ["pi.flow", "query", "fragment", "form_post"],
            "grant_types_supported": [
                "authorization_code", "implicit", "client_credentials", "refresh_token", .string(Emulator.deviceGrantType),
            ],
            "userinfo_signing_alg_values_supported": ["none"],
            "request_object_signing_alg_values_supported": ["none", "HS256", "HS384", "HS512", "RS256", "RS384", "RS512"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt"],
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
    }

    /// The custom resources that own one of the scopes, else the PingOne API (the userinfo endpoint
    /// belongs to it).
    func accessTokenAudience(scopes: [String], issuer: String, resources: [CustomResource]) -> EmulatorJSON {
        let custom = resources.filter { $0.scopes.contains(where: scopes.contains) }.map(\.audience)
        return .array((custom.isEmpty ? [Self.apiAudience] : custom).map { .string($0) })
    }

    func resourceAudience(_ resource: String) -> EmulatorJSON { .array([.string(resource)]) }

    /// "may not request scopes for multiple resources".
    var refusesScopesOfSeveralResources: Bool { true }

    /// Only tokens for a custom resource that carry a `sid`; never tokens for the PingOne API or without a
    /// session such as client_credentials tokens
    /// (https://developer.pingidentity.com/pingone-api/auth/openid-connect-oauth-2/token-revocation.html).
    func isRevocable(_ record: TokenRecord, audience: EmulatorJSON, _ configuration: EmulatorConfiguration) -> Bool {
        !record.grant.sid.isEmpty && audience != [.string(Self.apiAudience)]
    }

    /// `post_logout_redirect_uri` must equal one of the application's sign-off URLs exactly (the any-port
    /// rule is for sign-in redirect URIs only); a mismatch is an error page, no redirect
    /// (https://developer.pingidentity.com/pingone-api/auth/openid-connect-oauth-2/authorization/signoff-post.html).
    func signOff(_ request: SignOffRequest, on emulator: Emulator) -> HTTPResponse {
        guard let uri = request.postLogoutRedirectURI else { return emulator.signedOff(sid: request.sid, redirectURI: nil, state: nil) }
        guard let client = request.client, client.postLogoutRedirectURIs.contains(uri) else {
            return emulator.signOffError("invalid post logout redirect URI")
        }
        return emulator.signedOff(sid: request.sid, redirectURI: uri, state: request.state)
    }
}
