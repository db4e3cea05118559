import PingAM
import PingCrypto
import PingState

/// A device key record's plaintext: its layout (2; 1 had no storage byte and is always software), its
/// algorithm, authentication type, storage (software or TPM) and creation time, then length-prefixed
/// fields (key id, user id, user name, origin, realm, PIN salt, sealed key or TPM blob). Integers
/// big-endian.
package enum DeviceKeyRecords {
    package static let maximumField = 8 * 1024

    package static func encode(_ record: DeviceKeyRecord) -> [UInt8] {
        var bytes: [UInt8] = [2]  // record layout 2
        bytes.append(UInt8(DeviceKeyAlgorithm.allCases.firstIndex(of: record.algorithm) ?? 0))
        bytes.append(UInt8(DeviceAuthenticationType.allCases.firstIndex(of: record.authentication) ?? 0))
        bytes.append(UInt8(DeviceKeyStorage.allCases.firstIndex(of: record.storage) ?? 0))
        OTPRecords.append(&bytes, record.created, width: 8)
        let fields = [record.keyID, record.userID, record.username, record.origin, record.realm].map { Array($0.utf8) }
        for field in fields + [record.pinSalt, record.sealedKey] {
            OTPRecords.append(&bytes, UInt64(field.count), width: 2)
            bytes += field
        }
        return bytes
    }

    /// nil for anything `encode` would not have written.
    package static func decode(_ bytes: [UInt8]) -> DeviceKeyRecord? {
        var reader = RecordReader(bytes, maximumField: maximumField)
        guard let layout = reader.integer(1), layout == 1 || layout == 2, let algorithm = reader.integer(1).map(Int.init),
            algorithm < DeviceKeyAlgorithm.allCases.count, let authentication = reader.integer(1).map(Int.init),
            authentication < DeviceAuthenticationType.allCases.count,
            let storage = layout == 1 ? Optional(0) : reader.integer(1).map(Int.init), storage < DeviceKeyStorage.allCases.count,
            let created = reader.integer(8), let keyID = reader.text(), let userID = reader.text(), let username = reader.text(),
            let origin = reader.text(), let realm = reader.text(), let salt = reader.field(),
            salt.isEmpty || salt.count == Sodium.passwordSaltLength, let sealed = reader.field(), reader.atEnd,
            storage == 0 || salt.isEmpty
        else { return nil }
        var record = DeviceKeyRecord(
            keyID: keyID, userID: userID, username: username, origin: origin, realm: realm,
            algorithm: DeviceKeyAlgorithm.allCases[algorithm], authentication: DeviceAuthenticationType.allCases[authentication],
            created: created, pinSalt: salt, sealedKey: sealed)
        record.storage = DeviceKeyStorage.allCases[storage]
        return record
    }
}

/// The private key inside a record: as it is, or sealed under a PIN (Argon2id, then
/// XChaCha20-Poly1305 with the key id as associated data). A wrong PIN opens nothing and changes
/// nothing: the record stays as it was.
package enum DevicePIN {
    /// The PIN's gate: 4 to 64 bytes of printable UTF-8.
    package static func check(_ pin: [UInt8]) -> Bool {
        guard (4...64).contains(pin.count), let text = String(validating: pin, as: UTF8.self) else { return false }
        return !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    package static func associatedData(_ keyID: String) -> [UInt8] { Array("pingcli device key PIN\u{0}\(keyID)".utf8) }

    /// `privateKey` sealed under `pin`: (salt, nonce + ciphertext); nil when Argon2id cannot run.
    package static func seal(_ privateKey: [UInt8], pin: [UInt8], keyID: String) -> (salt: [UInt8], sealed: [UInt8])? {
        let salt = Sodium.randomBytes(Sodium.passwordSaltLength)
        guard var key = Sodium.passwordKey(pin, salt: salt) else { return nil }
        defer { Sodium.wipe(&key) }
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        return (salt, nonce + Sodium.seal(plaintext: privateKey, associatedData: associatedData(keyID), nonce: nonce, key: key))
    }

    /// The private key of `record` with `pin`; nil when the PIN is wrong.
    package static func open(_ record: DeviceKeyRecord, pin: [UInt8]) -> [UInt8]? {
        guard record.sealedKey.count > Sodium.aeadNonceLength, var key = Sodium.passwordKey(pin, salt: record.pinSalt) else { return nil }
        defer { Sodium.wipe(&key) }
        let nonce = Array(record.sealedKey.prefix(Sodium.aeadNonceLength))
        return Sodium.open(
            ciphertext: Array(record.sealedKey.dropFirst(Sodium.aeadNonceLength)), associatedData: associatedData(record.keyID),
            nonce: nonce, key: key)
    }
}
