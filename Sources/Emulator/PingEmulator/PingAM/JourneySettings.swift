import EmulatorHTTP
import Foundation

/// What the PingAM layout's journeys do: the session cookie's name, the trees, and how long an
/// authentication session, a suspended journey and an SSO session last.
public struct JourneySettings: Sendable {
    /// The session cookie's name that `/json/serverinfo/*` announces: self-hosted PingAM's default, or a
    /// random per-tenant name as on Advanced Identity Cloud (`randomCookieName()`).
    public var cookieName = "iPlanetDirectoryPro"
    /// The trees by name (the built-in ones unless replaced).
    public var trees: [JourneyTree] = JourneyTree.builtIn
    /// Seconds an `authId` is good for (PingAM's authentication session "Max Duration", 5 minutes).
    public var authIDLifetime = 300
    /// Seconds a `suspendedId` can resume its journey (Email Suspend Node's default, 5 minutes).
    public var suspendedLifetime = 300
    /// Seconds an SSO session (`tokenId`) lives (PingAM's maximum session time, 120 minutes).
    public var sessionLifetime = 7200
    /// true: the issuer is the realm's short alias (`/am/oauth2/alpha`), as Advanced Identity Cloud
    /// announces it; false: `/am/oauth2/realms/root/realms/alpha`. Both forms route either way.
    public var shortIssuer = false
    /// Polls before a push approves itself when its node does not say (nil: waits for `decidePush`).
    public var pushApproveAfterPolls: Int?
    /// The Social Identity Provider Service's configurations (`Emulator+Social.swift`), the accounts
    /// linked to them by alias (`<provider>-<subject>` → a user name), and whether a Handler's return must
    /// carry the tracking cookie its redirect step set.
    public var socialProviders: [SocialProviderSettings] = []
    public var socialLinks: [String: String] = [:]
    public var requireSocialTrackingCookie = true

    public init() {}

    /// A random name of the kind Advanced Identity Cloud gives each tenant's cookie (15 hex digits).
    public static func randomCookieName() -> String {
        String(Crypto.randomBytes(8).map { String(format: "%02x", $0) }.joined().prefix(15))
    }

    func tree(named name: String) -> JourneyTree? { trees.first { $0.name == name } }
}

extension EmulatorConfiguration {
    /// Adds a tree file's trees (replacing built-in ones of the same name) and its users' TOTP secrets.
    public mutating func addJourneys(_ file: JourneyTreeFile) {
        for tree in file.trees {
            journeys.trees.removeAll { $0.name == tree.name }
            journeys.trees.append(tree)
        }
        for (username, secret) in file.totpSecrets ?? [:] {
            for i in users.indices where users[i].username == username { users[i].totpSecret = secret }
        }
    }
}
