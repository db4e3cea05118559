import PingBase

/// What the authorization request asked of the authentication itself: `max_age` and `acr_values`
/// ([OIDC Core §3.1.2.1](https://openid.net/specs/openid-connect-core-1_0.html#AuthRequest)). Every ID
/// token the session brings is held to them (§3.1.3.7 items 12 and 13; §2 makes `auth_time` required
/// when `max_age` was sent), refreshed ones included (§12.2).
public struct AuthenticationRequirements: Sendable, Equatable {
    /// Seconds since the person last actively authenticated that the client accepts (`login --max-age`).
    public var maxAge: Int?
    /// The authentication context classes asked for, in order of preference (`login --acr-values`).
    public var acrValues: [String]?

    public init(maxAge: Int? = nil, acrValues: [String]? = nil) {
        self.maxAge = maxAge
        self.acrValues = acrValues
    }

    /// The largest `--max-age` pingcli sends: ten years, as for `expires_in`.
    public static let maximumMaxAge = 315_360_000
}

/// One failure per step-up rule; each message names what was asked and what came back.
public enum StepUpError: Error, Sendable, Equatable {
    case authTimeMissing(maxAge: Int)
    case authTimeInFuture
    case authenticationTooOld(age: Int, maxAge: Int)
    /// A refreshed ID token names an authentication older than the one checked at sign-in (§12.2).
    case authTimeMovedBack
    case acrMissing(requested: [String])
    case acrNotRequested(received: String, requested: [String])

    public var message: String {
        switch self {
        case .authTimeMissing(let maxAge):
            "the ID token has no auth_time although max_age=\(maxAge) was requested (OIDC Core §2): pingcli cannot tell when you last signed in"
        case .authTimeInFuture: "the ID token's auth_time is in the future (check this machine's clock)"
        case .authenticationTooOld(let age, let maxAge):
            "the ID token says you last signed in \(age) s ago (auth_time), longer than the requested max_age of \(maxAge) s: the provider did not make you sign in again"
        case .authTimeMovedBack:
            "the refreshed ID token's auth_time is earlier than the sign-in's (OIDC Core §12.2): it names another, older authentication"
        case .acrMissing(let requested):
            "the ID token has no acr claim although acr_values \(Self.list(requested)) were requested: the provider did not say it met them"
        case .acrNotRequested(let received, let requested):
            "the provider authenticated you with acr \"\(displaySafe(received, limit: 120))\", not one of the requested acr_values \(Self.list(requested))"
        }
    }

    private static func list(_ values: [String]) -> String {
        "(" + values.map { displaySafe($0, limit: 120) }.joined(separator: " ") + ")"
    }
}

extension IDTokenClaims {
    /// `auth_time` (OIDC Core §2): when the person last actively authenticated, in seconds since 1970.
    public var authTime: Double? {
        guard let value = all["auth_time"]?.numberValue, value.isFinite else { return nil }
        return value
    }

    /// `acr` (OIDC Core §2): the authentication context class the provider says it met.
    public var acr: String? { all["acr"]?.stringValue }

    /// Checks the ID token against what the authorization request asked of the authentication, with the
    /// same clock leeway as `exp`. At sign-in `auth_time` must lie within `max_age` of now; a refreshed ID
    /// token (`refreshing`) keeps the sign-in's authentication (§12.2): it must carry `auth_time`, not
    /// earlier than the one checked at sign-in (`originalAuthTime`), and, when it names an `acr`, one that
    /// was requested.
    public func checkAuthentication(
        _ requirements: AuthenticationRequirements, now: Double, leeway: Double = 60, refreshing: Bool = false,
        originalAuthTime: Double? = nil
    ) throws(StepUpError) {
        if let maxAge = requirements.maxAge {
            guard let authTime else { throw .authTimeMissing(maxAge: maxAge) }
            guard authTime - leeway <= now else { throw .authTimeInFuture }
            if refreshing {
                if let originalAuthTime, authTime < originalAuthTime { throw .authTimeMovedBack }
            } else if authTime + Double(maxAge) + leeway < now {
                throw .authenticationTooOld(age: Int(now - authTime), maxAge: maxAge)
            }
        }
        if let requested = requirements.acrValues, !requested.isEmpty {
            guard let acr else {
                if refreshing { return }  // §12.2 asks no acr of a refreshed token: the sign-in's holds
                throw .acrMissing(requested: requested)
            }
            guard requested.contains(acr) else { throw .acrNotRequested(received: acr, requested: requested) }
        }
    }
}
