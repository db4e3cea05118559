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
    /// PingOne quirk: revocation requires the grant to include the "revoke" scope.
    public var requiresRevokeScope: Bool
    /// When set, the only method this confidential client may authenticate with
    /// (`client_secret_basic` or `client_secret_post`); nil accepts either.
    public var authMethod: String?

    public static let defaultRedirectURIs = ["http://127.0.0.1/callback", "http://127.0.0.1/logout"]
    public static let defaultScopes = ["openid", "profile", "email", "phone", "address", "offline_access", "revoke"]

    public init(
        clientID: String,
        clientSecret: String? = nil,
        redirectURIs: [String] = RegisteredClient.defaultRedirectURIs,
        allowedScopes: [String] = RegisteredClient.defaultScopes,
        postLogoutRedirectURIs: [String] = RegisteredClient.defaultRedirectURIs,
        requiresRevokeScope: Bool = false,
        authMethod: String? = nil
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURIs = redirectURIs
        self.allowedScopes = allowedScopes
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.requiresRevokeScope = requiresRevokeScope
        self.authMethod = authMethod
    }
}

public struct User: Sendable, Hashable {
    public var username: String
    public var password: String
    public var sub: String
    public var name: String
    public var email: String

    public init(
        username: String, password: String, sub: String = UUID().uuidString.lowercased(),
        name: String, email: String
    ) {
        self.username = username
        self.password = password
        self.sub = sub
        self.name = name
        self.email = email
    }

    public static let demo = User(
        username: "demo", password: "demo",
        sub: "5a1c0f3e-8b2d-4e6a-9c7f-1d2e3f4a5b6c",
        name: "Demo User", email: "demo@example.com")
}

public struct EmulatorConfiguration: Sendable {
    public static let defaultEnvironmentID = "9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b"

    public var layout: Layout
    public var environmentID: String
    /// The PingAM realm (`.pingAM` layout), `alpha` as in PingOne Advanced Identity Cloud.
    public var realm: String = "alpha"
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
    /// Pushed authorization requests: off (default), offered or required.
    public var pushedAuthorization: PushedAuthorizationMode
    /// Seconds between device-flow polls that the device authorization endpoint advertises (RFC 8628 `interval`).
    public var deviceInterval: Double
    /// Seconds a device code lives (`expires_in`).
    public var deviceCodeLifetime: Int
    /// true: a device code waits for `approveDevice(userCode:)` (or `POST /__emulator/device/approve`);
    /// false: the first poll that no fault answers finds it approved by the first user.
    public var deviceRequiresApproval: Bool
    /// false: the revocation endpoint refuses public clients (`invalid_client`), as some providers do.
    public var publicClientsMayRevoke: Bool
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
        pushedAuthorization: PushedAuthorizationMode = .off,
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
        self.pushedAuthorization = pushedAuthorization
        self.exactRedirectPorts = exactRedirectPorts
        self.onRequest = onRequest
    }
}

/// The endpoint a request was routed to.
public enum EndpointKind: String, Sendable, Codable, CodingKeyRepresentable, CaseIterable {
    case discovery, authorize, token, userinfo, revoke, introspect, jwks, endSession
    case deviceAuthorization, par
    /// The page where a person enters (or confirms) a device flow's user code and signs in.
    case deviceVerification
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
}

/// A fixed answer for an endpoint, replacing its normal behaviour.
public struct CannedResponse: Sendable, Codable, Hashable {
    public var status: Int
    public var contentType: String?
    public var body: String
    /// The body is repeated this many times (for oversized responses).
    public var bodyRepeat: Int?
    public var headers: [String: String]?
    /// Answer only this many times, then behave normally again (nil = until cleared).
    public var times: Int?

    public init(
        status: Int, contentType: String? = "text/html", body: String = "", bodyRepeat: Int? = nil,
        headers: [String: String]? = nil, times: Int? = nil
    ) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.bodyRepeat = bodyRepeat
        self.headers = headers
        self.times = times
    }
}

/// An OAuth error the token endpoint should answer with.
public struct OAuthErrorResponse: Sendable, Codable, Hashable {
    public var status: Int
    public var error: String
    public var errorDescription: String?
    public var errorURI: String?

    enum CodingKeys: String, CodingKey {
        case status, error
        case errorDescription = "error_description"
        case errorURI = "error_uri"
    }

