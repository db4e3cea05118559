import Testing

@testable import PingBase
@testable import PingFlowCore
@testable import PingOAuth
@testable import PingPlatform
@testable import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// The store throws the facts (`StoreFailure`); the words and the next step are the top's
/// (`StoreFailure.cliError`), one place.
@Suite("store failures, typed below and worded at the top")
struct StoreFailureTests {
    func store() -> TokenStore {
        let root = makeTemporaryDirectory("test")
        return TokenStore(
            paths: Paths(
                configDirectory: root + "/config/pingcli", dataDirectory: root + "/data/pingcli", stateDirectory: root + "/state/pingcli"))
    }

    let profile = Profile(
        issuer: "https://i", clientID: "c", scopes: ["openid"],
        metadata: ProviderMetadata(issuer: "https://i", authorizationEndpoint: "https://i/a", tokenEndpoint: "https://i/t"))

    let tokens = TokenSet(
        accessToken: "A", tokenType: "Bearer", expiresAt: nil, refreshToken: "R", idToken: nil, scope: nil, obtainedAt: 0)

    @Test("profile-json-refused: a damaged profile.json is profileDamaged with its path and profile; the top says how to rewrite it")
    func profileDamaged() throws {
        let store = store()
        try StoreAdvice.worded(store.writeProfile(profile, as: .default))
        let path = store.paths.profileFile(.default)
        try FileSystem.atomicWrite(path, Array("{\"issuer\": 1}".utf8))
        #expect(throws: StoreFailure.profileDamaged(path: path, profile: .default)) { try store.readProfile(.default) }
        let worded = StoreFailure.profileDamaged(path: path, profile: .default).cliError
        #expect(worded.rule == .profileJSONRefused)
        #expect(worded.status == .loginRequired)
        #expect(worded.message == "profile file \(path) is damaged: run pingcli login --profile default to rewrite it")
    }

    @Test("profile-endpoint-policy: a metadata issuer that differs is profileRefused, worded with its field")
    func profileRefused() throws {
        let store = store()
        var edited = profile
        edited.metadata.issuer = "https://other"
        try StoreAdvice.worded(store.writeProfile(edited, as: .default))
        let path = store.paths.profileFile(.default)
        let expected = StoreFailure.profileRefused(
            path: path, profile: .default, field: "metadata.issuer", url: "https://other", reason: "differs from its issuer")
        #expect(throws: expected) { try store.readProfile(.default) }
        #expect(expected.rule == .profileEndpointPolicy)
        #expect(expected.cliError.message.hasSuffix("so no token is sent: run pingcli login --profile default"))
        #expect(throws: expected.cliError) { try StoreAdvice.worded(store.readProfile(.default)) }
    }

    @Test("cache-tampered: a cache of another profile's settings is cache(.profileChanged) naming profile.json; its words once, at the top")
    func cacheProfileChanged() throws {
        let store = store()
        try StoreAdvice.worded(store.writeProfile(profile, as: .default))
        try StoreAdvice.worded(store.writeTokens(tokens, .default, profile: profile, key: store.commandKey()))
        var other = profile
        other.clientID = "d"
        let failure = StoreFailure.cache(
            .profileChanged, path: store.paths.tokensFile(.default), profile: .default, profileFile: store.paths.profileFile(.default))
        #expect(throws: failure) { try store.readTokens(.default, profile: other, key: store.commandKey()) }
        #expect(failure.rule == .profileBinding)
        #expect(failure.status == .loginRequired)
        #expect(throws: failure.cliError) { try StoreAdvice.worded(store.readTokens(.default, profile: other, key: store.commandKey())) }
        #expect(failure.cliError.message.contains("profile file \(store.paths.profileFile(.default)) was changed outside pingcli"))
    }

