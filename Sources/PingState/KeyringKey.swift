import PingBase
import PingCrypto
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// The keyring store: the cache key is an item in the freedesktop Secret Service, and a copy is kept in
/// the kernel's session keyring (`KernelKeyCopy`: this uid in this session only) so that the processes of this login session read it
/// with two system calls and the Secret Service is asked at most once per `kernelTimeout`: locking the
/// collection takes effect within that window, and the copy ends with the session.
///
/// On disk there is only `keyring-item`: the item's random id (not a secret), which names the item and
/// the kernel key. A home directory copied to another user or machine names an item that the other
/// Secret Service does not hold: "login required", never a token.
public struct KeyringKey: Sendable {
    /// `$XDG_DATA_HOME/pingcli/keyring-item`.
    public let itemFile: String
    /// The data directory, recorded in the item's attributes so a person can tell two homes apart.
    public let dataDirectory: String
    /// Whether a session bus was found when the command started.
    public let hasSessionBus: Bool

    /// How long the kernel keeps its copy: 10 minutes (then the Secret Service is asked again, so a
    /// locked collection stops serving the key within that window).
    public static let kernelTimeout: UInt32 = 10 * 60
    package static let label = "pingcli token cache key"

    public init(paths: Paths, environment: Environment) {
        itemFile = paths.keyringItemFile
        dataDirectory = paths.dataDirectory
        hasSessionBus = SecretService.hasSessionBus(environment)
    }

    /// The item's id from `keyring-item`; nil when the file does not exist.
    package func itemID() throws(StoreFailure) -> String? {
        guard var bytes = try passing({ () throws(FileFailure) in try FileSystem.read(itemFile, limit: 256, protection: .secret) }) else {
            return nil
        }
        defer { Sodium.wipe(&bytes) }
        if bytes.last == 0x0A { bytes.removeLast() }
        let hex = Array("0123456789abcdef".utf8)
        guard bytes.count == 32, bytes.allSatisfy(hex.contains) else { throw .keyringItemDamaged(path: itemFile) }
        return String(decoding: bytes, as: UTF8.self)
    }

    package static func attributes(_ id: String, dataDirectory: String? = nil) -> [String: String] {
        var attributes = ["application": "pingcli", "pingcli-key-id": id]
        if let dataDirectory { attributes["pingcli-data-directory"] = dataDirectory }
        return attributes
    }

    /// The key: from the kernel's session keyring, else from the Secret Service (and then copied into
    /// the kernel keyring).
    package func load(id: String) throws(StoreFailure) -> [UInt8] {
        if let key = KernelKeyCopy.read(id) { return key }
        guard hasSessionBus else { throw .noSessionBus }
        let text: String?
        do {
            text = try SecretService.lookup(Self.attributes(id))
        } catch {
            throw .secretService(error, doing: "read the cache key from")
        }
        guard let text else { throw .keyringItemMissing(id: id) }
        guard let key = Base64URL.decode(text), key.count == Sodium.aeadKeyLength else { throw .keyringKeyDamaged(id: id) }
        KernelKeyCopy.add(id, key, timeout: Self.kernelTimeout)
        return key
    }

    /// Puts `key` into a new Secret Service item and records its id in `keyring-item`. When another
    /// process recorded an item first, its key wins and this item is deleted again. Returns the key in
    /// use; nil when `fallBack` is true and no Secret Service answers (nothing was written).
    package func create(_ key: [UInt8], fallBack: Bool) throws(StoreFailure) -> [UInt8]? {
        guard hasSessionBus else {
            if fallBack { return nil }
            throw .noSessionBus
        }
        let digits = Array("0123456789abcdef")
        let id = Sodium.randomBytes(16).map { "\(digits[Int($0 >> 4)])\(digits[Int($0 & 15)])" }.joined()
        do {
            try SecretService.store(
                Base64URL.encode(key), label: "\(Self.label) (\(dataDirectory))",
                attributes: Self.attributes(id, dataDirectory: dataDirectory))
        } catch {
            switch error {
            case .unavailable where fallBack, .notInstalled where fallBack: return nil
            default: throw .secretService(error, doing: "store the cache key in")
            }
        }
        let recorded: Bool
        do {
            try FileSystem.ensurePrivateDirectory(dataDirectory)
            recorded = try FileSystem.createExclusively(itemFile, Array((id + "\n").utf8))
        } catch {
            try? SecretService.clear(Self.attributes(id))
            throw .file(error)
        }
        guard recorded else {
            try? SecretService.clear(Self.attributes(id))
            guard let winner = try itemID() else { throw .keyringItemVanished(path: itemFile) }
            return try load(id: winner)
        }
        KernelKeyCopy.add(id, key, timeout: Self.kernelTimeout)
        return key
    }

    /// Deletes the item and its kernel copy, then `keyring-item` (for `key migrate --to file`).
    package func remove(id: String) throws(StoreFailure) {
        KernelKeyCopy.invalidate(id)
        do {
            try SecretService.clear(Self.attributes(id))
        } catch {
            throw .secretService(error, doing: "delete the cache key from")
        }
        try passing { () throws(FileFailure) in try FileSystem.remove(itemFile) }
    }

    /// Drops the kernel keyring's copy (`logout --all`): the next command asks the Secret Service.
    package func forgetKernelCopy() {
        if let id = try? itemID() { KernelKeyCopy.invalidate(id) }
    }
}
