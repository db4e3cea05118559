import Foundation

/// PingAM / PingOne Advanced Identity Cloud: issuer `{origin}/am/oauth2/realms/root/realms/{realm}` (or the
/// realm's alias `/am/oauth2/{realm}`), OAuth 2.0 endpoints below it, journeys under `/am/json`
/// (https://docs.pingidentity.com/pingoneaic/am-oidc1/rest-api-oidc-discovery-configuration.html).
struct PingAMLayout: VendorLayout {
    func issuerPath(_ configuration: EmulatorConfiguration) -> String {
        configuration.journeys.shortIssuer ? Self.aliasPath(configuration) : Self.realmPath(configuration)
    }

    func issuerAlias(_ configuration: EmulatorConfiguration) -> String? {
        configuration.journeys.shortIssuer ? Self.realmPath(configuration) : Self.aliasPath(configuration)
    }

    static func realmPath(_ configuration: EmulatorConfiguration) -> String { "/am/oauth2/realms/root/realms/\(configuration.realm)" }
    static func aliasPath(_ configuration: EmulatorConfiguration) -> String { "/am/oauth2/\(configuration.realm)" }

    func endpointPaths(issuerPath root: String, _ configuration: EmulatorConfiguration) -> [EndpointKind: String] {
        let json = "/am/json/realms/root/realms/\(configuration.realm)"
        return [
            .discovery: root + "/.well-known/openid-configuration", .authorize: root + "/authorize", .token: root + "/access_token",
            .userinfo: root + "/userinfo", .revoke: root + "/token/revoke", .introspect: root + "/token/introspect",
            .jwks: root + "/connect/jwk_uri", .endSession: root + "/connect/endSession", .deviceAuthorization: root + "/device/code",
            .par: root + "/par", .serverInfo: "/am/json/serverinfo/*", .authenticate: json + "/authenticate", .sessions: json + "/sessions",
        ]
    }

    func discoveryMetadata(issuer: String, baseURL: String) -> [String: EmulatorJSON] {
        [
            "response_types_supported": ["code"],
            "response_modes_supported": ["query", "fragment", "form_post"],
            "grant_types_supported": .array(Self.standardGrants),
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"],
            "scopes_supported": .array(RegisteredClient.defaultScopes.map { .string($0) }),
            "claims_supported": Self.standardClaims,
            "code_challenge_methods_supported": ["S256"],
        ]
    }

    // Revocation: every token (https://docs.pingidentity.com/pingam/8.1/am-oauth2/oauth2-token-revoke-endpoint.html);
    // sign-off: loopback URIs on any port unless `exactRedirectPorts` (the defaults).

    var servesJourneys: Bool { true }
}
