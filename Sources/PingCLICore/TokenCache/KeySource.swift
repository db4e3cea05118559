/// The 32-byte key that encrypts token caches: a random key file, 0600, under the XDG data directory,
/// created on first login.
public struct KeySource: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Reads the key; creates it first when `create` is true and it does not exist.
    public func load(create: Bool) throws(PingCLIError) -> [UInt8] {
        if let key = try FileSystem.read(path, limit: 4096, secret: true) {
            guard key.count == Sodium.aeadKeyLength else {
                throw .loginRequired("key file \(path) is damaged (\(key.count) bytes, expected \(Sodium.aeadKeyLength)): remove it and run pingcli login again")
            }
            return key
        }
        guard create else {
            throw .loginRequired("key file \(path) is missing, so the cached tokens cannot be read: run pingcli login")
        }
        try FileSystem.ensurePrivateDirectory(FileSystem.parent(of: path))
        var fresh = Sodium.randomBytes(Sodium.aeadKeyLength)
        defer { Sodium.wipe(&fresh) }
        // Two first logins at once: exactly one key wins, and both use it.
        if try FileSystem.createExclusively(path, fresh) { return fresh }
        return try load(create: false)
    }
}
