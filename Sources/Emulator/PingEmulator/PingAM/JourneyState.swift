import EmulatorHTTP
import Foundation

/// A journey in progress: the nodes still to walk (the first is the one shown now) and who signed in.
struct JourneyRun: Sendable {
    let id: String
    let tree: String
    var pending: [JourneyNode]
    var user: User?
    /// The one `authId` that continues this run (each step issues a new one).
    var authID = ""
    /// The authentication session's end (its `authId`s' `exp`).
    var expiresAt: Double
    /// Polls of the current push wait, and the decision `decidePush` took (nil: none yet).
    var polls = 0
    var pushDecision: Bool?
    /// The current validated input's failed policies (as PingAM sends them: JSON text).
    var failedPolicies: [String] = []
    /// Set once an Email Suspend Node was reached: the message shown again if the step is posted back.
    var suspendedMessage: String?
    /// The challenge of the device node shown now, and the secret of the OATH registration shown now.
    var challenge = ""
    var oathSecret = ""
    /// A Social Provider Handler's redirect shown now (`Emulator+Social.swift`).
    var social: SocialRedirectState?
    /// The challenge of the WebAuthn node shown now; the user's credentials it may allow; the recovery
    /// codes a registration generated and its credential's name, for the display node.
    var webAuthnChallenge: [UInt8] = []
    var credentials: [WebAuthnCredential] = []
    var recoveryCodes: [String] = []
    var deviceName = ""
}

/// A key bound by a Device Binding node: whose it is and its public key (the JWS header's `jwk`).
struct BoundDevice: Sendable {
    let keyID: String
    let userSub: String
    let algorithm: String
    let jwk: [String: EmulatorJSON]
    let deviceName: String
    let deviceID: String
    /// When it was bound (the emulator's clock, seconds).
    var created: Double = 0
}

/// A bound device as tests see it (`boundDevices`).
public struct BoundDeviceRecord: Sendable, Codable, Hashable {
    public var keyID: String
    public var username: String
    public var algorithm: String
    public var deviceName: String
    public var deviceID: String
}

/// A journey suspended by an Email Suspend Node, until resumed with `?suspendedId=` or expired.
struct SuspendedJourney: Sendable {
    var run: JourneyRun
    let expiresAt: Double
}

/// An SSO session (`tokenId`) a journey ended with.
struct AMSession: Sendable {
    let user: User
    let authTime: Double
    let expiresAt: Double
    var ended = false
}

/// What the e-mail of a suspended journey would carry, for tests and the demo (`suspendedJourneys`).
public struct SuspendedJourneyRecord: Sendable, Codable, Hashable {
    public var suspendedId: String
    public var tree: String
    public var username: String?
    /// The link the e-mail holds: PingAM's login page with `suspendedId` (and the realm).
    public var resumeURL: String
    public var expiresAt: Double
}

/// An SSO session as tests see it (`journeySessions`).
public struct JourneySessionRecord: Sendable, Codable, Hashable {
    public var tokenId: String
    public var username: String
    public var expiresAt: Double
    public var ended: Bool
}