    public init(status: Int = 400, error: String, errorDescription: String? = nil, errorURI: String? = nil) {
        self.status = status
        self.error = error
        self.errorDescription = errorDescription
        self.errorURI = errorURI
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = try c.decodeIfPresent(Int.self, forKey: .status) ?? 400
        error = try c.decode(String.self, forKey: .error)
        errorDescription = try c.decodeIfPresent(String.self, forKey: .errorDescription)
        errorURI = try c.decodeIfPresent(String.self, forKey: .errorURI)
    }
}

/// Fault switches, settable at runtime (`emulator.faults = …` or `PUT /__emulator/faults`).
/// Every field is optional in JSON; missing fields take their defaults.
public struct Faults: Sendable, Codable, Hashable {
    /// Merged into the discovery document; `null` removes a key.
    public var discoveryOverrides: [String: JSONValue] = [:]
    /// Applied to the successful authorization redirect's query; nil removes a parameter.
    public var authorizationResponseOverrides: [String: String?] = [:]
    /// Applied to ID token claims before signing; `null` removes a claim.
    public var idTokenClaimOverrides: [String: JSONValue] = [:]
    /// Merged into successful token responses; `null` removes a member.
    public var tokenResponseOverrides: [String: JSONValue] = [:]
    /// Answer an endpoint with a canned response instead.
    public var responseOverrides: [EndpointKind: CannedResponse] = [:]
    /// Seconds to sleep before answering an endpoint.
    public var delays: [EndpointKind: Double] = [:]
    /// Answer a token request with this grant_type with this error.
    public var tokenErrors: [String: OAuthErrorResponse] = [:]
    /// The next N refresh_token grants fail with invalid_grant (token not consumed).
    public var failNextRefreshes: Int = 0
    /// Errors answered, in order, to the next device-code polls (`authorization_pending`, `slow_down`,
    /// `access_denied`, `expired_token`), before the device code's own state decides.
    public var deviceErrors: [String] = []

    public init(
        discoveryOverrides: [String: JSONValue] = [:],
        authorizationResponseOverrides: [String: String?] = [:],
        idTokenClaimOverrides: [String: JSONValue] = [:],
        tokenResponseOverrides: [String: JSONValue] = [:],
        responseOverrides: [EndpointKind: CannedResponse] = [:],
        delays: [EndpointKind: Double] = [:],
        tokenErrors: [String: OAuthErrorResponse] = [:],
        failNextRefreshes: Int = 0,
        deviceErrors: [String] = []
    ) {
        self.discoveryOverrides = discoveryOverrides
        self.authorizationResponseOverrides = authorizationResponseOverrides
        self.idTokenClaimOverrides = idTokenClaimOverrides
        self.tokenResponseOverrides = tokenResponseOverrides
        self.responseOverrides = responseOverrides
        self.delays = delays
        self.tokenErrors = tokenErrors
        self.failNextRefreshes = failNextRefreshes
        self.deviceErrors = deviceErrors
    }

    enum CodingKeys: String, CodingKey {
        case discoveryOverrides, authorizationResponseOverrides, idTokenClaimOverrides, tokenResponseOverrides
        case responseOverrides, delays, tokenErrors, failNextRefreshes, deviceErrors
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        discoveryOverrides = try c.decodeIfPresent([String: JSONValue].self, forKey: .discoveryOverrides) ?? [:]
        authorizationResponseOverrides =
            try c.decodeIfPresent([String: String?].self, forKey: .authorizationResponseOverrides) ?? [:]
        idTokenClaimOverrides = try c.decodeIfPresent([String: JSONValue].self, forKey: .idTokenClaimOverrides) ?? [:]
        tokenResponseOverrides = try c.decodeIfPresent([String: JSONValue].self, forKey: .tokenResponseOverrides) ?? [:]
        responseOverrides = try c.decodeIfPresent([EndpointKind: CannedResponse].self, forKey: .responseOverrides) ?? [:]
        delays = try c.decodeIfPresent([EndpointKind: Double].self, forKey: .delays) ?? [:]
        tokenErrors = try c.decodeIfPresent([String: OAuthErrorResponse].self, forKey: .tokenErrors) ?? [:]
        failNextRefreshes = try c.decodeIfPresent(Int.self, forKey: .failNextRefreshes) ?? 0
        deviceErrors = try c.decodeIfPresent([String].self, forKey: .deviceErrors) ?? []
    }
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
}
