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
    /// Test seam: runs inside `writeTokens` after the new file is written, before it replaces the old one.
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
    public func readProfile(_ name: ProfileName) throws(StoreFailure) -> Profile? {
        let path = paths.profileFile(name)
        guard let bytes = try passing({ () throws(FileFailure) in try FileSystem.read(path, protection: .owned) }) else { return nil }
        return try profile(fromSaved: bytes, name: name)
    }

    /// The profile in `bytes`, the content of `name`'s `profile.json`, through the gates `readProfile` applies.
    package func profile(fromSaved bytes: [UInt8], name: ProfileName) throws(StoreFailure) -> Profile {
        let path = paths.profileFile(name)
        let profile: Profile
        do {
            profile = try Profile(savedJSON: bytes)
        } catch .refused(let field, let url, let reason) {
            throw .profileRefused(path: path, profile: name, field: field, url: url, reason: "was refused: \(reason.message)")
        } catch {
            throw .profileDamaged(path: path, profile: name)
        }
        guard profile.metadata.issuer == profile.issuer else {
            throw .profileRefused(
                path: path, profile: name, field: "metadata.issuer", url: profile.metadata.issuer, reason: "differs from its issuer")
        }
        return profile
    }

    public func writeProfile(_ profile: Profile, as name: ProfileName) throws(StoreFailure) {
        try passing { () throws(FileFailure) in try FileSystem.ensurePrivateDirectory(paths.profileDirectory(name)) }
        guard let json = try? JSONValueEncoder.encode(profile) else { throw .profileEncode(profile: name) }
        try passing { () throws(FileFailure) in
            try FileSystem.atomicWrite(paths.profileFile(name), Array(json.rendered(pretty: true, spaceBeforeColon: true).utf8) + [10])
        }
    }

    /// The profile's tokens, or nil when none are cached (or only the record a logout left).
    public func readTokens(_ name: ProfileName, profile: Profile, key: CommandKey) throws(StoreFailure) -> TokenSet? {
        try readRecord(name, profile: profile, key: key)?.tokens
    }

    /// The profile's cache record, or nil when there is no cache file. It must decrypt under the key,
    /// match `profile`'s binding and be no older than the generation recorded for the profile (an older
    /// one was restored from a backup or a sync). The key is loaded only when a cache exists.
    public func readRecord(_ name: ProfileName, profile: Profile, key: CommandKey) throws(StoreFailure) -> EncryptedTokenFile.Record? {
        guard let (bytes, path) = try readCache(name) else { return nil }
        let key = try key.load()
        let record: EncryptedTokenFile.Record
        do {
            record = try EncryptedTokenFile.decodeRecord(bytes, key: key, name: name, profile: profile)
        } catch {
            throw .cache(error, path: path, profile: name, profileFile: paths.profileFile(name))
        }
        guard record.generation >= (try recordedGeneration(name)) else {
            throw .cache(.rolledBack, path: path, profile: name, profileFile: paths.profileFile(name))
        }
        return record
    }

    /// Seals `tokens` (nil: the empty record a logout leaves) as the profile's cache, one generation
    /// after the recorded one, and then records that generation beside the key. A crash in between
    /// leaves a cache one generation ahead of the record, which is read (only older ones are refused);
    /// the next write goes past that cache too, so a copy of it (whose tokens were handed out) never
    /// reads as current again.
    public func writeTokens(_ tokens: TokenSet?, _ name: ProfileName, profile: Profile, key: CommandKey) throws(StoreFailure) {
        try passing { () throws(FileFailure) in try FileSystem.ensurePrivateDirectory(paths.profileDirectory(name)) }
        let recorded = try recordedGeneration(name)
        let generation = max(recorded, min(storedGeneration(name), recorded &+ 1)) &+ 1
        let secret = try key.load(create: true)
        try passing { () throws(FileFailure) in
            let bytes = EncryptedTokenFile.encode(tokens, key: secret, name: name, profile: profile, generation: generation)
            // Callers hold the profile's lock, so a temporary file found now is debris from a killed writer.
            FileSystem.removeTemporaryFiles(of: paths.tokensFile(name))
            try FileSystem.atomicWrite(paths.tokensFile(name), bytes, beforeRename: beforeTokenRename)
            try generationRecord(name).write(generation)
            writeStatusSummary(tokens, name, profile: profile, key: secret, cache: bytes, generation: generation)
        }
    }

    /// The generation of the newest cache this machine wrote for the profile; 0 when none was recorded
    /// (a profile written by an older pingcli only).
    public func recordedGeneration(_ name: ProfileName) throws(StoreFailure) -> UInt64 {
        do {
            return try generationRecord(name).read()
        } catch {
            switch error {
            case .file(let failure): throw .file(failure)
            case .damaged(let path): throw .generationDamaged(path: path, profile: name)
            }
        }
    }

    /// The generation in the current cache's header (0 for none, a damaged one or an older format). Read
    /// unauthenticated under the profile's lock: `writeTokens` never trusts it beyond one more than the record.
    package func storedGeneration(_ name: ProfileName) -> UInt64 {
        let magic = EncryptedTokenFile.magic
        guard let (bytes, _) = try? readCache(name), bytes.count >= 16, Array(bytes.prefix(magic.count)) == magic, bytes[4] >= 5
        else { return 0 }
        return bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    package func generationRecord(_ name: ProfileName) -> GenerationRecord {
        GenerationRecord(path: paths.generationFile(name))
    }

    /// The end of a session (`logout`): the tokens, narrower tokens, AWS credentials and refresh record removed. When
    /// `profile` is given (its cache vouched for it), a sealed, empty record replaces the cache, so a
    /// later `login --profile` reuses the settings without a question and an older cache put back is
    /// refused; without it (no cache, or one that did not verify), the cache file is removed.
    public func writeSignOut(_ name: ProfileName, vouchedFor profile: Profile?, key: CommandKey) throws(StoreFailure) {
        guard let profile else { return try passing { () throws(FileFailure) in try removeTokens(name) } }
        try passing { () throws(FileFailure) in
            try FileSystem.remove(paths.targetedTokensFile(name))
            try FileSystem.remove(paths.awsCredentialsFile(name))
            try FileSystem.remove(paths.refreshStateFile(name))
        }
        try writeTokens(nil, name, profile: profile, key: key)
    }

    public func removeTokens(_ name: ProfileName) throws(FileFailure) {
        try FileSystem.remove(paths.statusSummaryFile(name))
        FileSystem.removeTemporaryFiles(of: paths.statusSummaryFile(name))
        try FileSystem.remove(paths.tokensFile(name))
        try FileSystem.remove(paths.targetedTokensFile(name))
        try FileSystem.remove(paths.awsCredentialsFile(name))
        try FileSystem.remove(paths.refreshStateFile(name))
    }

    /// Holds the profile's lock file exclusively until the returned lock is released; waits at most
    /// `lockTimeout` seconds. State an earlier build left under `$XDG_STATE_HOME` is taken first (once).
    public func takeLock(_ name: ProfileName) throws(StoreFailure) -> FileLock {
        if heldLock == name { return FileLock.alreadyHeld() }
        let lock = try passing { () throws(FileFailure) in
            try FileSystem.ensurePrivateDirectory(paths.profileDirectory(name))
            return try FileLock(
                path: paths.lockFile(name), timeout: lockTimeout, clock: lockClock, subject: .profile(name), holder: lockHolder)
        }
        try migrateStateDirectory(name)
        return lock
    }

    /// The saved profile a new login may reuse, and whether it was verified: only a cache record that
    /// decrypts under the key, whose binding matches and that is not older than the recorded generation
    /// vouches for `profile.json` (its issuer, client id, CA file); the sealed record a `logout` leaves
    /// does too. With a synced `~/.config` but not the key, no cache at all, or a changed or older
    /// cache, the file is unverified: anyone who could write it may have chosen it.
    public func reusableProfile(_ name: ProfileName, key: CommandKey) -> (profile: Profile?, verified: Bool) {
        guard let profile = try? readProfile(name) else { return (nil, false) }
        // `try?` flattens: nil when there is no cache file as well as when it is refused.
        guard (try? readRecord(name, profile: profile, key: key)) != nil else { return (profile, false) }
        return (profile, true)
    }

    /// Everything a login will need to write, checked before discovery and before the browser opens:
    /// the key (created if missing, or the key command run), the profile directory, and whatever
    /// files already sit in it (type, owner, mode).
    public func checkBeforeLogin(_ name: ProfileName, key: CommandKey) throws(StoreFailure) {
        _ = try key.load(create: true)
        try passing { () throws(FileFailure) in
            try FileSystem.ensurePrivateDirectory(paths.profileDirectory(name))
            try FileSystem.checkExisting(paths.profileFile(name), protection: .owned)
            for path in [
                paths.tokensFile(name), paths.lockFile(name), paths.refreshStateFile(name), paths.targetedTokensFile(name),
                paths.awsCredentialsFile(name),
            ] {
                try FileSystem.checkExisting(path, protection: .secret)
            }
        }
    }
}
