import PingBase
import PingCrypto
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// Where the cache key lives, as `status` reports it (`"key_store"`).
public enum KeyStoreKind: String, Sendable {
    case keyring, file, command
}

/// The key's store and where `status` says it is, found once per command: with no `PINGCLI_KEY_STORE`
/// each look probes two files, and `status --all` reports it for every profile.
package struct KeyPlace: Sendable {
    package var kind: KeyStoreKind
    package var location: String

    package init(_ source: KeySource) {
        kind = source.kind
        location = source.location(kind: kind)
    }
}

extension KeyringKey {
    /// The key of the Secret Service item this machine recorded, or nil when none is.
    fileprivate func storedKey() throws(StoreFailure) -> [UInt8]? {
        try itemID().map { id throws(StoreFailure) in try load(id: id) }
    }
}

extension KeySource {
    /// The key, the store that holds it and, for a key created now, the line that says where it went
    /// and why. With no `PINGCLI_KEY_STORE`, the store that already holds a key wins (a Secret Service
    /// item first, then a key file); a first login chooses the Secret Service when one answers.
    package func loadResolved(create: Bool) throws(StoreFailure) -> (key: [UInt8], store: KeyStoreKind, notice: String?) {
        switch self {
        case .file(let path):
            return (try Self.loadFile(path, create: create), .file, nil)
        case .command(let command, let timeout):
            do { return (try KeyCommand.run(command, timeout: timeout), .command, nil) } catch { throw .keyCommand(error) }
        case .keyring(let keyring, let keyFile):
            if let key = try keyring.storedKey() { return (key, .keyring, nil) }
            if FileSystem.exists(keyFile) { throw .keyInFile(keyFile: keyFile) }
            guard create else { throw .noKeyInSecretService }
            var fresh = Sodium.randomBytes(Sodium.aeadKeyLength)
            defer { Sodium.wipe(&fresh) }
            let key = try keyring.create(fresh, fallBack: false) ?? fresh
            return (key, .keyring, Self.keyringNotice("PINGCLI_KEY_STORE=keyring"))
        case .automatic(let keyring, let keyFile):
            if let key = try keyring.storedKey() { return (key, .keyring, nil) }
            if !create || FileSystem.exists(keyFile) { return (try Self.loadFile(keyFile, create: create), .file, nil) }
            guard keyring.hasSessionBus else {
                return (
                    try Self.loadFile(keyFile, create: true), .file,
                    "No session bus (DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service: the cache key is the file \(keyFile) (PINGCLI_KEY_STORE=keyring to require a keyring)"
                )
            }
            var fresh = Sodium.randomBytes(Sodium.aeadKeyLength)
            defer { Sodium.wipe(&fresh) }
            guard let key = try keyring.create(fresh, fallBack: true) else {
                return (
                    try Self.loadFile(keyFile, create: true), .file,
                    "No Secret Service on this session bus: the cache key is the file \(keyFile) (PINGCLI_KEY_STORE=keyring to require one)"
                )
            }
            return (key, .keyring, Self.keyringNotice("a Secret Service answers on the session bus"))
        }
    }

    package static func keyringNotice(_ why: String) -> String {
        "The cache key is an item in the Secret Service (\(why)), with a copy in the kernel session keyring; no key file is written"
    }

    /// The store in use (or, before the first login, the one a login would pick), without loading
    /// the key, libsecret or anything else: for `status`.
    public var kind: KeyStoreKind {
        switch self {
        case .file: .file
        case .command: .command
        case .keyring: .keyring
        case .automatic(let keyring, let keyFile):
            if FileSystem.exists(keyring.itemFile) {
                .keyring
            } else if FileSystem.exists(keyFile) || !keyring.hasSessionBus {
                .file
            } else {
                .keyring
            }
        }
    }

    /// Where `status` says the key is.
    public var location: String { location(kind: kind) }

    /// `location` for a `kind` already found (`KeyPlace`: `kind` probes the files each time).
    package func location(kind: KeyStoreKind) -> String {
        switch (self, kind) {
        case (.command, _): "(the key comes from PINGCLI_KEY_COMMAND)"
        case (.file(let path), _), (.automatic(_, let path), .file): path
        case (.keyring(let keyring, _), _), (.automatic(let keyring, _), _):
            "(the key is in the Secret Service, cached in the kernel session keyring; its item id is in \(keyring.itemFile))"
        }
    }

    /// Drops the kernel keyring's copy of the key, if any (`logout --all`).
    public func forgetCachedKey() {
        switch self {
        case .keyring(let keyring, _), .automatic(let keyring, _): keyring.forgetKernelCopy()
        case .file, .command: break
        }
    }
}
