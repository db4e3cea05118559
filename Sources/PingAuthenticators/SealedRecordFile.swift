import PingBase
import PingCrypto
import PingPlatform
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// The file layout device keys and passkeys share (`DeviceKeyStore` documents it): a header (magic,
/// version, whether the record is also sealed to the TPM), a random nonce and the record's
/// XChaCha20-Poly1305 ciphertext, the associated data the header, `purpose` and the record's id, so a
/// file renamed to another id, or a file of the other kind put in its place, does not decrypt.
package struct SealedRecordFile: Sendable {
    package let seal: TPMSeal
    /// `pingcli device key`, `pingcli passkey`.
    package let purpose: String
    /// What the records are, for a failure.
    package let kind: SealedRecordKind
    /// How `doing` names one for a TPM failure (`TPMFailure.doing`).
    private var noun: String { kind == .deviceKey ? "device key" : "passkey" }

    package static let magic: [UInt8] = Array("PCLD".utf8)
    package static let version: UInt8 = 2
    package static let headerLength = 8
    package static func header(version: UInt8 = version, sealed: Bool) -> [UInt8] {
        magic + [version, version >= 2 && sealed ? 1 : 0, 0, 0]
    }

    package func associatedData(_ id: String, header: [UInt8]) -> [UInt8] {
        header + Array("\u{0}\(purpose)\u{0}\(id)".utf8)
    }

    /// `plaintext` as the file's bytes, sealed to the TPM when one is reachable (`session`: already open).
    package func encrypt(
        _ plaintext: [UInt8], id: String, key: [UInt8], session: TPM2.Session?
    ) throws(SealedFailure) -> (
        bytes: [UInt8], sealed: Bool
    ) {
        var (recordKey, sealed) = try seal.writingKey(cacheKey: key, doing: "seal \(noun) \(id) to the TPM", session: session)
        defer { Sodium.wipe(&recordKey) }
        let header = Self.header(sealed: sealed)
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let ciphertext = Sodium.seal(plaintext: plaintext, associatedData: associatedData(id, header: header), nonce: nonce, key: recordKey)
        return (header + nonce + ciphertext, sealed)
    }

    /// The plaintext of the file `path` holding record `id`; nil when there is no file.
    package func decrypt(path: String, id: String, key: [UInt8]) throws(SealedFailure) -> [UInt8]? {
        let found = try SealedFailure.file { () throws(FileFailure) in try FileSystem.read(path, limit: 64 * 1024, protection: .secret) }
        guard var bytes = found else { return nil }
        defer { Sodium.wipe(&bytes) }
        let minimum = Self.headerLength + Sodium.aeadNonceLength + Sodium.aeadTagLength
        let header = Array(bytes.prefix(Self.headerLength))
        guard bytes.count >= minimum,
            [Self.header(version: 1, sealed: false), Self.header(sealed: false), Self.header(sealed: true)].contains(header)
        else {
            throw .recordNotPingcli(kind, path: path)
        }
        let nonce = Array(bytes[Self.headerLength..<(Self.headerLength + Sodium.aeadNonceLength)])
        let ciphertext = Array(bytes[(Self.headerLength + Sodium.aeadNonceLength)...])
        var recordKey = try seal.readingKey(cacheKey: key, sealed: header[5] == 1, doing: "open \(noun) \(id)")
        defer { Sodium.wipe(&recordKey) }
        guard
            let plaintext = Sodium.open(
                ciphertext: ciphertext, associatedData: associatedData(id, header: header), nonce: nonce, key: recordKey)
        else {
            throw .recordTampered(kind, path: path)
        }
        return plaintext
    }

    /// The record `id` from the file at `path`, decrypted, decoded and checked to be `id`'s (`idOf`); nil
    /// when there is no file. A record that decrypts but does not decode as one is `recordDamaged`.
    package func record<Record>(
        at path: String, id: String, key: [UInt8], decode: ([UInt8]) -> Record?, idOf: (Record) -> String
    ) throws(SealedFailure) -> Record? {
        guard var plaintext = try decrypt(path: path, id: id, key: key) else { return nil }
        defer { Sodium.wipe(&plaintext) }
        guard let record = decode(plaintext), idOf(record) == id else { throw .recordDamaged(kind, path: path) }
        return record
    }
}

extension SealedRecordFile {
    /// The ids of the files in `directory` named `ID` + `suffix` (well-formed ids only), sorted.
    package static func ids(in directory: String, suffix: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var ids: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasSuffix(suffix) else { continue }
            let id = String(name.dropLast(suffix.count))
            if DeviceKeyStore.isKeyID(id) { ids.append(id) }
        }
        return ids.sorted()
    }

    /// Every record of `ids` that `read` decrypts, sorted by `order`, and the failures of those that do not
    /// (one line each). A seal that does not open (no TPM here, another TPM) is thrown: it is no one
    /// record's fault.
    package static func readAll<Record>(
        _ ids: [String], read: (String) throws(SealedFailure) -> Record?, order: (Record, Record) -> Bool
    ) throws(SealedFailure) -> (records: [Record], failures: [SealedFailure]) {
        var records: [Record] = []
        var failures: [SealedFailure] = []
        for id in ids {
            do {
                if let record = try read(id) { records.append(record) }
            } catch {
                if DeviceKeyStore.sealRules.contains(error.rule) { throw error }
                failures.append(error)
            }
        }
        return (records.sorted(by: order), failures)
    }
}
