import PingBase

/// Where pingcli keeps its files, following the XDG Base Directory specification.
///
/// A profile is one directory, `$XDG_CONFIG_HOME/pingcli/profiles/<name>/` (default `~/.config/pingcli`),
/// as the design card, gh, gcloud and oidc-agent keep theirs: its settings (`profile.json`) and beside
/// them its encrypted token cache, lock, refresh record and the provider's JWK Set. The cache key is
/// never there: it is in the Secret Service, or in `$XDG_DATA_HOME/pingcli/key` (default
/// `~/.local/share/pingcli`), so a synced or backed-up `~/.config` holds nothing usable. Beside the key,
/// `generations/<name>` records the newest cache this machine wrote for each profile, so that an older
/// one put back into `~/.config` is refused. The builds of one earlier round kept the cache under
/// `$XDG_STATE_HOME/pingcli`; it is taken from there once and removed (`TokenStore.migrateStateDirectory`).
public struct Paths: Sendable, Equatable {
    public var configDirectory: String
    public var dataDirectory: String
    public var stateDirectory: String

    public init(configDirectory: String, dataDirectory: String, stateDirectory: String) {
        self.configDirectory = configDirectory
        self.dataDirectory = dataDirectory
        self.stateDirectory = stateDirectory
    }

    /// Neither the XDG `variable` nor HOME is set to an absolute path (worded in PingFlowCore, `FileAdvice.swift`).
    public struct HomeMissing: Error, Sendable, Equatable {
        public var variable: String
    }

    /// Resolves the directories from the environment. Relative XDG values are ignored, as the
    /// specification requires.
    public init(environment: Environment) throws(HomeMissing) {
        func base(_ variable: String, fallback: String) throws(HomeMissing) -> String {
            if let value = environment[variable], value.startsWithText("/") { return value }
            guard let home = environment["HOME"], home.startsWithText("/") else { throw HomeMissing(variable: variable) }
            return home + "/" + fallback
        }
        configDirectory = try base("XDG_CONFIG_HOME", fallback: ".config") + "/pingcli"
        dataDirectory = try base("XDG_DATA_HOME", fallback: ".local/share") + "/pingcli"
        stateDirectory = try base("XDG_STATE_HOME", fallback: ".local/state") + "/pingcli"
    }

    public var profilesDirectory: String { configDirectory + "/profiles" }
    /// The profile's settings (`profile.json`).
    public func profileDirectory(_ profile: ProfileName) -> String { profilesDirectory + "/" + profile.value }
    public func profileFile(_ profile: ProfileName) -> String { profileDirectory(profile) + "/profile.json" }
    /// The profile's encrypted token cache, beside its settings.
    public func tokensFile(_ profile: ProfileName) -> String { profileDirectory(profile) + "/tokens.enc" }
    public func lockFile(_ profile: ProfileName) -> String { profileDirectory(profile) + "/tokens.lock" }
    /// Held by a running `login` of the profile, so that a second one refuses.
    public func loginLockFile(_ profile: ProfileName) -> String { profileDirectory(profile) + "/login.lock" }
    /// The provider's JWK Set, cached with the profile (public keys, written under the profile's lock).
    public func jwksFile(_ profile: ProfileName) -> String { profileDirectory(profile) + "/jwks.json" }
    /// The last failed refresh and its backoff (no secret in it).
    public func refreshStateFile(_ profile: ProfileName) -> String { profileDirectory(profile) + "/refresh.state" }
    /// The generation of the newest cache this machine wrote for the profile, beside the key (not secret).
    public func generationFile(_ profile: ProfileName) -> String { dataDirectory + "/generations/" + profile.value }
    /// Where the builds of one earlier round kept the profile's state: under `$XDG_STATE_HOME/pingcli`.
    package func legacyStateDirectory(_ profile: ProfileName) -> String { stateDirectory + "/profiles/" + profile.value }
    package func legacyStateFile(_ profile: ProfileName, _ file: String) -> String { legacyStateDirectory(profile) + "/" + file }
    public var keyFile: String { dataDirectory + "/key" }
    /// With the keyring store: the id of the Secret Service item that holds the key (not a secret).
    public var keyringItemFile: String { dataDirectory + "/keyring-item" }
}

/// A profile name: 1 to 64 of `A-Z a-z 0-9 . _ -`, not starting with a dot, so it is always a safe file name.
public struct ProfileName: Sendable, Equatable, Hashable, CustomStringConvertible {
    public let value: String

    /// A `text` that is not a profile name (worded in PingFlowCore, `FileAdvice.swift`).
    public struct Refused: Error, Sendable, Equatable {
        public var text: String
    }

    public init(_ text: String) throws(Refused) {
        let valid =
            !text.isEmpty && text.utf8.count <= 64 && !text.startsWithText(".")
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
        guard valid else { throw Refused(text: text) }
        value = text
    }

    public static let `default` = try! ProfileName("default")
    public var description: String { value }
}
