import PingAuthenticators
import PingBase
import PingCommandLine
import PingCrypto
import PingFlowCore
import PingJourney
import PingLogin
import PingOAuth
import PingPlatform
import PingState

/// `pingcli devices [--json]` and `pingcli devices remove KEY_ID`: the keys journeys bound on this machine
/// (Device Binding nodes), never their private part.
package enum DevicesCommand {
    /// `devices`' options (no `--profile`: the keys are the machine's).
    package enum Option: String, OptionName {
        case json, verbose, help
    }

    package static let specs: [OptionSpec] = [
        OptionSpec(Option.json, help: "list: JSON for programs"),
        OptionSpec(Option.verbose, help: "remove: describe each request to AM on stderr (never the session or a key)"),
        OptionSpec(Option.help, help: "show this help"),
    ]

    /// `devices`' operations (none given: the list).
    package enum Operation: String, CommandOperation {
        case remove

        package static func unknown(_ operand: String?) -> PingCLIError {
            .usage(
                "unknown devices operation \"\(displaySafe(operand ?? "", limit: 40))\": use pingcli devices, or devices remove KEY_ID",
                rule: .commandOperand)
        }
    }

    package static let help = helpText(
        usage: "pingcli devices [--json] | devices remove KEY_ID",
        summary: """
            The keys PingAM journeys bound on this machine (a tree's Device Binding step) and the passkeys its
            TPM holds (a WebAuthn Registration step; KIND says which): for each, the user,
            the AM origin and realm, the key id, the algorithm, how it is unlocked and where it lives, and when
            it was bound. The private keys are kept encrypted under the token cache's key (and a PIN where the
            tree asked for one), never printed. `remove KEY_ID` deletes one key from this machine, and AM's
            record of it too when a profile holds an AM session for that AM and realm that AM still takes
            (the session a journey left; it goes only to that AM). Otherwise AM keeps its copy of the public
            key until an administrator or the person removes it there. KEY_ID may be its first 8 characters or
            more when no other key id starts with them.
            """,
        specs: specs)

    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let operands = arguments.filter { !$0.hasPrefix("-") }
        let parsed = try parseOptions(arguments.filter { $0.hasPrefix("-") }, specs: specs, command: "devices")
        if parsed.flag(Option.help) { return context.console.help(help) }
        var context = context
        if parsed.flag(Option.verbose) { context.transportOptions.trace = { [console = context.console] line in console.err(line) } }
        let store = DeviceKeyStore(paths: context.store.paths, tpm: context.tpm)
        var operation: Operation?
        if let operand = operands.first { operation = try Operation.named(operand) }
        switch operation {
        case nil:
            try list(
                store, passkeys: PasskeyStore(paths: context.store.paths, tpm: context.tpm), json: parsed.flag(Option.json),
                context: context)
        case .remove:
            guard !parsed.flag(Option.json) else { throw .usage("--json does not apply to pingcli devices remove", rule: .commandOperand) }
            guard operands.count == 2 else {
                throw .usage("pingcli devices remove needs one key id: see pingcli devices", rule: .commandOperand)
            }
            let passkeys = PasskeyStore(paths: context.store.paths, tpm: context.tpm)
            let id = try keyID(operands[1], store: store, passkeys: passkeys)
            if passkeys.ids().contains(id) { return try removePasskey(id, store: passkeys, context: context) }
            try remove(id, store: store, context: context)
        }
    }

    package static func list(_ store: DeviceKeyStore, passkeys: PasskeyStore, json: Bool, context: CommandContext) throws(PingCLIError) {
        var records: [DeviceKeyRecord] = []
        if !store.ids().isEmpty {
            let cacheKey = try context.store.commandKey().get()
            let found = try SealedAdvice.all(store.readAll(key: cacheKey))
            for failure in found.failures { context.console.err("pingcli: \(failure.message)") }
            records = found.records
        }
        defer { for index in records.indices { Sodium.wipe(&records[index].sealedKey) } }
        let keys = try passkeyRecords(passkeys, context: context)
        if json { return context.console.out(JSONValue.array(records.map(jsonObject) + keys.map(jsonObject)).rendered(pretty: true)) }
        guard !records.isEmpty || !keys.isEmpty else {
            return context.console.err(
                "No device keys on this machine, and no passkeys. A journey with a Device Binding or WebAuthn Registration step makes one (pingcli login --journey TREE)."
            )
        }
        let rows =
            [["KEY ID", "KIND", "USER", "AM", "ALG", "UNLOCK", "WHERE", "BOUND"]]
            + records.map { record in
                [
                    record.keyID, "binding", displaySafe(record.username.isEmpty ? record.userID : record.username, limit: 60),
                    displaySafe(record.origin + " " + record.realm, limit: 100), record.algorithm.rawValue,
                    record.hasPIN ? "PIN" : "none", Self.where(record),
                    formatUTC(Double(record.created)),
                ]
            } + keys.map(row)
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let cells = row.enumerated().map { $1 + String(repeating: " ", count: widths[$0] - $1.count) }
            context.console.out(cells.joined(separator: "  ").trimmingWhitespace)
        }
    }

    package static func `where`(_ record: DeviceKeyRecord) -> String {
        switch (record.storage, record.hasPIN) {
        case (.tpm, true): return "TPM (PIN)"
        case (.tpm, false): return "TPM"
        case (.software, true): return "software (cache key + PIN)"
        case (.software, false): return "software (cache key)"
        }
    }

    /// The local key removed whatever AM answers; AM's record first, while the key's user and AM are known.
    package static func remove(_ keyID: String, store: DeviceKeyStore, context: CommandContext) throws(PingCLIError) {
        guard DeviceKeyStore.isKeyID(keyID) else {
            throw .usage(
                "\"\(displaySafe(keyID, limit: 60))\" is not a device key id (a UUID): pingcli devices lists them", rule: .deviceKeyId)
        }
        guard FileSystem.exists(store.file(keyID)) else {
            throw .failure("no device key \(keyID) on this machine: pingcli devices lists them", rule: .deviceKeyUnknown)
        }
        let key = context.store.commandKey()
        // A record that does not open (damaged, another key) is still removed here; where AM is, is then unknown.
        var record = try? store.read(keyID, key: try key.get())
        defer { if record != nil { Sodium.wipe(&record!.sealedKey) } }
        let outcome = record.map { AMDeviceRemoval(context: context.forSession).remove($0, key: key) }
        guard try FileAdvice.worded(try store.remove(keyID)) else {
            throw .failure("no device key \(keyID) on this machine: pingcli devices lists them", rule: .deviceKeyUnknown)
        }
        let keeps = "AM keeps its copy of the public key until an administrator or you remove it there"
        let place = record.map { "\(displaySafe($0.origin, limit: 100)) (realm \(displaySafe($0.realm, limit: 100)))" } ?? "AM"
        switch outcome {
        case .removed(let profile)?:
            context.console.err(
                "Removed device key \(keyID) from this machine, and AM's record of it at \(place), with profile \(profile)'s AM session.")
        case .notAtAM?:
            context.console.err(
                "Removed device key \(keyID) from this machine. AM at \(place) holds no record of it (removed there already).")
        case .noSession?:
            context.console.err(
                "Removed device key \(keyID) from this machine. \(keeps): no profile holds an AM session for \(place) that AM still takes.")
        case .failed(let error)?:
            context.console.err("Removed device key \(keyID) from this machine. \(keeps): \(error.message).")
        case nil:
            context.console.err(
                "Removed device key \(keyID) from this machine. \(keeps) (its record did not open, so which AM is unknown).")
        }
    }
}
