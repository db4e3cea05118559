import PingBase
import PingCrypto
import PingPlatform
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// A passkey this machine's TPM holds for a relying party (WebAuthn's discoverable credential): whose
/// it is (the user handle AM gave, the names), where it may be used (its RP id, AM's origin and realm),
/// its credential id, when it was made, its signature counter, and the TPM's wrapped blob of the P-256
/// key (its PIN the key's authorisation value, checked by the TPM). Never in a plain file.
package struct PasskeyRecord: Sendable, Equatable, SealedRecord {
    /// A random UUID: the file's name, what `devices` shows and `devices remove` takes; its 16 bytes
    /// are the credential id.
    package var id: String
    package var rpID: String
    package var userHandle: [UInt8]
    package var userName: String
    package var displayName: String
    package var origin: String
    package var realm: String
    package var created: UInt64
    /// The last signature counter sent: the next assertion sends more (kept monotonic on disk first).
    package var signCount: UInt32
    package var blob: [UInt8]

    package var credentialID: [UInt8] { PasskeyStore.credentialID(id) ?? [] }

    package init(
        id: String, rpID: String, userHandle: [UInt8], userName: String, displayName: String, origin: String, realm: String,
        created: UInt64, signCount: UInt32, blob: [UInt8]
    ) {
        self.id = id
        self.rpID = rpID
        self.userHandle = userHandle
        self.userName = userName
        self.displayName = displayName
        self.origin = origin
        self.realm = realm
        self.created = created
        self.signCount = signCount
        self.blob = blob
    }

    /// Record layout 1: created (8 bytes), counter (4), then length-prefixed id, RP id, user handle,
    /// user name, display name, origin, realm, blob.
    package func encoded() -> [UInt8] {
        var bytes: [UInt8] = [1]
        OTPRecords.append(&bytes, created, width: 8)
        OTPRecords.append(&bytes, UInt64(signCount), width: 4)
        let texts = [id, rpID].map { Array($0.utf8) } + [userHandle] + [userName, displayName, origin, realm].map { Array($0.utf8) }
        for field in texts + [blob] {
            OTPRecords.append(&bytes, UInt64(field.count), width: 2)
            bytes += field
        }
        return bytes
    }

    package static func decode(_ bytes: [UInt8]) -> PasskeyRecord? {
        var reader = RecordReader(bytes, maximumField: 8 * 1024)
        guard reader.integer(1) == 1, let created = reader.integer(8), let count = reader.integer(4), let id = reader.text(),
            let rpID = reader.text(), let handle = reader.field(), let userName = reader.text(), let displayName = reader.text(),
            let origin = reader.text(), let realm = reader.text(), let blob = reader.field(), reader.atEnd
        else { return nil }
        return PasskeyRecord(
            id: id, rpID: rpID, userHandle: handle, userName: userName, displayName: displayName, origin: origin, realm: realm,
            created: created, signCount: UInt32(count), blob: blob)
    }
}

/// The passkeys: one file per credential, `$XDG_CONFIG_HOME/pingcli/passkeys/<id>.passkey`, in the device
/// keys' layout (`SealedRecordFile`): encrypted under the cache key and sealed to the TPM that holds the
/// key, so a copied home opens none (and its blob loads in no other TPM). A new passkey is a new file
/// created exclusively; the counter is rewritten atomically before a signature leaves.
package struct PasskeyStore: Sendable, SealedRecordStore {
    package let paths: Paths
    package let seal: TPMSeal

    package init(paths: Paths, seal: TPMSeal) { (self.paths, self.seal) = (paths, seal) }

    package var files: SealedRecordFile {
        SealedRecordFile(seal: seal, purpose: "pingcli passkey", kind: .passkey)
    }

    package var directory: String { paths.configDirectory + "/passkeys" }
    package typealias Record = PasskeyRecord
    package static let suffix = ".passkey"

    /// The credential id of a passkey id (the UUID's 16 bytes); nil for anything else.
    package static func credentialID(_ id: String) -> [UInt8]? {
        guard DeviceKeyStore.isKeyID(id) else { return nil }
        return Sodium.hexDecode(Array(id.utf8).filter { $0 != UInt8(ascii: "-") })
    }

    /// The passkey id of a credential id pingcli made; nil for another authenticator's.
    package static func id(credentialID: [UInt8]) -> String? {
        guard credentialID.count == 16 else { return nil }
        let hex = credentialID.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex.dropFirst($0.lowerBound).prefix($0.count)) }
        let id = parts.joined(separator: "-")
        return DeviceKeyStore.isKeyID(id) ? id : nil
    }

    /// Stores a new passkey (sealed to the TPM `session` is open to). Worded in PingFlowCore.
    package func create(_ record: PasskeyRecord, key: [UInt8], session: TPM2.Session?) throws(SealedFailure) {
        try SealedFailure.file { () throws(FileFailure) in try FileSystem.ensurePrivateDirectory(directory) }
        var plaintext = record.encoded()
        defer { Sodium.wipe(&plaintext) }
        let (bytes, _) = try files.encrypt(plaintext, id: record.id, key: key, session: session)
        guard try SealedFailure.file({ () throws(FileFailure) in try FileSystem.createExclusively(file(record.id), bytes) }) else {
            throw .recordExists(.passkey, id: record.id)
        }
    }

    /// `record` written again (its counter moved), atomically under its own name.
    package func update(_ record: PasskeyRecord, key: [UInt8], session: TPM2.Session?) throws(SealedFailure) {
        var plaintext = record.encoded()
        defer { Sodium.wipe(&plaintext) }
        let (bytes, _) = try files.encrypt(plaintext, id: record.id, key: key, session: session)
        try SealedFailure.file { () throws(FileFailure) in try FileSystem.atomicWrite(file(record.id), bytes) }
    }
}
