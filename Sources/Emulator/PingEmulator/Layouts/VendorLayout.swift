import EmulatorHTTP
import Foundation

/// One product as the emulator plays it: its URLs, its discovery document and where it departs from the
/// specifications. The defaults below are a generic, standards-only OpenID provider; `PingOneLayout`,
/// `PingFederateLayout` and `PingAMLayout` say what their product does differently, each with the Ping
/// page it follows.
protocol VendorLayout: Sendable {
    /// The issuer's path below the emulator's origin ("" for an issuer at the origin).
    func issuerPath(_ configuration: EmulatorConfiguration) -> String
    /// Each endpoint's path, given the issuer's.
    func endpointPaths(issuerPath root: String, _ configuration: EmulatorConfiguration) -> [EndpointKind: String]
    /// Another form of the issuer's path that answers as it does (PingAM's realm alias), or nil.
    func issuerAlias(_ configuration: EmulatorConfiguration) -> String?
    /// The discovery members this product adds or words its own way.
    func discoveryMetadata(issuer: String, baseURL: String) -> [String: EmulatorJSON]
    /// `id_token_signing_alg_values_supported` when ID tokens are signed with `signing`.
    func idTokenAlgorithms(signing: SigningAlgorithm) -> EmulatorJSON
    /// Pushed authorization requests when the configuration does not say.
    var defaultPushedAuthorization: PushedAuthorizationMode { get }
    /// RFC 9207 `iss` in authorization responses when the configuration does not say.
    var sendsIssuerInAuthorizationResponse: Bool { get }
    /// The `aud` of an access token with `scopes`.
    func accessTokenAudience(scopes: [String], issuer: String, resources: [CustomResource]) -> EmulatorJSON
    /// The `aud` of an access token narrowed to `resource` (RFC 8707).
    func resourceAudience(_ resource: String) -> EmulatorJSON
    /// Whether requested scopes of two custom resources in one token are refused (`invalid_scope`).
    var refusesScopesOfSeveralResources: Bool { get }
    /// Whether the revocation endpoint revokes `record` (whose access token audience is `audience`).
    func isRevocable(_ record: TokenRecord, audience: EmulatorJSON, _ configuration: EmulatorConfiguration) -> Bool
    /// Whether revoking a refresh token also revokes the grant's access tokens (RFC 7009 §2.1).
    func revokesAccessTokensWithGrant(_ configuration: EmulatorConfiguration) -> Bool
    /// Whether an `id_token_hint` this server did not issue is ignored at sign-off instead of refused.
    var ignoresForeignIDTokenHint: Bool { get }
    /// The sign-off once the hint was checked: redirect, signed-out page, confirmation or error.
    func signOff(_ request: SignOffRequest, on emulator: Emulator) -> HTTPResponse
    /// Whether PingAM's journeys, sessions and session cookie are served.
    var servesJourneys: Bool { get }
}

/// A sign-off request after its `id_token_hint` was checked.
struct SignOffRequest {
    var client: RegisteredClient?
    /// The session the hint named, if it was valid.
    var sid: String?
    var postLogoutRedirectURI: String?
    var state: String?
}

extension VendorLayout {
    func issuerPath(_ configuration: EmulatorConfiguration) -> String { "" }

    func endpointPaths(issuerPath root: String, _ configuration: EmulatorConfiguration) -> [EndpointKind: String] {
        [
            .discovery: root + "/.well-known/openid-configuration", .authorize: root + "/authorize", .token: root + "/token",
            .userinfo: root + "/userinfo", .revoke: root + "/revoke", .introspect: root + "/introspect", .jwks: root + "/jwks",
            .endSession: root + "/logout", .deviceAuthorization: root + "/device_authorization", .par: root + "/par",
        ]
    }

    func issuerAlias(_ configuration: EmulatorConfiguration) -> String? { nil }

    func discoveryMetadata(issuer: String, baseURL: String) -> [String: EmulatorJSON] {
        [
            "response_types_supported": ["code"], "grant_types_supported": .array(Self.standardGrants),
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"],
            "scopes_supported": .array(RegisteredClient.defaultScopes.map { .string($0) }), "claims_supported": Self.standardClaims,
            "code_challenge_methods_supported": ["S256"],
        ]
    }

    func idTokenAlgorithms(signing: SigningAlgorithm) -> EmulatorJSON { [.string(signing.rawValue)] }

    var defaultPushedAuthorization: PushedAuthorizationMode { .off }
    var sendsIssuerInAuthorizationResponse: Bool { true }

    func accessTokenAudience(scopes: [String], issuer: String, resources: [CustomResource]) -> EmulatorJSON { .string(issuer) }
    func resourceAudience(_ resource: String) -> EmulatorJSON { .string(resource) }
    var refusesScopesOfSeveralResources: Bool { false }

    func isRevocable(_ record: TokenRecord, audience: EmulatorJSON, _ configuration: EmulatorConfiguration) -> Bool { true }
    func revokesAccessTokensWithGrant(_ configuration: EmulatorConfiguration) -> Bool { true }

    var ignoresForeignIDTokenHint: Bool { false }

    /// A registered `post_logout_redirect_uri` (loopback ones on any port unless `exactRedirectPorts`) is
    /// redirected to with `state`; another is an error page; none shows the signed-out page.
    func signOff(_ request: SignOffRequest, on emulator: Emulator) -> HTTPResponse {
        guard let uri = request.postLogoutRedirectURI else { return emulator.signedOff(sid: request.sid, redirectURI: nil, state: nil) }
        guard let client = request.client,
            Emulator.redirectURI(uri, matchesAnyOf: client.postLogoutRedirectURIs, exactPort: emulator.configuration.exactRedirectPorts)
        else {
            return emulator.signOffError("post_logout_redirect_uri is not registered for this client.")
        }
        return emulator.signedOff(sid: request.sid, redirectURI: uri, state: request.state)
    }

    var servesJourneys: Bool { false }

    static var standardGrants: [EmulatorJSON] {
        ["authorization_code", "refresh_token", "client_credentials", .string(Emulator.deviceGrantType)]
    }

    static var standardClaims: EmulatorJSON {
        [
            "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "sid", "name",
            "preferred_username", "given_name", "family_name", "email", "email_verified",
        ]
    }
}

extension Layout {
    /// The type that plays this product.
    var vendor: any VendorLayout {
        switch self {
        case .pingOne: PingOneLayout()
        case .pingFederate: PingFederateLayout()
        case .pingAM: PingAMLayout()
        }
    }
}
