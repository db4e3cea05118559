import PingBase
import PingOAuth
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// The last failed refresh of a profile, kept beside the cache (`refresh.state`, 0600, written
/// atomically under the profile's lock) so that the processes that were waiting for the lock, and
/// those that come soon after, do not send the same failing request again: they serve the cached
/// access token while it is valid, or fail at once with the same message.
///
/// It holds no secret: when, what the user was told, and the exit status.
public struct RefreshFailure: Codable, Sendable, Equatable {
    /// Seconds since 1970 when the refresh failed.
    public var failedAt: Double
    /// No refresh is sent before this time.
    public var retryAfter: Double
    /// Failures in a row; the backoff doubles with each.
    public var attempts: Int
    /// The exit status the failure maps to (`ExitStatus`).
    public var status: Int32
    /// The one-line message (without `pingcli: `), already safe to print.
    public var message: String
    /// `obtained_at` of the token set whose refresh failed: a login or a refresh since makes it moot.
    public var obtainedAt: Double
    /// The server's bad moment (an unexpired cached token may be served), not the client's settings.
    public var transient: Bool

    package enum CodingKeys: String, CodingKey {
        case failedAt = "failed_at"
        case retryAfter = "retry_after"
        case attempts, status, message, transient
        case obtainedAt = "obtained_at"
    }

    /// The first backoff, in seconds; it doubles with each failure in a row, up to `longestBackoff`.
    public static let firstBackoff = 10.0
    public static let longestBackoff = 300.0

    /// The backoff after `attempts` failures in a row, or the server's `Retry-After` when longer
    /// (still at most `longestBackoff`).
    public static func backoff(attempts: Int, retryAfterHeader: Double? = nil) -> Double {
        let doubled = firstBackoff * Double(1 << min(max(attempts - 1, 0), 10))
        return min(max(doubled, retryAfterHeader ?? 0), longestBackoff)
    }

    package init(failedAt: Double, retryAfter: Double, attempts: Int, status: Int32, message: String, obtainedAt: Double, transient: Bool) {
        self.failedAt = failedAt
        self.retryAfter = retryAfter
        self.attempts = attempts
        self.status = status
        self.message = message
        self.obtainedAt = obtainedAt
        self.transient = transient
    }
}

extension TokenStore {
    /// The recorded failure that still holds back refreshes of this token set, if any.
    public func activeRefreshFailure(_ name: ProfileName, for tokens: TokenSet, now: Double) throws(FileFailure) -> RefreshFailure? {
        guard let failure = try loadRefreshFailure(name), failure.obtainedAt == tokens.obtainedAt else { return nil }
        // A clock set back, or a file from elsewhere, must not hold refreshes back for longer than the longest backoff.
        guard now < failure.retryAfter, failure.retryAfter - now <= RefreshFailure.longestBackoff else { return nil }
        return failure
    }

    /// The recorded failure, whatever its age; nil when there is none or it cannot be decoded.
    public func loadRefreshFailure(_ name: ProfileName) throws(FileFailure) -> RefreshFailure? {
        guard let bytes = try FileSystem.read(paths.refreshStateFile(name), limit: 16 * 1024, protection: .secret) else { return nil }
        guard let members = JSONValue.parseObject(bytes) else { return nil }
        return try? RefreshFailure(saved: SavedObject(members: members))
    }

    /// Records a failure; the caller holds the profile's lock.
    public func saveRefreshFailure(_ failure: RefreshFailure, _ name: ProfileName) throws(FileFailure) {
        guard let json = try? JSONValueEncoder.encode(failure) else { return }
        try FileSystem.atomicWrite(paths.refreshStateFile(name), Array(json.rendered(pretty: false).utf8) + [10])
    }

    /// Forgets the failure (after a successful refresh or a login); the caller holds the profile's lock.
    public func clearRefreshFailure(_ name: ProfileName) throws(FileFailure) {
        try FileSystem.remove(paths.refreshStateFile(name))
    }
}

extension RefreshFailure {
    /// The record from `refresh.state`'s members; any missing or mistyped member makes it unreadable.
    package init(saved object: SavedObject) throws(SavedProfileError) {
        let status = try object.integer(CodingKeys.status.rawValue)
        guard let status32 = Int32(exactly: status) else { throw .damaged }
        self.init(
            failedAt: try object.number(CodingKeys.failedAt.rawValue), retryAfter: try object.number(CodingKeys.retryAfter.rawValue),
            attempts: try object.integer(CodingKeys.attempts.rawValue), status: status32,
            message: try object.string(CodingKeys.message.rawValue), obtainedAt: try object.number(CodingKeys.obtainedAt.rawValue),
            transient: try object.bool(CodingKeys.transient.rawValue))
    }
}
