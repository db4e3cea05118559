import PingBase
import PingOAuth
import PingPlatform
import PingState

/// Where a failure of the saved state gets its words: the store throws `StoreFailure` with the facts
/// (which profile, which file, what failed), and this is the one place that turns it into the line the
/// user reads, with its rule, its exit status and the next step ("run pingcli login --profile work").
extension StoreFailure {
    package var cliError: PingCLIError {
        switch self {
        case .system(let error):
            return error
        case .profileRefused(let path, let name, let field, let url, let reason):
            return PingCLIError(
                status,
                "profile file \(path) was changed outside pingcli (its \(field) \(displaySafe(url, limit: 120)) \(reason)), so no token is sent: run pingcli login --profile \(name)",
                rule: rule)
        case .profileDamaged(let path, let name):
            return PingCLIError(status, "profile file \(path) is damaged: run pingcli login --profile \(name) to rewrite it", rule: rule)
        case .cache(let error, let path, let name, let profileFile):
            return PingCLIError(status, error.message(path: path, profile: name, profileFile: profileFile), rule: rule)
        case .generationDamaged(let path, let name):
            return PingCLIError(
                status, "\(path) is damaged (it must hold one number): remove it and run pingcli login --profile \(name)", rule: rule)
        case .currentProfileDamaged(let path):
            return PingCLIError(status, "\(path) does not hold a profile name: run pingcli profiles use NAME", rule: rule)
        }
    }
}

extension TokenStore {
    /// `readProfile`, its failure worded (`StoreFailure.cliError`).
    public func loadProfile(_ name: ProfileName) throws(PingCLIError) -> Profile? {
        do { return try readProfile(name) } catch { throw error.cliError }
    }

    /// `readTokens`, its failure worded.
    public func loadTokens(_ name: ProfileName, profile: Profile, key: CommandKey) throws(PingCLIError) -> TokenSet? {
        do { return try readTokens(name, profile: profile, key: key) } catch { throw error.cliError }
    }

    /// `writeTokens`, its failure worded.
    public func saveTokens(_ tokens: TokenSet?, _ name: ProfileName, profile: Profile, key: CommandKey) throws(PingCLIError) {
        do { try writeTokens(tokens, name, profile: profile, key: key) } catch { throw error.cliError }
    }

    /// `writeSignOut`, its failure worded.
    public func signOut(_ name: ProfileName, vouchedFor profile: Profile?, key: CommandKey) throws(PingCLIError) {
        do { try writeSignOut(name, vouchedFor: profile, key: key) } catch { throw error.cliError }
    }

    /// `takeLock`, its failure worded.
    public func lock(_ name: ProfileName) throws(PingCLIError) -> FileLock {
        do { return try takeLock(name) } catch { throw error.cliError }
    }

    /// `deleteProfile`, its failure worded.
    public func removeProfile(_ name: ProfileName) throws(PingCLIError) {
        do { try deleteProfile(name) } catch { throw error.cliError }
    }

    /// `readCurrentProfile`, its failure worded.
    public func currentProfile() throws(PingCLIError) -> ProfileName? {
        do { return try readCurrentProfile() } catch { throw error.cliError }
    }

    /// `readRecord`, its failure worded.
    public func loadRecord(_ name: ProfileName, profile: Profile, key: CommandKey) throws(PingCLIError) -> EncryptedTokenFile.Record? {
        do { return try readRecord(name, profile: profile, key: key) } catch { throw error.cliError }
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