    @Test("generation-damaged: a record of the generation that is not one number is generationDamaged (exit 1), for a read and a write")
    func generationDamaged() throws {
        let store = store()
        try StoreAdvice.worded(store.writeProfile(profile, as: .default))
        try store.writeTokens(tokens, .default, profile: profile, key: store.commandKey())
        let path = store.paths.generationFile(.default)
        try FileSystem.atomicWrite(path, Array("two\n".utf8))
        let failure = StoreFailure.generationDamaged(path: path, profile: .default)
        #expect(throws: failure) { try store.readTokens(.default, profile: profile, key: store.commandKey()) }
        #expect(throws: failure) { try store.writeTokens(tokens, .default, profile: profile, key: store.commandKey()) }
        #expect(failure.rule == .generationDamaged)
        #expect(failure.status == .failure)
        #expect(throws: failure.cliError) {
            try StoreAdvice.worded(store.writeTokens(tokens, .default, profile: profile, key: store.commandKey()))
        }
        #expect(
            failure.cliError.message == "\(path) is damaged (it must hold one number): remove it and run pingcli login --profile default")
    }

    @Test("current-profile-damaged: a current-profile file without a profile name is currentProfileDamaged; the top names profiles use")
    func currentProfileDamaged() throws {
        let store = store()
        try store.setCurrentProfile(.default)
        #expect(try store.readCurrentProfile() == .default)
        try FileSystem.atomicWrite(store.paths.currentProfileFile, Array("../x\n".utf8))
        let failure = StoreFailure.currentProfileDamaged(path: store.paths.currentProfileFile)
        #expect(throws: failure) { try store.readCurrentProfile() }
        #expect(failure.rule == .currentProfileDamaged)
        #expect(throws: failure.cliError) { try StoreAdvice.worded(store.readCurrentProfile()) }
        #expect(failure.cliError.message.hasSuffix("does not hold a profile name: run pingcli profiles use NAME"))
    }

    @Test("key-file-damaged and cache-key-missing: the key file's failures are typed with its path; the top says what to run")
    func keyFile() throws {
        let store = store()
        let path = store.paths.keyFile
        #expect(throws: StoreFailure.keyFileMissing(path: path)) { try KeySource.file(path: path).load(create: false) }
        #expect(StoreFailure.keyFileMissing(path: path).rule == .cacheKeyMissing)
        try FileSystem.ensurePrivateDirectory(FileSystem.parent(of: path))
        try FileSystem.atomicWrite(path, [1, 2, 3])
        let damaged = StoreFailure.keyFileDamaged(path: path, length: 3)
        #expect(throws: damaged) { try KeySource.file(path: path).load(create: true) }
        #expect(throws: damaged) { try CommandKey(source: .file(path: path)).load() }
        #expect(throws: damaged.cliError) { try CommandKey(source: .file(path: path)).get() }
        #expect(damaged.rule == .keyFileDamaged && damaged.status == .loginRequired)
        #expect(damaged.cliError.message == "key file \(path) is damaged (3 bytes, expected 32): remove it and run pingcli login again")
    }

    @Test("key-migrate-no-key: a move with nothing to move is typed; its words name the login that makes a key")
    func migrateNothing() {
        let store = store()
        let keyring = KeyringKey(paths: store.paths, environment: Environment([:]))
        #expect(throws: StoreFailure.migrateNoKeyFile(keyFile: store.paths.keyFile)) {
            try KeyMigration.toKeyring(keyring, keyFile: store.paths.keyFile)
        }
        #expect(StoreFailure.migrateNoKeyFile(keyFile: "/k").cliError.rule == .keyMigrateNoKey)
        #expect(
            StoreFailure.migrateNoKeyringKey.cliError.message == "there is no cache key in the Secret Service to move: run pingcli login")
    }

    @Test("keyring-item-damaged: a keyring-item that is no item id is typed with its path; no session bus is noSessionBus")
    func keyringItem() throws {
        let store = store()
        let keyring = KeyringKey(paths: store.paths, environment: Environment([:]))
        try FileSystem.ensurePrivateDirectory(FileSystem.parent(of: store.paths.keyringItemFile))
        try FileSystem.atomicWrite(store.paths.keyringItemFile, Array("not hex\n".utf8))
        #expect(throws: StoreFailure.keyringItemDamaged(path: store.paths.keyringItemFile)) { try keyring.itemID() }
        #expect(StoreFailure.keyringItemDamaged(path: "/i").cliError.rule == .keyringItemDamaged)
        #expect(throws: StoreFailure.noSessionBus) { try keyring.create(Array(repeating: 7, count: 32), fallBack: false) }
        #expect(StoreFailure.noSessionBus.cliError.rule == .sessionBus && StoreFailure.noSessionBus.status == .failure)
    }

    @Test("a file's failure passes through the store as the file's line, its rule and status kept")
    func file() {
        let failure = FileFailure.io(.read, path: "x", errno: EACCES)
        let error = PingCLIError(.failure, "cannot read x: Permission denied", rule: .fileRead)
        #expect(StoreFailure.file(failure).cliError == error)
        #expect(StoreFailure.file(failure).rule == .fileRead)
        #expect(StoreFailure.file(failure).status == .failure)
    }
}
