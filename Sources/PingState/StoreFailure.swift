import PingBase
import PingPlatform

/// What went wrong with a profile's saved state, with the facts: which profile, which file, what
/// failed. The store words none of it: the line the user reads, with its next step ("run pingcli login
/// --profile work"), is made once at the top (`StoreFailure.cliError`, `PingFlowCore/StoreAdvice.swift`).
public enum StoreFailure: Error, Sendable, Equatable {
    /// A file of the state that could not be used (`FileSystem`, `FileLock`), with its facts.
    case file(FileFailure)
    /// `PINGCLI_KEY_COMMAND` gave no key.
    case keyCommand(KeyCommandFailure)
    /// The profile `profile` could not be encoded to be saved.
    case profileEncode(profile: ProfileName)
    /// The profile's files were removed, but not its `directory` (`rmdir` failed with `errno`).
    case profileDirectoryKept(profile: ProfileName, directory: String, errno: Int32)
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
    /// The key file at `path` holds `length` bytes, not a key.
    case keyFileDamaged(path: String, length: Int)
    /// There is no key file at `path`, and none was to be made.
    case keyFileMissing(path: String)
    /// `PINGCLI_KEY_STORE=file`, but the key is in the Secret Service.
    case keyInSecretService
    /// `PINGCLI_KEY_STORE=keyring`, but the key is the file at `keyFile`.
    case keyInFile(keyFile: String)
    /// The Secret Service holds no cache key yet, and none was to be made.
    case noKeyInSecretService
    /// `key migrate --to keyring` with no key file at `keyFile` (and no key in the Secret Service).
    case migrateNoKeyFile(keyFile: String)
    /// `key migrate --to file` with no key in the Secret Service (and no key file).
    case migrateNoKeyringKey
    /// Both the Secret Service (`itemID`) and `keyFile` hold a key, and they differ.
    case migrateConflict(itemID: String, keyFile: String)
    /// Another pingcli stored a different key in the Secret Service during the move.
    case migrateRaced
    /// `keyring-item` at `path` does not hold the 32 hex digits of an item id.
    case keyringItemDamaged(path: String)
    /// `keyring-item` at `path` vanished while another process wrote it.
    case keyringItemVanished(path: String)
    /// The Secret Service has no item with the recorded `id` (a home copied from elsewhere, or deleted).
    case keyringItemMissing(id: String)
    /// The Secret Service's item `id` does not hold a key.
    case keyringKeyDamaged(id: String)
    /// The keyring store needs the Secret Service, and this process has no session bus.
    case noSessionBus
    /// The key is the file `keyFile` now, but its Secret Service item `itemID` could not be deleted (`failure`).
    case migrateItemKept(keyFile: String, itemID: String, failure: SecretService.Failure)
    /// The Secret Service did not answer when asked to `doing` (`read the cache key from`): nothing was removed.
    case secretService(SecretService.Failure, doing: String)

    /// The rule the state broke (docs/security.md, "Failure rules").
    public var rule: Rule {
        switch self {
        case .file(let failure): failure.rule
        case .keyCommand(let failure): failure.rule
        case .profileEncode: .profileEncode
        case .profileDirectoryKept: .fileRemove
        case .profileRefused: .profileEndpointPolicy
        case .profileDamaged: .profileJSONRefused
        case .cache(let error, _, _, _): error.rule
        case .generationDamaged: .generationDamaged
        case .currentProfileDamaged: .currentProfileDamaged
        case .keyFileDamaged: .keyFileDamaged
        case .keyFileMissing, .noKeyInSecretService: .cacheKeyMissing
        case .keyInSecretService, .keyInFile: .keyStoreSetting
        case .migrateNoKeyFile, .migrateNoKeyringKey: .keyMigrateNoKey
        case .migrateConflict, .migrateRaced: .keyMigrateConflict
        case .migrateItemKept: .keyMigrateKeyringDelete
        case .keyringItemDamaged, .keyringItemVanished: .keyringItemDamaged
        case .keyringItemMissing: .keyringCopiedHome
        case .keyringKeyDamaged: .keyringKeyDamaged
        case .noSessionBus: .sessionBus
        case .secretService(let failure, _):
            switch failure {
            case .unavailable: .keyringUnavailable
            case .locked: .keyringLocked
            case .notInstalled: .libsecretMissing
            case .failed: .keyringFailed
            }
        }
    }

    /// A refused profile or cache needs a new login (exit 4); a damaged record beside them is a failure
    /// (exit 1), and so is a file that could not be used or a key command that gave no key.
    public var status: ExitStatus {
        switch self {
        case .profileRefused, .profileDamaged, .cache, .keyFileDamaged, .keyFileMissing, .noKeyInSecretService, .keyringItemMissing,
            .keyringKeyDamaged:
            .loginRequired
        case .generationDamaged, .currentProfileDamaged, .keyInSecretService, .keyInFile, .migrateNoKeyFile, .migrateNoKeyringKey,
            .migrateConflict, .migrateRaced, .migrateItemKept, .keyringItemDamaged, .keyringItemVanished, .noSessionBus, .secretService,
            .file, .keyCommand, .profileEncode, .profileDirectoryKept:
            .failure
        }
    }
}

/// Runs file steps inside the store: their `FileFailure` passes through as `.file`.
@inline(__always)
package func passing<T>(_ body: () throws(FileFailure) -> T) throws(StoreFailure) -> T {
    do { return try body() } catch { throw .file(error) }
}
