import PingBase
import PingOAuth
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// Reads and writes profiles and their encrypted tokens.
public struct TokenStore: Sendable {
    public let paths: Paths
    public let keySource: KeySource
    /// Test seam: runs inside `saveTokens` after the new file is written, before it replaces the old one.
    public var beforeTokenRename: @Sendable () -> Void = {}
    /// How long to wait for the profile's lock: a little longer than a refresh may take (30 s).
    public var lockTimeout: Double = 40
    /// The time that wait is measured on (tests pass their own).
    public var lockClock = WaitClock.system
    /// What the lock file says holds the lock ("pingcli token"), for a waiter's message.
    public var lockHolder = "pingcli"
    /// A profile whose lock the caller already holds: `lock` hands it out again without waiting (the
    /// sign-in a credential helper runs under the lock it took, `HelperSignIn`).
    public var heldLock: ProfileName? = nil

    public init(paths: Paths, keySource: KeySource? = nil) {
        self.paths = paths
        self.keySource = keySource ?? .file(path: paths.keyFile)
    }

    /// The key for one command, loaded on first use.
    public func commandKey() -> CommandKey { CommandKey(source: keySource) }

    /// The profile, or nil when it was never logged in. The file must be a regular file of this user
    /// that group and others cannot write, and every URL in it must pass the endpoint policy again.
    public func loadProfile(_ name: ProfileName) throws(PingCLIError) -> Profile? {
        let path = paths.profileFile(name)
        guard let bytes = try FileSystem.read(path, protection: .owned) else { return nil }
        func changed(_ field: String, _ url: String, _ reason: String) -> PingCLIError {
            .loginRequired(
                "profile file \(path) was changed outside pingcli (its \(field) \(displaySafe(url, limit: 120)) \(reason)), so no token is sent: run pingcli login --profile \(name)",
                rule: .profileEndpointPolicy)
        }
        let profile: Profile
        do {
            profile = try Profile(savedJSON: bytes)
        } catch .refused(let refused) {
            throw changed(refused.field, refused.url, "was refused: \(refused.reason.message)")
        } catch {
            throw .loginRequired(
                "profile file \(path) is damaged: run pingcli login --profile \(name) to rewrite it", rule: .profileJSONRefused)
        }
        guard profile.metadata.issuer == profile.issuer else {
            throw changed("metadata.issuer", profile.metadata.issuer, "differs from its issuer")
        }
        return profile
    }

    public func saveProfile(_ profile: Profile, as name: ProfileName) throws(PingCLIError) {
        try FileSystem.ensurePrivateDirectory(paths.profileDirectory(name))
        guard let json = try? JSONValueEncoder.encode(profile) else { throw .failure("cannot encode profile \(name)") }
        try FileSystem.atomicWrite(paths.profileFile(name), Array(json.rendered(pretty: true, spaceBeforeColon: true).utf8) + [10])
    }

    /// The profile's tokens, or nil when none are cached. The key is loaded only when a cache exists.
    public func loadTokens(_ name: ProfileName, profile: Profile, key: CommandKey) throws(PingCLIError) -> TokenSet? {
        guard let (bytes, path) = try readCache(name) else { return nil }
        let key = try key.get()
        do {
            return try EncryptedTokenFile.decode(bytes, key: key, name: name, profile: profile)
        } catch {
            throw .loginRequired(error.message(path: path, profile: name, profileFile: paths.profileFile(name)), rule: error.rule)
        }
    }

    public func saveTokens(_ tokens: TokenSet, _ name: ProfileName, profile: Profile, key: CommandKey) throws(PingCLIError) {
        try FileSystem.ensurePrivateDirectory(paths.stateProfileDirectory(name))
        let bytes = EncryptedTokenFile.encode(tokens, key: try key.get(create: true), name: name, profile: profile)
        // Callers hold the profile's lock, so a temporary file found now is debris from a killed writer.
        FileSystem.removeTemporaryFiles(of: paths.tokensFile(name))
        try FileSystem.atomicWrite(paths.tokensFile(name), bytes, beforeRename: beforeTokenRename)
    }

    public func removeTokens(_ name: ProfileName) throws(PingCLIError) {
        try FileSystem.remove(paths.tokensFile(name))
        try FileSystem.remove(paths.targetedTokensFile(name))
        try FileSystem.remove(paths.refreshStateFile(name))
        // And whatever an older version left beside profile.json, should anything have put it back.
        for file in ["tokens.enc", "refresh.state"] { try FileSystem.remove(paths.legacyStateFile(name, file)) }
    }

    /// Holds the profile's lock file exclusively until the returned lock is released; waits at most
    /// `lockTimeout` seconds. State an older version left in the config directory is moved first.
    public func lock(_ name: ProfileName) throws(PingCLIError) -> FileLock {
        if heldLock == name { return FileLock.alreadyHeld() }
        try FileSystem.ensurePrivateDirectory(paths.stateProfileDirectory(name))
        let lock = try FileLock(path: paths.lockFile(name), timeout: lockTimeout, clock: lockClock, profile: name, holder: lockHolder)
        try migrateLegacyState(name)
        return lock
    }

    /// The saved profile a new login may reuse, and whether it was verified: only a token cache that
    /// decrypts under the key and whose binding matches vouches for `profile.json` (its issuer, client
    /// id, CA file). After `logout` (no cache), with a synced `~/.config` but not the key, or with a
    /// changed or older cache, the file is unverified: anyone who could write it may have chosen it.
    public func reusableProfile(_ name: ProfileName, key: CommandKey) -> (profile: Profile?, verified: Bool) {
        guard let profile = try? loadProfile(name) else { return (nil, false) }
        guard let (bytes, _) = try? readCache(name), let secret = try? key.get(),
            (try? EncryptedTokenFile.decode(bytes, key: secret, name: name, profile: profile)) != nil
        else { return (profile, false) }
        return (profile, true)
    }

    /// Everything a login will need to write, checked before discovery and before the browser opens:
    /// the key (created if missing, or the key command run), the profile directory, and whatever
    /// files already sit in it (type, owner, mode).
    public func preflight(_ name: ProfileName, key: CommandKey) throws(PingCLIError) {
        _ = try key.get(create: true)
        try FileSystem.ensurePrivateDirectory(paths.profileDirectory(name))
        try FileSystem.ensurePrivateDirectory(paths.stateProfileDirectory(name))
        try FileSystem.checkExisting(paths.profileFile(name), protection: .owned)
        for path in [paths.tokensFile(name), paths.lockFile(name), paths.refreshStateFile(name), paths.targetedTokensFile(name)] {
            try FileSystem.checkExisting(path, protection: .secret)
        }
    }
}
