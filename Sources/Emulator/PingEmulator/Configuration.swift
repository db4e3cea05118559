import EmulatorHTTP
import Foundation

/// Which product's URL layout the emulator mimics.
public enum Layout: String, Sendable, Codable, CaseIterable {
    /// PingOne: issuer `http://127.0.0.1:<port>/<envID>/as`.
    case pingOne = "pingone"
    /// PingFederate: issuer `http://127.0.0.1:<port>`.
    case pingFederate = "pingfederate"
    /// PingAM / PingOne Advanced Identity Cloud: issuer
    /// `http://127.0.0.1:<port>/am/oauth2/realms/root/realms/<realm>`.
    case pingAM = "pingam"
}

/// Whether the emulator offers pushed authorization requests (RFC 9126).
public enum PushedAuthorizationMode: String, Sendable, Codable {
    /// Not advertised in discovery (the endpoint still answers).
    case off
    /// `pushed_authorization_request_endpoint` advertised; plain authorization requests still work.
    case offered
    /// Also `require_pushed_authorization_requests: true`; authorize refuses anything but a request_uri.
    case required
}

/// How the authorize endpoint signs the user in.
public enum SignInMode: String, Sendable, Codable {
    /// Authorize immediately redirects back, signed in as the first configured user.
    case approve
    /// Authorize shows an HTML sign-in form (`id="emulator-signin"`).
    case form
}

public struct RegisteredClient: Sendable, Hashable {
    public var clientID: String
    /// nil for a public client (token endpoint auth method "none").
    public var clientSecret: String?
    public var redirectURIs: [String]
    public var allowedScopes: [String]
    public var postLogoutRedirectURIs: [String]
    /// When set, the only method this confidential client may authenticate with
    /// (`client_secret_basic`, `client_secret_post`, `tls_client_auth` or `self_signed_tls_client_auth`);
    /// nil accepts either secret method.
    public var authMethod: String?
    /// `tls_client_auth` (RFC 8705 §2.1.2): the subject DN (RFC 4514) the certificate must carry.
    public var tlsClientAuthSubjectDN: String?
    /// `self_signed_tls_client_auth` (RFC 8705 §2.2): `x5t#S256` of the registered certificate.
    public var selfSignedCertificateThumbprint: String?
    /// PingAM: the client has implied consent, so `/authorize` with a session answers with a code at once;
    /// false: a consent page, answered with `decision=allow` (https://docs.pingidentity.com/pingam/8/oauth2-guide/oauth2-implied-consent.html).
    public var impliedConsent = true

    /// The DER SubjectPublicKeyInfo of a `private_key_jwt` client's registered key.
    public var publicKeyDER: [UInt8]? = nil
    /// Where set, the one `aud` its assertions must have: `endpoint`, `token-endpoint` or `issuer`.
    public var assertionAudience: String? = nil

    /// A confidential client: one with a secret, a certificate or a registered key.
    var isConfidential: Bool { clientSecret != nil || usesMutualTLS || publicKeyDER != nil }
    var usesMutualTLS: Bool { authMethod.map(Emulator.mutualTLSMethods.contains) ?? false }

    public static let defaultRedirectURIs = ["http://127.0.0.1/callback", "http://127.0.0.1/logout"]
    /// Sign-off URIs match exactly on PingOne and PingFederate: this default registers pingcli's default
    /// logout listener (port 8252) besides the port-less URIs the any-port layouts use.
    public static let defaultPostLogoutRedirectURIs = defaultRedirectURIs + ["http://127.0.0.1:8252/logout"]
    public static let defaultScopes = ["openid", "profile", "email", "phone", "address", "offline_access", "revoke"]

    public init(
        clientID: String,
        clientSecret: String? = nil,
        redirectURIs: [String] = RegisteredClient.defaultRedirectURIs,
        allowedScopes: [String] = RegisteredClient.defaultScopes,
        postLogoutRedirectURIs: [String] = RegisteredClient.defaultPostLogoutRedirectURIs,
        authMethod: String? = nil
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURIs = redirectURIs
        self.allowedScopes = allowedScopes
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.authMethod = authMethod
    }
}

