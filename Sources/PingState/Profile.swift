import PingOAuth
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// What a profile remembers between commands; nothing in it is secret. Written as profile.json through
/// its `Encodable` conformance (`JSONValueEncoder`), read back by `init(savedJSON:)` (SavedProfile.swift).
public struct Profile: Encodable, Sendable, Equatable {
    public var issuer: String
    public var clientID: String
    public var scopes: [String]
    /// The provider's endpoints as discovered at login, so `token` can refresh without discovery.
    public var metadata: ProviderMetadata
    /// A PEM CA bundle to trust for this issuer, when not the system's.
    public var caFile: String?
    /// How a confidential client authenticates at the token endpoint; nil for a public client (its
    /// secret is in the encrypted cache, never here).
    public var tokenEndpointAuthMethod: ClientAuthMethod?
    /// The same for the revocation endpoint.
    public var revocationEndpointAuthMethod: ClientAuthMethod?
    /// The grant that renews the tokens: nil for a person's login (authorization code or device code,
    /// renewed with the refresh token), `client_credentials` for a machine (renewed by asking again).
    public var grantType: GrantType?
    /// The loopback redirect port fixed with `login --port`, for providers that match redirect URIs
    /// exactly (RFC 8252 §7.3 allows it): later logins and `logout --end-session` listen on it again.
    public var port: UInt16?
    /// The sign-off listener's port, fixed with `login --logout-port`: `logout --end-session` sends
    /// `post_logout_redirect_uri=http://127.0.0.1:<port>/logout`, which providers match exactly (PingOne
    /// always does), so it must stay the same from one logout to the next. nil: `port`, else 8252.
    public var logoutPort: UInt16?
    /// The git servers `pingcli git-credential` answers for (`login --git-host`, `git-credential
    /// configure`); nil or empty: none.
    public var gitHosts: [GitHost]?
    /// `login --max-age`: sent as `max_age`; every ID token of the session must carry an `auth_time`
    /// that meets it (OIDC Core §3.1.2.1, §12.2 on refresh).
    public var maxAge: Int?
    /// `login --acr-values`: sent as `acr_values`; every ID token's `acr` must be one of them.
    public var acrValues: [String]?
    /// Who signed in, when the grant brought no ID token (the device grant): the UserInfo endpoint's
    /// `sub`, which a later ID token (from a refresh) must name too (OIDC Core §12.2).
    public var subject: String?
    /// `login --client-cert` / `--client-key`: the PEM files of the client's certificate and its private
    /// key for mutual TLS (RFC 8705), absolute paths; the key itself is never copied.
    public var clientCertificateFile: String?
    public var clientKeyFile: String?
    /// `login --pin`: pinned server keys (`sha256//…`), applied to every request of the profile.
    public var pinnedPublicKeys: [KeyPin]?
    /// A `private_key_jwt` client's key file, `kid` and assertion audience (`login --client-key-file`).
    public var clientAssertionKeyFile: String? = nil
    public var clientAssertionKeyID: String? = nil
    public var clientAssertionAudience: ClientAssertionAudience? = nil

    /// The three client assertion members together.
    public var clientKey: ClientKeyOptions? {
        get {
            clientAssertionKeyFile.map {
                ClientKeyOptions(path: $0, keyID: clientAssertionKeyID, audience: clientAssertionAudience ?? .endpoint)
            }
        }
        set {
            clientAssertionKeyFile = newValue?.path
            clientAssertionKeyID = newValue?.keyID
            clientAssertionAudience = newValue?.audience
        }
    }
    /// `login --dpop`: the DPoP algorithm the profile signs in with (RFC 9449); the key itself is only
    /// in the encrypted cache. A later `login` to the same issuer uses DPoP again.
    public var dpop: String?
    /// `login --api-base URL`: the base `pingcli api` resolves relative URLs against. It decides where
    /// tokens go, so it is bound to the cache like the endpoints.
    public var apiBase: String?
    /// `login --token-endpoint URL` and the like: the metadata members given on the command line rather
    /// than discovered (their values are in `metadata`); a later login to the same issuer uses them again.
    public var endpointOverrides: [String]? = nil
    /// false: the issuer served no discovery document at the last login (the endpoints are all given).
    public var discovery: Bool? = nil
    /// `login --journey TREE`: the PingAM tree a later login (and kubectl's and git's first sign-in) runs
    /// again; never its answers. With it, the AM session cookie's name and `--authenticate-endpoint`.
    public var journey: String? = nil
    public var amCookieName: String? = nil
    public var authenticateEndpoint: String? = nil
    /// `login --otp NAME`: the stored OATH account (`pingcli otp`) that answers the tree's one-time-code
    /// prompts; its name only, never a secret.
    public var otp: String? = nil
    /// `login --idp NAME`: the identity provider the tree's Select Identity Provider step picks (AM's
    /// configuration name, never a secret).
    public var idp: String? = nil
    /// `login --webauthn-origin URL`: the origin a journey's passkey steps speak for.
    public var webAuthnOrigin: String? = nil

