import PingBase
import PingCrypto
import PingPlatform
import PingState

/// A record kept sealed in a file of its own: a device key, a passkey.
package protocol SealedRecord {
    /// The record from its decrypted bytes; nil when they are not one.
    static func decode(_ plaintext: [UInt8]) -> Self?
    /// The id its file is named by.
    var recordID: String { get }
    /// When it was made (seconds since 1970): the lists' order, oldest first.
    var created: UInt64 { get }
}

/// A directory of sealed records, one file each (device keys in `devices/`, passkeys in `passkeys/`):
/// reading one, listing them, reading all and removing one are the same for every kind, here once.
package protocol SealedRecordStore {
    associatedtype Record: SealedRecord
    /// The sealing and the layout of each file.
    var files: SealedRecordFile { get }
    var directory: String { get }
    /// What follows the id in a file's name (`.key`, `.passkey`).
    static var suffix: String { get }
    /// The store under `paths`, with the TPM's half of the key when a TPM is reachable.
    init(paths: Paths, seal: TPMSeal)
}

extension SealedRecordStore {
    /// The store under `paths`, sealed to the TPM `tpm` names when one is reachable (`.absent`: never).
    package init(paths: Paths, tpm: TPM2.Access = .absent) { self.init(paths: paths, seal: TPMSeal(paths: paths, access: tpm)) }

    /// The file of the record `id`.
    package func file(_ id: String) -> String { directory + "/" + id + Self.suffix }

    /// The record of `id`, nil when there is none. Worded in PingFlowCore (`SealedAdvice`).
    package func read(_ id: String, key: [UInt8]) throws(SealedFailure) -> Record? {
        try files.record(at: file(id), id: id, key: key, decode: Record.decode, idOf: \.recordID)
    }

    /// The ids with a file, sorted.
    package func ids() -> [String] { SealedRecordFile.ids(in: directory, suffix: Self.suffix) }

    /// Every record that decrypts, oldest first, and the failures of those that do not (one each). A seal
    /// that does not open (no TPM here, another TPM) is thrown: it is no one record's fault.
    package func readAll(key: [UInt8]) throws(SealedFailure) -> (records: [Record], failures: [SealedFailure]) {
        try SealedRecordFile.readAll(
            ids(), read: { (id: String) throws(SealedFailure) in try read(id, key: key) },
            order: { ($0.created, $0.recordID) < ($1.created, $1.recordID) })
    }

    /// Deletes `id`'s file; false when there was none.
    package func remove(_ id: String) throws(FileFailure) -> Bool {
        guard FileSystem.exists(file(id)) else { return false }
        try FileSystem.remove(file(id))
        return true
    }
}

extension DeviceKeyRecord {
    package static func decode(_ plaintext: [UInt8]) -> DeviceKeyRecord? { DeviceKeyRecords.decode(plaintext) }
    package var recordID: String { keyID }
}

extension PasskeyRecord {
    package var recordID: String { id }
}