public struct User: Sendable, Hashable {
    public var username: String
    public var password: String
    public var sub: String
    public var name: String
    public var email: String
    /// The base32 secret of the user's TOTP authenticator (RFC 6238), for journeys' one-time codes.
    public var totpSecret: String?

    public init(
        username: String, password: String, sub: String = UUID().uuidString.lowercased(),
        name: String, email: String, totpSecret: String? = nil
    ) {
        self.username = username
        self.password = password
        self.sub = sub
        self.name = name
        self.email = email
        self.totpSecret = totpSecret
    }

    public static let demo = User(
        username: "demo", password: "demo",
        sub: "5a1c0f3e-8b2d-4e6a-9c7f-1d2e3f4a5b6c",
        name: "Demo User", email: "demo@example.com", totpSecret: JourneyTree.demoTOTPSecret)
}

/// A PingOne custom resource: an API of yours with its own audience and scopes. A token whose scopes
/// include one of a resource's scopes carries the resource's audience in `aud`, and only such tokens (with
/// a `sid`) can be revoked
/// (https://developer.pingidentity.com/pingone-api/auth/openid-connect-oauth-2/token-revocation.html).
public struct CustomResource: Sendable, Hashable {
    public var name: String
    public var audience: String
    public var scopes: [String]

    public init(name: String, audience: String, scopes: [String]) {
        self.name = name
        self.audience = audience
        self.scopes = scopes
    }

    /// The resource of the Ping SDK setup guide ("Create a revoke resource in PingOne"), scope `revoke`.
    public static let sdkRevokeResource = CustomResource(
        name: "SDK Revoke Resource", audience: "https://api.example.com", scopes: ["revoke"])
}

public struct EmulatorConfiguration: Sendable {
    public static let defaultEnvironmentID = "9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b"

    public var layout: Layout
    public var environmentID: String
    /// The PingAM realm (`.pingAM` layout), `alpha` as in PingOne Advanced Identity Cloud.
    public var realm: String = "alpha"
    /// The PingAM layout's journeys, sessions and session cookie.
    public var journeys = JourneySettings()
    /// 0 picks an ephemeral port.
    public var port: UInt16
    public var clients: [RegisteredClient]
    public var users: [User]
    public var accessTokenLifetime: Int
    public var refreshTokenLifetime: Int
    public var authorizationCodeLifetime: Int
    public var idTokenLifetime: Int
    public var signInMode: SignInMode
    /// Per-connection read deadline in seconds.
    public var readTimeout: Double
    /// true: redirect and post-logout redirect URIs must match a registered one exactly, port included
    /// (RFC 8252 §7.3 lets providers do so); false: loopback URIs match on any port.
    public var exactRedirectPorts: Bool
    /// Pushed authorization requests: off, offered or required. Unset: the layout's default, offered for
    /// PingOne (which lists `pushed_authorization_request_endpoint`), off for PingFederate and PingAM.
    public var pushedAuthorization: PushedAuthorizationMode {
        get { pushedAuthorizationSetting ?? layout.vendor.defaultPushedAuthorization }
        set { pushedAuthorizationSetting = newValue }
    }
    private var pushedAuthorizationSetting: PushedAuthorizationMode?
    /// false: no `.well-known/openid-configuration` (404, an HTML page), as a gateway or provider that
    /// serves no discovery document; clients must be told the endpoints (`login --token-endpoint …`).
    public var servesDiscovery = true
    /// false: the device grant is answered without an ID token (RFC 8628 defines none; providers differ).
    public var deviceGrantIDToken = true
    /// The `acr` every ID token asserts, whatever `acr_values` asked for (nil: the first requested value,
    /// as a provider that met the request; none when none was requested).
    public var acr: String?
    /// The sign-in's `auth_time` is this many seconds before the request (an old single sign-on session).
    public var authTimeAge: Int?
    /// Seconds between device-flow polls that the device authorization endpoint advertises (RFC 8628 `interval`).
    public var deviceInterval: Double
    /// Seconds a device code lives (`expires_in`).
    public var deviceCodeLifetime: Int
    /// true: a device code waits for `approveDevice(userCode:)` (or `POST /__emulator/device/approve`);
    /// false: the first poll that no fault answers finds it approved by the first user.
    public var deviceRequiresApproval: Bool
    /// false: the revocation endpoint refuses public clients (`invalid_client`), as some providers do.
    public var publicClientsMayRevoke: Bool

