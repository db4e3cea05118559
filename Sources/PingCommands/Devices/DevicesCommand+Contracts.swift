import PingAuthenticators
import PingBase
import PingState

/// What `devices` keeps in common with the older commands: a key id may be shortened (as git takes a
/// commit's), and `--json` follows docs/json.md (a `version`, RFC 3339 times, snake_case values, every key
/// always present).
extension DevicesCommand {
    /// The fewest characters of a key id that name it: 8, a UUID's first group.
    package static let shortestKeyIDPrefix = 8

    /// The key id `typed` names: a whole key id, or the start (8 characters or more) of exactly one key id
    /// on this machine. Only a key id's own characters are taken, so nothing typed reaches a path.
    package static func keyID(_ typed: String, store: DeviceKeyStore, passkeys: PasskeyStore? = nil) throws(PingCLIError) -> String {
        if DeviceKeyStore.isKeyID(typed) { return typed }
        let template = "00000000-0000-0000-0000-000000000000"
        let completed = typed + template.dropFirst(min(typed.count, template.count))
        guard typed.count >= shortestKeyIDPrefix, typed.count < template.count, DeviceKeyStore.isKeyID(completed) else {
            throw .usage(
                "\"\(displaySafe(typed, limit: 60))\" is not a device key id (a UUID, or its first \(shortestKeyIDPrefix) characters or more): pingcli devices lists them",
                rule: .deviceKeyId)
        }
        let matches = (store.ids() + (passkeys?.ids() ?? [])).filter { $0.startsWithText(typed) }
        guard matches.count <= 1 else {
            throw .usage(
                "\(typed) starts \(matches.count) device key ids (\(matches.joined(separator: ", "))): give more of the key id",
                rule: .deviceKeyAmbiguous)
        }
        guard let match = matches.first else {
            throw .failure("no device key starting \(typed) on this machine: pingcli devices lists them", rule: .deviceKeyUnknown)
        }
        return match
    }

    /// One key for `devices --json` (docs/json.md, version 1).
    package static func jsonObject(_ record: DeviceKeyRecord) -> JSONValue {
        .object([
            "version": .number(1), "key_id": .string(record.keyID), "user_id": .string(record.userID),
            "username": .string(record.username), "origin": .string(record.origin), "realm": .string(record.realm),
            "algorithm": .string(record.algorithm.rawValue), "authentication_type": .string(record.authentication.rawValue.lowercased()),
            "pin": .bool(record.hasPIN), "storage": .string(record.storage.rawValue),
            "bound_at": .string(formatUTC(Double(record.created))), "kind": .string("binding"), "rp_id": .null, "credential_id": .null,
        ])
    }
}
