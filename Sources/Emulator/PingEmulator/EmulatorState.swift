import EmulatorHTTP
import Foundation

public enum EmulatorError: Error, CustomStringConvertible {
    case sodiumUnavailable
    case noUsers

    public var description: String {
        switch self {
        case .sodiumUnavailable: return "libsodium could not be initialized"
        case .noUsers: return "the configuration needs at least one user"
        }
    }
}

// MARK: - Internal state

/// One authorization grant (a sign-in of a user for a client); shared by all tokens derived from it.
struct Grant: Sendable {
    let id: String
    let clientID: String
    let user: User
    let scopes: [String]
    let authTime: Int
    let sid: String
    /// The `acr` the ID tokens of this grant assert (nil: none).
    var acr: String? = nil
}

struct TokenRecord: Sendable {
    let token: String
    let isRefresh: Bool
    let grant: Grant
    let scopes: [String]
    let issuedAt: Double
    var expiresAt: Double
    var revoked = false
    /// Refresh tokens are single-use (rotation).
    var used = false
    /// When a refresh token was exchanged (the reuse grace period counts from here).
    var usedAt: Double?
    /// RFC 8705 §3: `x5t#S256` of the certificate an access token is bound to.
    var certificateThumbprint: String? = nil
    /// RFC 9449: the thumbprint of the DPoP key the token is bound to.
    var jkt: String? = nil
    /// The `aud` of an access token issued for a resource (RFC 8707) or audience (RFC 8693); nil: from its scopes.
    var audience: EmulatorJSON? = nil
}

struct CodeRecord: Sendable {
    let grant: Grant
    let redirectURI: String
    let nonce: String?
    let challenge: String
    let extras: [String: String]
    let expiresAt: Double
    var used = false
    var issuedTokens: [String] = []
}

/// A validated authorization request (waiting for sign-in in `.form` mode).
struct AuthorizeRequest: Sendable {
    let client: RegisteredClient
    let redirectURI: String
    let state: String?
    let scopes: [String]
    let nonce: String?
    let challenge: String
    let extras: [String: String]
}

/// A device authorization request (RFC 8628) waiting for the user's approval.
struct DeviceRecord: Sendable {
    enum Status: Sendable { case pending, approved, denied }
    let clientID: String
    let scopes: [String]
    let userCode: String
    let expiresAt: Double
    var status: Status
    var used = false
}

struct IssuedIDToken: Sendable {
    let clientID: String
    let sid: String
}

/// A PingFederate sign-off waiting for the person to confirm it (`id="emulator-logout-confirm"`).
struct PendingLogout: Sendable {
    /// The session the id_token_hint named, if one was valid.
    let sid: String?
    /// The post_logout_redirect_uri when it matched a registered one (a mismatch is ignored).
    let redirectURI: String?
    let state: String?
}

struct EmulatorState: Sendable {
    var faults = Faults()
    var accessTokenLifetime: Int
    /// Seconds added to the base clock by `advanceClock(by:)`.
    var clockOffset = 0.0
    /// The `jti` of every client assertion accepted (RFC 7523 §3: no replay).
    var assertionIDs: Set<String> = []
    var requests: [RecordedRequest] = []
    /// Requests per endpoint counted on arrival (before any delay), cleared with `requests`.
    var arrivals: [EndpointKind: Int] = [:]
    var nextSequence = 0
    var codes: [String: CodeRecord] = [:]
    var flows: [String: AuthorizeRequest] = [:]
    var tokens: [String: TokenRecord] = [:]
    var accessOrder: [String] = []
    var refreshOrder: [String] = []
    var idTokens: [String: IssuedIDToken] = [:]
    var endedSessions: [String] = []
    var pendingLogouts: [String: PendingLogout] = [:]
    /// Pushed authorization requests (RFC 9126) by request_uri, until used or expired.
    var pushed: [String: (request: AuthorizeRequest, expiresAt: Double)] = [:]
    /// Device codes → their requests.
    var devices: [String: DeviceRecord] = [:]
    /// The DPoP nonce proofs must carry when nonces are on.
    var dpopNonce = Crypto.randomToken(16)
    /// DPoP proof `jti`s seen, until when they are remembered (replay prevention).
    var dpopProofIDs: [String: Double] = [:]
    /// PingAM journeys in progress by run id, suspended ones by `suspendedId`, SSO sessions by `tokenId`.
    var journeys: [String: JourneyRun] = [:]
    var suspendedJourneys: [String: SuspendedJourney] = [:]
    var amSessions: [String: AMSession] = [:]
    /// Keys bound by Device Binding nodes by `kid`; OATH secrets registered by users (base32), by user name.
    var boundDevices: [String: BoundDevice] = [:]
    var oathSecrets: [String: String] = [:]
    /// WebAuthn credentials by base64url credential id, every `webAuthnOutcome` received, and each
    /// user's unused recovery codes.
    var webAuthnCredentials: [String: WebAuthnCredential] = [:]
    var webAuthnAnswers: [String] = []
    var recoveryCodes: [String: [String]] = [:]
}