    // MARK: Settings an administrator can change (docs/testing.md names the Ping page behind each)

    /// JWS algorithm of ID and access tokens. PingOne: RS256 only; PingFederate: the administrator's pick.
    public var signingAlgorithm: SigningAlgorithm = .rs256
    /// The `typ` header of access-token JWTs: "JWT"; PingOne always sends "at+jwt" from 2 March 2027
    /// (RFC 9068 §2.1).
    public var accessTokenType = "JWT"
    /// RFC 9207 `iss` in authorization responses (and `authorization_response_iss_parameter_supported`);
    /// nil takes the layout's default: off for PingFederate ("Include Issuer in Authorization Response" is
    /// cleared by default), on for PingOne and PingAM.
    public var authorizationResponseIssuer: Bool?
    /// PingOne custom resources (the `aud` of tokens that include one of their scopes).
    public var resources: [CustomResource] = [.sdkRevokeResource]
    /// PingOne `refreshTokenRollingDuration`: seconds after sign-in when no refresh token of the grant is
    /// accepted any more (nil: no limit). Each refresh token also lives `refreshTokenLifetime`
    /// (`refreshTokenDuration`).
    public var refreshTokenRollingDuration: Int? = 15_552_000
    /// PingOne `refreshTokenRollingGracePeriodDuration` (0–86400): seconds a refresh token that was already
    /// exchanged is still accepted.
    public var refreshTokenGracePeriod = 0
    /// PingFederate access token manager "Enable Token Revocation": JWT access tokens can be revoked directly.
    public var accessTokenRevocation = false
    /// PingFederate access token manager "Access Grant GUID Claim Name" set: revoking a refresh token (the
    /// grant) also rejects the grant's JWT access tokens.
    public var accessGrantGUIDClaim = false
    /// PingFederate: the PingFederate cookie is configured, so a valid `id_token_hint` signs off without asking.
    public var pingFederateCookie = true
    /// DPoP (RFC 9449): algorithms announced, required proofs, server nonces, proof lifetime, replay prevention.
    public var dpop = DPoPSettings()
    /// true (PingOne; PingFederate's "Roll refresh token values"): each refresh token is single-use and a
    /// refresh answers with a new one; false: the refresh token sent stays valid and none comes back.
    public var rotateRefreshTokens = true
    /// RFC 8693 token exchange: listed in `grant_types_supported` and accepted at the token endpoint
    /// (PingFederate's token exchange processor policies, PingOne's token exchange).
    public var tokenExchange = false

    /// The emulator's wall clock (seconds since 1970) behind token lifetimes, device codes and request
    /// timestamps: nil is the system clock. In-process flow tests pass the clock they control, so a token
    /// expires or a device code ages without anyone sleeping; `Emulator.advanceClock(by:)` moves it on.
    public var clock: (@Sendable () -> Double)?
    /// TLS: https on the main port and a mutual-TLS port for `mtls_endpoint_aliases` (RFC 8705 §5).
    public var tls: EmulatorTLS?

    /// Called after every request (including `/__emulator/` control requests, kind `.control`).
    public var onRequest: (@Sendable (RecordedRequest) -> Void)?

