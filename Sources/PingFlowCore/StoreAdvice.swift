import PingBase
import PingCrypto
import PingOAuth
import PingPlatform
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// Where a failure of the saved state gets its words: the store throws `StoreFailure` with the facts
/// (which profile, which file, what failed), and this is the one place that turns it into the line the
/// user reads, with its rule, its exit status and the next step ("run pingcli login --profile work").
extension StoreFailure {
    package var cliError: PingCLIError {
        if case .file(let failure) = self { return failure.cliError }
        return PingCLIError(status, message, rule: rule)
    }

    /// One line: what failed, where, and what to do next.
    private var message: String {
        switch self {
        case .file(let failure): failure.message
        case .keyCommand(let failure): failure.message
        case .profileEncode(let name): "cannot encode profile \(name)"
        case .profileDirectoryKept(let name, let directory, let code):
            "removed profile \"\(name)\"'s tokens and settings, but not \(directory): \(String(cString: strerror(code))): remove what is left by hand"
        case .profileRefused(let path, let name, let field, let url, let reason):
            "profile file \(path) was changed outside pingcli (its \(field) \(displaySafe(url, limit: 120)) \(reason)), so no token is sent: run pingcli login --profile \(name)"
        case .profileDamaged(let path, let name): "profile file \(path) is damaged: run pingcli login --profile \(name) to rewrite it"
        case .cache(let error, let path, let name, let profileFile): error.message(path: path, profile: name, profileFile: profileFile)
        case .generationDamaged(let path, let name):
            "\(path) is damaged (it must hold one number): remove it and run pingcli login --profile \(name)"
        case .currentProfileDamaged(let path): "\(path) does not hold a profile name: run pingcli profiles use NAME"
        case .keyFileDamaged(let path, let length):
            "key file \(path) is damaged (\(length) bytes, expected \(Sodium.aeadKeyLength)): remove it and run pingcli login again"
        case .keyFileMissing(let path): "key file \(path) is missing, so the cached tokens cannot be read: run pingcli login"
        case .keyInSecretService:
            "PINGCLI_KEY_STORE=file, but the cache key is in the Secret Service: move it with pingcli key migrate --to file, or unset PINGCLI_KEY_STORE"
        case .keyInFile(let keyFile):
            "PINGCLI_KEY_STORE=keyring, but the cache key is the file \(keyFile): move it into the Secret Service with pingcli key migrate --to keyring, or unset PINGCLI_KEY_STORE"
        case .noKeyInSecretService: "no pingcli cache key in the Secret Service yet: run pingcli login"
        case .migrateNoKeyFile(let keyFile):
            "there is no key file at \(keyFile) to move: run pingcli login (it creates the key in the Secret Service)"
        case .migrateNoKeyringKey: "there is no cache key in the Secret Service to move: run pingcli login"
        case .migrateConflict(let id, let keyFile):
            "both the Secret Service (item \(id)) and \(keyFile) hold a cache key, and they differ: remove the one whose caches you no longer need (pingcli key migrate cannot tell)"
        case .migrateRaced:
            "another pingcli stored a different key in the Secret Service meanwhile: run pingcli key migrate --to keyring again"
        case .keyringItemDamaged(let path):
            "\(path) is damaged (it must hold the 32 hex digits of a keyring item id): remove it and run pingcli login"
        case .keyringItemVanished(let path): "\(path) vanished while it was written: run pingcli login again"
        case .keyringItemMissing(let id):
            "the Secret Service holds no pingcli cache key with id \(id) (a home directory copied from another user or machine, or the item was deleted), so the cached tokens cannot be read: run pingcli login"
        case .keyringKeyDamaged(let id):
            "the pingcli cache key in the Secret Service (id \(id)) is damaged: delete it and run pingcli login"
        case .noSessionBus:
            "the keyring store needs the Secret Service, but this process has no session bus (DBUS_SESSION_BUS_ADDRESS is not set; cron jobs and services have none): run it inside your login session, or use a key file (pingcli key migrate --to file, see docs/configuration.md)"
        case .migrateItemKept(let keyFile, let id, let failure):
            "the cache key is now the file \(keyFile), but its Secret Service item could not be deleted (\(Self.secretService(failure, doing: "delete it from"))): delete it with secret-tool clear application pingcli pingcli-key-id \(id)"
        case .secretService(let failure, let action): Self.secretService(failure, doing: action)
        }
    }

    /// One line for each way the Secret Service can fail, with what to do; nothing was removed.
    private static func secretService(_ failure: SecretService.Failure, doing action: String) -> String {
        switch failure {
        case .unavailable(let reason):
            "cannot \(action) the Secret Service: no keyring answers on the session bus (\(reason)): start or unlock your desktop keyring (gnome-keyring-daemon, KWallet, KeePassXC), then try again"
        case .locked:
            "cannot \(action) the Secret Service: the keyring is locked and was not unlocked (the prompt was refused or could not be shown): unlock it (log in to the desktop, or gnome-keyring-daemon --unlock), then try again; nothing was removed"
        case .notInstalled:
            "cannot \(action) the Secret Service: libsecret is not installed: install libsecret-1-0 (apt install libsecret-1-0), or set PINGCLI_KEY_STORE=file"
        case .failed(let message): "cannot \(action) the Secret Service: \(message): check your keyring, then try again"
        }
    }
}

