import PingBase
import PingPlatform

/// What went wrong with a profile's saved state, with the facts: which profile, which file, what
/// failed. The store words none of it: the line the user reads, with its next step ("run pingcli login
/// --profile work"), is made once at the top (`StoreFailure.cliError`, `PingFlows/StoreAdvice.swift`).
public enum StoreFailure: Error, Sendable, Equatable {
    /// A lower layer's failure (a file that could not be read, the cache key), already a `PingCLIError`.
    case system(PingCLIError)
    /// `profile.json` at `path` names a URL its gate or the endpoint policy refuses: its `field`, the
    /// `url` and why (`reason`).
    case profileRefused(path: String, profile: ProfileName, field: String, url: String, reason: String)
    /// `profile.json` at `path` is not a profile (bad JSON, a known member of the wrong type).
    case profileDamaged(path: String, profile: ProfileName)
    /// The token cache at `path` was refused; `profileFile`: the settings it was checked against.
    case cache(EncryptedTokenFile.DecodeError, path: String, profile: ProfileName, profileFile: String)
    /// The record of the newest cache generation at `path` does not hold one number.
    case generationDamaged(path: String, profile: ProfileName)
    /// The file naming the current profile (`profiles use`) at `path` does not hold a profile name.
    case currentProfileDamaged(path: String)

    /// The rule the state broke (docs/security.md, "Failure rules").
    public var rule: Rule {
        switch self {
        case .system(let error): error.rule
        case .profileRefused: .profileEndpointPolicy
        case .profileDamaged: .profileJSONRefused
        case .cache(let error, _, _, _): error.rule
        case .generationDamaged: .generationDamaged
        case .currentProfileDamaged: .currentProfileDamaged
        }
    }

    /// A refused profile or cache needs a new login (exit 4); a damaged record beside them is a failure
    /// (exit 1); a lower layer's failure keeps its own.
    public var status: ExitStatus {
        switch self {
        case .system(let error): error.status
        case .profileRefused, .profileDamaged, .cache: .loginRequired
        case .generationDamaged, .currentProfileDamaged: .failure
        }
    }
}

/// Runs a lower layer's step inside the store: its `PingCLIError` passes through as `.system`.
@inline(__always)
package func passing<T>(_ body: () throws(PingCLIError) -> T) throws(StoreFailure) -> T {
    do { return try body() } catch { throw .system(error) }
}