    public init(
        layout: Layout = .pingOne,
        environmentID: String = EmulatorConfiguration.defaultEnvironmentID,
        port: UInt16 = 0,
        clients: [RegisteredClient] = [RegisteredClient(clientID: "pingcli-test")],
        users: [User] = [.demo],
        accessTokenLifetime: Int = 3600,
        refreshTokenLifetime: Int = 30 * 24 * 3600,
        authorizationCodeLifetime: Int = 60,
        idTokenLifetime: Int = 3600,
        signInMode: SignInMode = .approve,
        readTimeout: Double = 10,
        publicClientsMayRevoke: Bool = true,
        deviceInterval: Double = 5,
        deviceCodeLifetime: Int = 600,
        deviceRequiresApproval: Bool = false,
        pushedAuthorization: PushedAuthorizationMode? = nil,
        exactRedirectPorts: Bool = false,
        onRequest: (@Sendable (RecordedRequest) -> Void)? = nil
    ) {
        self.layout = layout
        self.environmentID = environmentID
        self.port = port
        self.clients = clients
        self.users = users
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.authorizationCodeLifetime = authorizationCodeLifetime
        self.idTokenLifetime = idTokenLifetime
        self.signInMode = signInMode
        self.readTimeout = readTimeout
        self.publicClientsMayRevoke = publicClientsMayRevoke
        self.deviceInterval = deviceInterval
        self.deviceCodeLifetime = deviceCodeLifetime
        self.deviceRequiresApproval = deviceRequiresApproval
        self.pushedAuthorizationSetting = pushedAuthorization
        self.exactRedirectPorts = exactRedirectPorts
        self.onRequest = onRequest
    }
}

/// The endpoint a request was routed to.
public enum EndpointKind: String, Sendable, Codable, CodingKeyRepresentable, CaseIterable {
    case discovery, authorize, token, userinfo, revoke, introspect, jwks, endSession
    case deviceAuthorization, par
    /// PingAM: `/json/serverinfo/*`, `/json/realms/…/authenticate`, `/json/realms/…/sessions`.
    case serverInfo, authenticate, sessions
    /// PingAM: a user's bound devices, `/json/realms/…/users/{user}/devices/2fa/binding[/{uuid}]`.
    case boundDevices
    /// The page where a person enters (or confirms) a device flow's user code and signs in.
    case deviceVerification
    /// A small protected resource (`/api/resource` and every path below it) that takes Bearer and DPoP-bound tokens.
    case resource
    /// `/__emulator/…` control endpoints (never stored in `requests`).
    case control
    case other
}

/// One request as seen by the emulator (after it was answered).
public struct RecordedRequest: Sendable, Codable, Hashable {
    public var sequence: Int
    public var method: String
    public var path: String
    public var query: [String: String]
    public var form: [String: String]
    /// Lowercased header names.
    public var headers: [String: String]
    public var kind: EndpointKind
    /// `grant_type` for token requests.
    public var grantType: String?
    public var status: Int
    /// Seconds since 1970 when the request arrived.
    public var timestamp: Double
    /// The body of a JSON request (a journey step posted back), else nil.
    public var jsonBody: String? = nil
}

/// Result of introspecting a token.
public struct IntrospectionResult: Sendable, Hashable {
    public var active: Bool
    public var scope: String?
    public var clientID: String?
    public var sub: String?
    public var exp: Int?
    public var iat: Int?
    public var tokenType: String?
    /// The access token's `aud` (nil for refresh tokens).
    public var audience: EmulatorJSON?
}

extension EmulatorConfiguration {
    /// A provider that matches sign-in and sign-off URLs exactly, port included (RFC 8252 §7.3 lets it),
    /// with one client, `pingcli-test`, registered for `http://127.0.0.1:<loginPort>/callback` and
    /// `http://127.0.0.1:<logoutPort>/logout` only.
    public mutating func matchExactPorts(login loginPort: UInt16, logout logoutPort: UInt16) {
        exactRedirectPorts = true
        clients = [
            RegisteredClient(
                clientID: "pingcli-test", redirectURIs: ["http://127.0.0.1:\(loginPort)/callback"],
                postLogoutRedirectURIs: ["http://127.0.0.1:\(logoutPort)/logout"])
        ]
    }
}

/// The emulator's TLS settings: its server certificate and key (PEM files), and the CA that issues
/// client certificates for `tls_client_auth` (RFC 8705 §2.1). With them the emulator serves https on
/// its main port and mutual TLS on a second port listed in `mtls_endpoint_aliases` (RFC 8705 §5).
public struct EmulatorTLS: Sendable, Hashable {
    public var certificateFile: String
    public var keyFile: String
    public var clientCAFile: String?

    public init(certificateFile: String, keyFile: String, clientCAFile: String? = nil) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.clientCAFile = clientCAFile
    }
}