extension KeyCommandFailure {
    /// One line: why the key command gave no key, and what to do.
    package var message: String {
        switch self {
        case .notStarted(let reason): "cannot run PINGCLI_KEY_COMMAND: \(reason)"
        case .outputBounded(let limit):
            "PINGCLI_KEY_COMMAND printed more than \(limit) bytes, so it was stopped: it must print only the 32-byte key"
        case .timedOut(let seconds):
            "PINGCLI_KEY_COMMAND did not finish within \(Self.describe(seconds)) (PINGCLI_KEY_COMMAND_TIMEOUT), so it was stopped: check that it does not wait for input, or raise the timeout"
        case .exitStatus(let code): Self.failed("exit status \(code)")
        case .signal(let number): Self.failed("signal \(number)")
        case .notAKey(let length):
            "PINGCLI_KEY_COMMAND printed \(length) bytes, not a 32-byte key: it must print 32 raw bytes, 64 hex digits or base64 (for example from: openssl rand -base64 32)"
        }
    }

    /// "30 s", "2.5 s".
    private static func describe(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    private static func failed(_ code: String) -> String {
        "PINGCLI_KEY_COMMAND failed (\(code)): run it by hand to see why; it must print the 32-byte key"
    }
}

extension KeySource.SettingRefused {
    /// One line: which setting is wrong and how to set it (a usage error, rule key-store-env).
    package var cliError: PingCLIError { .usage(message, rule: .keyStoreEnv) }

    private var message: String {
        switch self {
        case .commandMissing:
            "PINGCLI_KEY_STORE=command needs PINGCLI_KEY_COMMAND, the command that prints the key: set it, or choose keyring or file"
        case .commandAndStore(let store):
            "PINGCLI_KEY_STORE=\(store) and PINGCLI_KEY_COMMAND are both set: unset one of them (PINGCLI_KEY_STORE=command goes with the command)"
        case .unknownStore(let text): "PINGCLI_KEY_STORE must be keyring, file or command, not \"\(displaySafe(text, limit: 20))\""
        case .timeoutRefused(let text):
            "PINGCLI_KEY_COMMAND_TIMEOUT must be a number of seconds between 0 and 86400, not \"\(displaySafe(text, limit: 20))\""
        }
    }
}

extension CommandKey {
    /// `load`, its failure worded.
    public func get(create: Bool = false) throws(PingCLIError) -> [UInt8] {
        do { return try load(create: create) } catch { throw error.cliError }
    }
}

extension KeyMigration {
    /// `toKeyring` and `toFile`, their failures worded. Returns what was done, for the person.
    package static func move(toKeyring: Bool, _ keyring: KeyringKey, keyFile: String) throws(PingCLIError) -> String {
        do {
            return toKeyring ? try Self.toKeyring(keyring, keyFile: keyFile) : try toFile(keyring, keyFile: keyFile)
        } catch {
            throw error.cliError
        }
    }
}

/// Where a caller that words its failures now (a command, a flow) runs a store call: a `StoreFailure`
/// becomes its line (`StoreFailure.cliError`), as `FileAdvice.worded` does for a file step. The store has
/// one method per operation, throwing the facts; there is no worded twin of each.
package enum StoreAdvice {
    @inlinable
    package static func worded<T>(_ body: @autoclosure () throws(StoreFailure) -> T) throws(PingCLIError) -> T {
        do { return try body() } catch { throw error.cliError }
    }
}

extension EncryptedTokenFile.DecodeError {
    /// One line naming the file and the fix; never any content of the file.
    /// `profileFile`: the profile's settings, named when they no longer match (default: beside `path`).
    package func message(path: String, profile: ProfileName, profileFile: String? = nil) -> String {
        let fix = "run pingcli login --profile \(profile) to replace it"
        return switch self {
        case .truncated: "token cache \(path) is truncated: \(fix)"
        case .notATokenFile: "\(path) is not a pingcli token cache: \(fix)"
        case .unsupportedVersion(let version):
            "token cache \(path) has format version \(version), which this pingcli cannot read: upgrade pingcli, or \(fix)"
        case .olderFormat(let version):
            "token cache \(path) was written by an older pingcli (format \(version)), which this one does not read: run pingcli login --profile \(profile)"
        case .cannotDecrypt:
            "token cache \(path) cannot be decrypted: it was modified, copied from another profile or issuer, or encrypted with another key: \(fix)"
        case .notATokenSet: "token cache \(path) decrypted but holds no token set: \(fix)"
        case .profileChanged:
            "profile file \(profileFile ?? FileSystem.parent(of: path) + "/profile.json") was changed outside pingcli (its issuer, client id, endpoints or CA file differ from those the token cache was saved with), so no token is sent: run pingcli login --profile \(profile)"
        case .rolledBack:
            "token cache \(path) is older than the last one pingcli wrote for this profile (restored from a backup or a sync, or put back after a logout), so it is not used: run pingcli login --profile \(profile)"
        }
    }
}

extension RefreshFailure {
    /// The recorded failure as the error to raise again, with how long the backoff still holds.
    package func error(now: Double) -> PingCLIError {
        let wait = max(0, retryAfter - now)
        return PingCLIError(
            ExitStatus(rawValue: status) ?? .failure,
            "\(message) (pingcli tries again in \(Int(wait.rounded(.up))) s; a new login tries at once)", rule: .refreshBackoff)
    }
}
