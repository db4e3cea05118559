import PingAuthenticators
import PingBase
import PingCrypto
import PingFlowCore
import PingJourney
import PingLogin
import PingState

/// `devices` for passkeys: this machine's TPM's WebAuthn credentials beside the bound device keys, and
/// their removal here and at AM (its WebAuthn device record, found by credential id).
extension DevicesCommand {
    static func passkeyRecords(_ store: PasskeyStore, context: CommandContext) throws(PingCLIError) -> [PasskeyRecord] {
        guard !store.ids().isEmpty else { return [] }
        let cacheKey = try context.store.commandKey().get()
        var found = try SealedAdvice.all(store.readAll(key: cacheKey))
        for failure in found.failures { context.console.err("pingcli: \(failure.message)") }
        for index in found.records.indices { Sodium.wipe(&found.records[index].blob) }
        return found.records
    }

    static func row(_ record: PasskeyRecord) -> [String] {
        [
            record.id, "passkey", displaySafe(record.userName.isEmpty ? record.displayName : record.userName, limit: 60),
            displaySafe(record.origin + " " + record.realm + " (RP id " + record.rpID + ")", limit: 140), "ES256", "PIN", "TPM (PIN)",
            formatUTC(Double(record.created)),
        ]
    }

    /// One passkey for `devices --json` (docs/json.md): the device keys' keys, `kind` passkey, its RP id
    /// and credential id (base64url, as AM lists it).
    package static func jsonObject(_ record: PasskeyRecord) -> JSONValue {
        .object([
            "version": .number(1), "key_id": .string(record.id), "user_id": .string(String(decoding: record.userHandle, as: UTF8.self)),
            "username": .string(record.userName), "origin": .string(record.origin), "realm": .string(record.realm),
            "algorithm": .string("ES256"), "authentication_type": .string("application_pin"), "pin": .bool(true), "storage": .string("tpm"),
            "bound_at": .string(formatUTC(Double(record.created))), "kind": .string("passkey"), "rp_id": .string(record.rpID),
            "credential_id": .string(Base64URL.encode(record.credentialID)),
        ])
    }

    /// The passkey removed here whatever AM answers; AM's record first, while its user and AM are known.
    static func removePasskey(_ id: String, store: PasskeyStore, context: CommandContext) throws(PingCLIError) {
        let key = context.store.commandKey()
        var record: PasskeyRecord? = nil
        do { record = try store.read(id, key: try key.get()) } catch { record = nil }
        defer { if record != nil { Sodium.wipe(&record!.blob) } }
        let outcome = record.map { AMDeviceRemoval(context: context.forSession).remove(passkey: $0, key: key) }
        guard try FileAdvice.worded(try store.remove(id)) else {
            throw .failure("no passkey \(id) on this machine: pingcli devices lists them", rule: .deviceKeyUnknown)
        }
        let keeps = "AM keeps its record of the passkey until an administrator or you remove it there"
        let place = record.map { "\(displaySafe($0.origin, limit: 100)) (realm \(displaySafe($0.realm, limit: 100)))" } ?? "AM"
        let said =
            switch outcome {
            case .removed(let profile)?: ", and AM's record of it at \(place), with profile \(profile)'s AM session."
            case .notAtAM?: ". AM at \(place) holds no record of it (removed there already)."
            case .noSession?: ". \(keeps): no profile holds an AM session for \(place) that AM still takes."
            case .failed(let error)?: ". \(keeps): \(error.message)."
            case nil: ". \(keeps) (its record did not open, so which AM is unknown)."
            }
        context.console.err("Removed passkey \(id) from this machine\(said) Its key in the TPM can no longer be loaded by anyone.")
    }
}