    public enum GrantType: String, Codable, Sendable {
        case clientCredentials = "client_credentials"
        /// RFC 8628: renewed with the refresh token like a browser login; a later `login` uses it again.
        case deviceCode = "urn:ietf:params:oauth:grant-type:device_code"
    }

    package enum CodingKeys: String, CodingKey {
        case issuer
        case clientID = "client_id"
        case scopes
        case metadata
        case caFile = "ca_file"
        case tokenEndpointAuthMethod = "token_endpoint_auth_method"
        case revocationEndpointAuthMethod = "revocation_endpoint_auth_method"
        case grantType = "grant_type"
        case port
        case logoutPort = "logout_port"
        case gitHosts = "git_hosts"
        case maxAge = "max_age"
        case acrValues = "acr_values"
        case subject
        case clientCertificateFile = "client_certificate_file"
        case clientKeyFile = "client_key_file"
        case pinnedPublicKeys = "pinned_public_keys"
        case clientAssertionKeyFile = "client_assertion_key_file"
        case clientAssertionKeyID = "client_assertion_key_id"
        case clientAssertionAudience = "client_assertion_audience"
        case dpop
        case apiBase = "api_base"
        case endpointOverrides = "endpoint_overrides"
        case discovery
        case journey
        case amCookieName = "am_cookie_name"
        case authenticateEndpoint = "authenticate_endpoint"
        case otp
        case idp
        case webAuthnOrigin = "webauthn_origin"
    }

    public init(
        issuer: String, clientID: String, scopes: [String], metadata: ProviderMetadata, caFile: String? = nil,
        tokenEndpointAuthMethod: ClientAuthMethod? = nil, revocationEndpointAuthMethod: ClientAuthMethod? = nil,
        grantType: GrantType? = nil, port: UInt16? = nil, logoutPort: UInt16? = nil, gitHosts: [GitHost]? = nil,
        maxAge: Int? = nil, acrValues: [String]? = nil, subject: String? = nil,
        dpop: String? = nil, apiBase: String? = nil
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.scopes = scopes
        self.metadata = metadata
        self.caFile = caFile
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.revocationEndpointAuthMethod = revocationEndpointAuthMethod
        self.grantType = grantType
        self.port = port
        self.logoutPort = logoutPort
        self.gitHosts = gitHosts
        self.maxAge = maxAge
        self.acrValues = acrValues
        self.subject = subject
        self.dpop = dpop
        self.apiBase = apiBase
    }

    /// Records which endpoints `login` was given (`overrides`) and whether `metadata` was discovered.
    package mutating func record(_ overrides: EndpointOverrides, metadata: ProviderMetadata) {
        endpointOverrides = overrides.isEmpty ? nil : overrides.names
        discovery = metadata.discovered ? nil : false
    }

    /// What the sign-in asked of the authentication, for the ID tokens that refreshes bring.
    public var requirements: AuthenticationRequirements { AuthenticationRequirements(maxAge: maxAge, acrValues: acrValues) }

    /// The profile's client certificate and pins, as the transport takes them.
    public var clientTLS: ClientTLS {
        get { ClientTLS(certificateFile: clientCertificateFile, keyFile: clientKeyFile, pins: pinnedPublicKeys ?? []) }
        set {
            clientCertificateFile = newValue.certificateFile
            clientKeyFile = newValue.keyFile
            pinnedPublicKeys = newValue.pins.isEmpty ? nil : newValue.pins
        }
    }

    /// The port `logout --end-session` listens on when not told otherwise: 8252 (after RFC 8252) unless
    /// the profile fixed one, so the sign-off URL registered once keeps matching.
    public static let defaultLogoutPort: UInt16 = 8252

    /// The sign-off listener's port for this profile: `logout_port`, else the fixed login port (a provider
    /// that matches ports exactly had `http://127.0.0.1:<port>/logout` registered with it), else 8252.
    public var effectiveLogoutPort: UInt16 { logoutPort ?? port ?? Self.defaultLogoutPort }

    /// The client as it authenticates at the token endpoint, with the secret from the encrypted cache.
    package func tokenClient(secret: ClientSecret?) -> ClientCredentials {
        ClientCredentials(
            clientID: clientID, secret: tokenEndpointAuthMethod == nil || tokenEndpointAuthMethod == .privateKeyJWT ? nil : secret,
            method: tokenEndpointAuthMethod)
    }

    /// The client as it authenticates at the revocation endpoint.
    package func revocationClient(secret: ClientSecret?) -> ClientCredentials {
        let method = revocationEndpointAuthMethod ?? tokenEndpointAuthMethod
        return ClientCredentials(clientID: clientID, secret: method == nil || method == .privateKeyJWT ? nil : secret, method: method)
    }
}
