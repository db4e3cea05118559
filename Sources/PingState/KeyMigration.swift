import PingBase
import PingCrypto
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli key migrate`: moves the cache key between a key file and the Secret Service without
/// changing it, so every profile's cache stays readable, and without a moment where no store holds it.
/// Into the keyring: the item is stored and recorded first, the file wiped last. Back to a file: the
/// file is written first, the item removed last. A failure halfway leaves both holding the same key
/// (the keyring is then used); running the command again finishes the move.
package enum KeyMigration {
    /// Moves the key into the Secret Service and wipes the key file. Returns what was done, for the person.
    package static func toKeyring(_ keyring: KeyringKey, keyFile: String) throws(StoreFailure) -> String {
        let existing = try keyring.itemID()
        guard FileSystem.exists(keyFile) else {
            if existing != nil { return "The cache key is already in the Secret Service: nothing to do." }
            throw .migrateNoKeyFile(keyFile: keyFile)
        }
        var fileKey = try KeySource.loadFile(keyFile, create: false)
        defer { Sodium.wipe(&fileKey) }
        if let existing {
            // A move that stopped halfway: finish it if both hold the same key.
            var keyringKey = try keyring.load(id: existing)
            defer { Sodium.wipe(&keyringKey) }
            guard keyringKey == fileKey else { throw .migrateConflict(itemID: existing, keyFile: keyFile) }
        } else {
            guard var stored = try keyring.create(fileKey, fallBack: false), stored == fileKey
            else { throw .migrateRaced }
            Sodium.wipe(&stored)
        }
        try passing { () throws(FileFailure) in try wipe(keyFile) }
        return "Moved the cache key into the Secret Service and wiped \(keyFile); a copy is kept in the kernel session keyring."
    }

    /// Writes the key to a file and removes it from the Secret Service and the kernel keyring.
    package static func toFile(_ keyring: KeyringKey, keyFile: String) throws(StoreFailure) -> String {
        guard let id = try keyring.itemID() else {
            if FileSystem.exists(keyFile) { return "The cache key is already the file \(keyFile): nothing to do." }
            throw .migrateNoKeyringKey
        }
        var key = try keyring.load(id: id)
        defer { Sodium.wipe(&key) }
        let created = try passing { () throws(FileFailure) in
            try FileSystem.ensurePrivateDirectory(FileSystem.parent(of: keyFile))
            return try FileSystem.createExclusively(keyFile, key)
        }
        if !created {
            var fileKey = try KeySource.loadFile(keyFile, create: false)
            defer { Sodium.wipe(&fileKey) }
            guard fileKey == key else { throw .migrateConflict(itemID: id, keyFile: keyFile) }
        }
        // The file holds the key now: stop pointing at the item before deleting it.
        KernelKeyCopy.invalidate(id)
        try passing { () throws(FileFailure) in try FileSystem.remove(keyring.itemFile) }
        do {
            try SecretService.clear(KeyringKey.attributes(id))
        } catch {
            throw .migrateItemKept(keyFile: keyFile, itemID: id, failure: error)
        }
        return "Moved the cache key out of the Secret Service into \(keyFile) (0600)."
    }

    /// Overwrites a key file with zeros, syncs it, and removes it.
    package static func wipe(_ path: String) throws(FileFailure) {
        let descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        if descriptor >= 0 {
            var info = stat()
            if fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFREG {
                let zeros = [UInt8](repeating: 0, count: Int(info.st_size))
                _ = zeros.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                fsync(descriptor)
            }
            close(descriptor)
        }
        try FileSystem.remove(path)
        FileSystem.syncDirectory(FileSystem.parent(of: path))
    }
}
