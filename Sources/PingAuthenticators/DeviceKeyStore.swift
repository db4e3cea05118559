import PingAM
import PingBase
import PingCrypto
import PingPlatform
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// Where a bound key's private half lives.
package enum DeviceKeyStorage: String, Sendable, Equatable, CaseIterable {
    /// Held in software: its DER sealed under the cache key (and a PIN).
    case software
    /// Created in, and never leaving, this machine's TPM 2.0: only the TPM's wrapped blob is kept.
    case tpm
}

/// One key bound to an AM user on this machine (`pingcli devices`): who and where it is for, how it
/// signs, and the private key, sealed (or, for a TPM key, the TPM's wrapped blob). Nothing of it is ever
/// in a plain file.
package struct DeviceKeyRecord: Sendable, Equatable, SealedRecord {
    /// The `kid` AM knows the key by: a random UUID, also the record's file name.
    package var keyID: String
    /// The callback's `userId` (AM's universal id) and `username` (shown when choosing a key).
    package var userID: String
    package var username: String
    /// AM's origin and realm (`/alpha`): where the key was bound.
    package var origin: String
    package var realm: String
    package var algorithm: DeviceKeyAlgorithm
    /// What the tree asked for (`NONE`, `APPLICATION_PIN`, a biometric type).
    package var authentication: DeviceAuthenticationType
    /// Seconds since the epoch.
    package var created: UInt64
    /// Empty: the private key is sealed under the cache key alone (or is a TPM key). Else the Argon2id
    /// salt of the PIN that seals it too.
    package var pinSalt: [UInt8]
    /// The private key's DER (`SoftwareDeviceKey.privateKey`); with a PIN, a nonce and its ciphertext.
    /// For a TPM key: the TPM's `TPM2B_PUBLIC` and `TPM2B_PRIVATE`, marshalled (the private part
    /// encrypted by the TPM's storage key, loadable by that TPM alone; its PIN is the key's
    /// authorisation value, held by the TPM).
    package var sealedKey: [UInt8]
    package var storage: DeviceKeyStorage = .software

    package init(
        keyID: String, userID: String, username: String, origin: String, realm: String, algorithm: DeviceKeyAlgorithm,
        authentication: DeviceAuthenticationType, created: UInt64, pinSalt: [UInt8], sealedKey: [UInt8]
    ) {
        self.keyID = keyID
        self.userID = userID
        self.username = username
        self.origin = origin
        self.realm = realm
        self.algorithm = algorithm
        self.authentication = authentication
        self.created = created
        self.pinSalt = pinSalt
        self.sealedKey = sealedKey
    }

    package var hasPIN: Bool { storage == .tpm ? authentication.needsPIN : !pinSalt.isEmpty }

    /// Where the private key lives, in words.
    package var place: String {
        switch (storage, hasPIN) {
        case (.tpm, true): return "this machine's TPM, behind a PIN the TPM checks"
        case (.tpm, false): return "this machine's TPM"
        case (.software, true): return "software, encrypted under the cache key and a PIN"
        case (.software, false): return "software, encrypted under the cache key"
        }
    }
}

