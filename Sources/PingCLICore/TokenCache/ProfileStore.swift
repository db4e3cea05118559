#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a profile remembers between commands; nothing in it is secret.
public struct Profile: Codable, Sendable, Equatable {
    public var issuer: String
    public var clientID: String
    public var scopes: [String]
    /// The provider's endpoints as discovered at login, so `token` can refresh without discovery.
    public var metadata: ProviderMetadata
    /// A PEM CA bundle to trust for this issuer, when not the system's.
    public var caFile: String?

    enum CodingKeys: String, CodingKey {
        case issuer
        case clientID = "client_id"
        case scopes
        case metadata
        case caFile = "ca_file"
    }

    public init(issuer: String, clientID: String, scopes: [String], metadata: ProviderMetadata, caFile: String? = nil) {
        self.issuer = issuer
        self.clientID = clientID
        self.scopes = scopes
        self.metadata = metadata
        self.caFile = caFile
    }
}

/// Reads and writes profiles and their encrypted tokens.
public struct TokenStore: Sendable {
    public let paths: Paths
    public let keySource: KeySource
    /// Test seam: runs inside `saveTokens` after the new file is written, before it replaces the old one.
    public var beforeTokenRename: @Sendable () -> Void = {}

    public init(paths: Paths, keySource: KeySource? = nil) {
        self.paths = paths
        self.keySource = keySource ?? .file(path: paths.keyFile)
    }

    /// The profile, or nil when it was never logged in.
    public func loadProfile(_ name: ProfileName) throws(PingCLIError) -> Profile? {
        let path = paths.profileFile(name)
        guard let bytes = try FileSystem.read(path) else { return nil }
        guard let profile = try? JSONDecoder().decode(Profile.self, from: Data(bytes)) else {
            throw .loginRequired("profile file \(path) is damaged: run pingcli login --profile \(name) to rewrite it")
        }
        return profile
    }

    public func saveProfile(_ profile: Profile, as name: ProfileName) throws(PingCLIError) {
        try FileSystem.ensurePrivateDirectory(paths.profileDirectory(name))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(profile) else { throw .failure("cannot encode profile \(name)") }
        try FileSystem.atomicWrite(paths.profileFile(name), Array(data) + [10])
    }

    /// The profile's tokens, or nil when none are cached.
    public func loadTokens(_ name: ProfileName, profile: Profile) throws(PingCLIError) -> TokenSet? {
        let path = paths.tokensFile(name)
        guard let bytes = try FileSystem.read(path, secret: true) else { return nil }
        var key = try keySource.load(create: false)
        defer { Sodium.wipe(&key) }
        do {
            return try EncryptedTokenFile.decode(
                bytes, key: key, profile: name, issuer: profile.issuer, clientID: profile.clientID)
        } catch {
            throw .loginRequired(error.message(path: path, profile: name))
        }
    }

    public func saveTokens(_ tokens: TokenSet, _ name: ProfileName, profile: Profile) throws(PingCLIError) {
        try FileSystem.ensurePrivateDirectory(paths.profileDirectory(name))
        var key = try keySource.load(create: true)
        defer { Sodium.wipe(&key) }
        let bytes = EncryptedTokenFile.encode(tokens, key: key, profile: name, issuer: profile.issuer, clientID: profile.clientID)
        // Callers hold the profile's lock, so a temporary file found now is debris from a killed writer.
        FileSystem.removeTemporaryFiles(of: paths.tokensFile(name))
        try FileSystem.atomicWrite(paths.tokensFile(name), bytes, beforeRename: beforeTokenRename)
    }

    public func removeTokens(_ name: ProfileName) throws(PingCLIError) {
        try FileSystem.remove(paths.tokensFile(name))
    }

    /// Holds the profile's lock file exclusively until the returned lock is released.
    public func lock(_ name: ProfileName) throws(PingCLIError) -> FileLock {
        try FileSystem.ensurePrivateDirectory(paths.profileDirectory(name))
        return try FileLock(path: paths.lockFile(name))
    }
}