/// The device keys: one file per key, `$XDG_CONFIG_HOME/pingcli/devices/<kid>.key`, beside the profiles,
/// each encrypted under the cache key as the token cache is:
///
/// ```
/// offset 0   4 bytes  magic "PCLD"
/// offset 4   1 byte   format version (2)
/// offset 5   1 byte   protection: 0 the cache key, 1 the cache key and the TPM's sealed key (`TPMSeal`)
/// offset 6   2 bytes  zero
/// offset 8  24 bytes  XChaCha20-Poly1305 nonce, random per write
/// offset 32  …        ciphertext of the record (`DeviceKeyRecords`), then the 16-byte tag
/// ```
///
/// The associated data is the header, the purpose and the key id, so a record renamed to another id,
/// or a token cache put in its place, does not decrypt. With a TPM reachable, a record is sealed: its
/// key is the cache key combined with bytes only that TPM unseals, so a copy of the home without that
/// TPM opens no record (not even a software key's). A new key is a new file created exclusively, removal
/// is one `unlink`, so no lock is needed; a record is rewritten once, atomically, when a key bound
/// before a TPM was reachable is sealed (`sealAll`). Version 1 (no protection byte) is read as the
/// cache key's.
package struct DeviceKeyStore: Sendable, SealedRecordStore {
    package let paths: Paths
    /// The TPM's half of the key, when a TPM is reachable.
    package let seal: TPMSeal

    package init(paths: Paths, seal: TPMSeal) { (self.paths, self.seal) = (paths, seal) }

    package static let magic = SealedRecordFile.magic
    package static let version = SealedRecordFile.version
    package static let headerLength = SealedRecordFile.headerLength
    package static func header(version: UInt8 = version, sealed: Bool) -> [UInt8] {
        SealedRecordFile.header(version: version, sealed: sealed)
    }

    /// The sealing and the layout of each file.
    package var files: SealedRecordFile {
        SealedRecordFile(seal: seal, purpose: "pingcli device key", kind: .deviceKey)
    }

    package var directory: String { paths.configDirectory + "/devices" }
    package typealias Record = DeviceKeyRecord
    package static let suffix = ".key"

    /// The failures of the TPM's seal, not of one record: they end the command instead of skipping a key.
    package static let sealRules: Set<Rule> = [
        .tpmSealed, .tpmSealForeign, .tpmSealDamaged, .tpmUnreachable, .tpmLibraryMissing, .tpmTctiGate, .tpmLockout,
        .tpmCommandFailed,
    ]

    /// A key id pingcli makes (and `devices remove` accepts): a lower-case UUID, safe as a file name.
    package static func isKeyID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        return bytes.enumerated().allSatisfy { index, byte in
            [8, 13, 18, 23].contains(index) ? byte == UInt8(ascii: "-") : (byte.isASCIIDigit || (0x61...0x66).contains(byte))
        }
    }

    /// A new random key id (a version 4 UUID).
    package static func newKeyID() -> String {
        var bytes = Sodium.randomBytes(16)
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let hex = bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex.dropFirst(range.lowerBound).prefix(range.count))
        }
        return parts.joined(separator: "-")
    }

    /// Stores a new record (its key id is new: an existing file is never replaced), sealed to the TPM
    /// when one is reachable (`session`: a connection to it already open). Whether it was sealed.
    /// Worded by the caller (`SealedAdvice.worded`).
    package func create(_ record: DeviceKeyRecord, key: [UInt8], session: TPM2.Session? = nil) throws(SealedFailure) -> Bool {
        try SealedFailure.file { () throws(FileFailure) in try FileSystem.ensurePrivateDirectory(directory) }
        let (bytes, sealed) = try encrypt(record, key: key, session: session)
        guard try SealedFailure.file({ () throws(FileFailure) in try FileSystem.createExclusively(file(record.keyID), bytes) }) else {
            throw .recordExists(.deviceKey, id: record.keyID)
        }
        return sealed
    }

    /// The record's file: header, nonce, ciphertext; sealed to the TPM when one is reachable.
    private func encrypt(
        _ record: DeviceKeyRecord, key: [UInt8], session: TPM2.Session?
    ) throws(SealedFailure) -> (bytes: [UInt8], sealed: Bool) {
        var plaintext = DeviceKeyRecords.encode(record)
        defer { Sodium.wipe(&plaintext) }
        return try files.encrypt(plaintext, id: record.keyID, key: key, session: session)
    }

    /// The records still under the cache key alone rewritten sealed (each atomically, under its own
    /// name), once a TPM is reachable: the migration of keys bound before. How many were sealed.
    /// Worded by the caller (`SealedAdvice.worded`).
    package func sealAll(key: [UInt8], session: TPM2.Session? = nil) throws(SealedFailure) -> Int {
        guard try seal.reachable() != nil else { return 0 }
        var count = 0
        for id in ids() {
            let found = try SealedFailure.file { () throws(FileFailure) in
                try FileSystem.read(file(id), limit: 64 * 1024, protection: .secret)
            }
            guard let bytes = found, bytes.count >= Self.headerLength, bytes[5] == 0, var record = try? read(id, key: key)
            else { continue }
            defer { Sodium.wipe(&record.sealedKey) }
            let (sealedBytes, sealed) = try encrypt(record, key: key, session: session)
            guard sealed, FileSystem.exists(file(id)) else { continue }
            try SealedFailure.file { () throws(FileFailure) in try FileSystem.atomicWrite(file(id), sealedBytes) }
            count += 1
        }
        return count
    }

}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
