import PingAM
import PingAuthenticators
import PingBase
import PingCrypto
import PingFlowCore
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// What a journey's device steps need: where bound keys are kept, the cache key that seals them, the
/// clock of the JWS's times, and how this machine names itself to AM.
package struct JourneyDevices {
    package var store: DeviceKeyStore
    package var key: CommandKey
    package var clock: WallClock
    /// The JWS's `iss`: the OAuth client's id (what an AM administrator lists in the node's
    /// "Application Ids").
    package var issuer: String
    /// Where the journey runs: keys are bound to, and chosen from, this AM origin and realm.
    package var origin: String
    package var realm: String
    /// `deviceName` ("pingcli on HOST") and the stable `deviceId` (the hashed machine id).
    package var deviceName: String
    package var deviceID: String
    /// The TPM keys are created in (`TPM2TOOLS_TCTI`, else the system default; none: software keys).
    package var tpm: TPM2.Access = .absent
    /// Where `PINGCLI_DEVICE_KEY_ALGORITHM` is read; unset: what the TPM supports (ES256 first), ES256 in
    /// software.
    package var environment: Environment = [:]

    /// The algorithm asked for, through its gate: nil when none is (unset or empty).
    package func preferredAlgorithm() throws(PingCLIError) -> DeviceKeyAlgorithm? {
        guard let text = environment["PINGCLI_DEVICE_KEY_ALGORITHM"]?.trimmingWhitespace, !text.isEmpty else { return nil }
        guard let chosen = DeviceKeyAlgorithm(rawValue: text) else {
            throw .usage(
                "PINGCLI_DEVICE_KEY_ALGORITHM must be ES256 or RS512, not \"\(displaySafe(text, limit: 20))\": fix or unset it",
                rule: .deviceKeyAlgorithm)
        }
        return chosen
    }

    /// The client error a tree branches on when this machine cannot bind or sign (the SDKs'
    /// `UnRegister` and `UnAuthorize` map to it too).
    package static let unsupported = JourneyAnswer.clientError("Unsupported")

    /// The TPM keys are created in, opened (nil: none, software keys), and the access it was opened
    /// through; a failure worded as what could not be done (`doing`).
    package func openTPM(doing: String) throws(PingCLIError) -> (TPM2.Session?, access: TPM2.Access) {
        let access: TPM2.Access
        do { access = try tpm.checked() } catch { throw error.cliError }
        do {
            return (try TPM2.open(access), access)
        } catch {
            throw error.cliError(access, doing: doing)
        }
    }

    package static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "this machine" }
        let name = displaySafe(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), limit: 64)
        return name.isEmpty ? "this machine" : name
    }
}

extension JourneyPrompter {
    /// A Device Binding step: a new key pair for the user, its JWS, this machine's name and id; the key
    /// kept sealed under the cache key (and a PIN when the tree asks for one).
    package func bind(_ request: DeviceBindingRequest) throws(PingCLIError) -> JourneyAnswer {
        guard let devices, let type = request.authenticationType, !request.challenge.isEmpty, !request.userID.isEmpty else {
            console.err("pingcli: this device binding step asks for something pingcli cannot do: telling the journey so.")
            return JourneyDevices.unsupported
        }
        showDeviceText(request.title, request.subtitle, request.description)
        let cacheKey = try devices.key.get(create: true)
        let preferred = try devices.preferredAlgorithm()
        var pin: [UInt8] = []
        defer { Sodium.wipe(&pin) }
        if type.needsPIN {
            if type != .applicationPIN {
                console.err("pingcli: this machine has no biometric sensor pingcli can use: a PIN of your choice protects the key instead.")
            }
            pin = try newPIN()
        }
        let (tpm, access) = try devices.openTPM(doing: "bind this machine")
        let keyID = DeviceKeyStore.newKeyID()
        var record = DeviceKeyRecord(
            keyID: keyID, userID: request.userID, username: request.username, origin: devices.origin, realm: devices.realm,
            algorithm: .es256, authentication: type, created: UInt64(max(0, devices.clock())), pinSalt: [], sealedKey: [])
        defer { Sodium.wipe(&record.sealedKey) }
        let jws: String
        if let tpm {
            jws = try bindInTPM(request, tpm: tpm, access: access, pin: pin, preferred: preferred, record: &record)
        } else {
            guard let signed = try bindInSoftware(request, pin: pin, algorithm: preferred ?? .es256, record: &record) else {
                return JourneyDevices.unsupported
            }
            jws = signed
        }
        let sealed = try SealedAdvice.worded(devices.store.create(record, key: cacheKey, session: tpm))
        // Keys bound before a TPM was reachable are sealed to it now, as this one is.
        if sealed { _ = try SealedAdvice.worded(devices.store.sealAll(key: cacheKey, session: tpm)) }
        let who = displaySafe(request.username.isEmpty ? request.userID : request.username, limit: 80)
        let algorithm =
            switch (record.storage, record.algorithm) {
            case (.tpm, .es256): "ES256, the TPM's ECC NIST P-256"
            case (.tpm, .rs512) where preferred == .rs512: "RS512, the TPM's RSA 2048 with SHA-512, as PINGCLI_DEVICE_KEY_ALGORITHM asks"
            case (.tpm, .rs512): "RS512, the TPM's RSA 2048 with SHA-512: it has no P-256"
            case (.software, .rs512) where preferred == .rs512: "RS512, RSA 2048 with SHA-512, as PINGCLI_DEVICE_KEY_ALGORITHM asks"
            case (.software, let algorithm): algorithm.rawValue
            }
        let note =
            record.storage == .tpm
            ? " (\(access.name)); only the TPM's wrapped blob is on disk"
            : "; no TPM is used (none is reachable: TPM2TOOLS_TCTI is unset and there is no /dev/tpmrm0 this user can open)"
        console.err("pingcli: bound this machine for \(who): key \(keyID) (\(algorithm)) lives in \(record.place)\(note).")
        return .device(jws: jws, deviceName: devices.deviceName, deviceID: devices.deviceID)
    }

    /// A software key (libcrypto), its DER sealed under the cache key (and the PIN); nil when libcrypto
    /// cannot make one.
    private func bindInSoftware(
        _ request: DeviceBindingRequest, pin: [UInt8], algorithm: DeviceKeyAlgorithm, record: inout DeviceKeyRecord
    ) throws(PingCLIError)
        -> String?
    {
        guard let devices, let generated = SoftwareDeviceKey.generate(algorithm) else {
            console.err("pingcli: cannot make a key pair (OpenSSL's libcrypto.so.3 cannot be loaded): telling the journey so.")
            return nil
        }
        var privateKey = generated.privateKey
        defer { Sodium.wipe(&privateKey) }
        let jws: String
        do {
            jws = try DeviceJWS.bind(
                key: generated, kid: record.keyID, userID: request.userID, issuer: devices.issuer, challenge: request.challenge,
                now: devices.clock(), timeout: Double(request.timeout), platform: "linux")
        } catch {
            throw .failure("cannot sign the device binding with the new key: run pingcli login again", rule: .deviceSign)
        }
        record.algorithm = generated.algorithm
        record.sealedKey = privateKey
        if !pin.isEmpty {
            guard let (salt, sealed) = DevicePIN.seal(privateKey, pin: pin, keyID: record.keyID) else {
                throw .failure("cannot derive a key from the PIN (Argon2id needs 64 MiB of memory): try again", rule: .devicePin)
            }
            (record.pinSalt, record.sealedKey) = (salt, sealed)
        }
        return jws
    }

    /// A Device Signing Verifier step: the challenge signed with the key bound for the user (or, with no
    /// user yet, the key the person picks); no key: the client error, and one line why.
    package func sign(_ request: DeviceSigningRequest) throws(PingCLIError) -> JourneyAnswer {
        guard let devices, !request.challenge.isEmpty else {
            console.err("pingcli: this device signing step asks for something pingcli cannot do: telling the journey so.")
            return JourneyDevices.unsupported
        }
        showDeviceText(request.title, request.subtitle, request.description)
        let cacheKey = try devices.key.get(create: false)
        let (all, failures) = try SealedAdvice.all(devices.store.readAll(key: cacheKey))
        for failure in failures { console.err("pingcli: skipping a device key: \(failure.message)") }
        let here = all.filter { $0.origin == devices.origin && $0.realm == devices.realm }
        let candidates = request.userID.isEmpty ? here : here.filter { $0.userID == request.userID }
        guard !candidates.isEmpty else {
            let whom = request.userID.isEmpty ? "anyone" : "this user"
            console.err(
                "pingcli: no key is bound on this machine for \(whom) at \(displaySafe(devices.origin, limit: 100)): telling the journey so (a journey with a Device Binding step binds one)."
            )
            return JourneyDevices.unsupported
        }
        let record = try choose(candidates, usernameless: request.userID.isEmpty)
        if record.storage == .tpm { return try signInTPM(request, record: record) }
        guard var privateKey = try unlock(record) else { return JourneyDevices.unsupported }
        defer { Sodium.wipe(&privateKey) }
        do {
            let jws = try DeviceJWS.sign(
                key: SoftwareDeviceKey(algorithm: record.algorithm, privateKey: privateKey), kid: record.keyID, userID: record.userID,
                issuer: devices.issuer, challenge: request.challenge, now: devices.clock(), timeout: Double(request.timeout))
            console.err("pingcli: signed the challenge with device key \(record.keyID).")
            return .device(jws: jws, deviceName: nil, deviceID: nil)
        } catch {
            throw .failure(
                "device key \(record.keyID) cannot sign (OpenSSL's libcrypto.so.3 is missing, or the key is damaged): pingcli devices remove \(record.keyID), then bind again",
                rule: .deviceSign)
        }
    }

    /// One of the keys: for a known user the newest; usernameless, the person's choice when there are several.
    private func choose(_ records: [DeviceKeyRecord], usernameless: Bool) throws(PingCLIError) -> DeviceKeyRecord {
        try chooseNewest(records, usernameless: usernameless, order: { ($0.created, $0.keyID) }) { record in
            "\(displaySafe(record.username.isEmpty ? record.userID : record.username, limit: 80)) (key \(record.keyID.prefix(8)), bound \(formatUTC(Double(record.created))))"
        }
    }

    /// Of a user's credentials (device keys, passkeys) non-empty `records`: for a known user the newest by
    /// `order` (creation time, then id); usernameless, the person's choice, newest first, when there are several.
    func chooseNewest<Record>(
        _ records: [Record], usernameless: Bool, order: (Record) -> (UInt64, String), label: (Record) -> String
    ) throws(PingCLIError) -> Record {
        let newestFirst = records.sorted { order($0) > order($1) }
        guard usernameless, newestFirst.count > 1 else { return newestFirst[0] }
        return newestFirst[try menu("Sign in as", newestFirst.map(label), 0)]
    }

    /// The private key of `record`, asking for its PIN (three tries); nil after three wrong ones. A wrong
    /// PIN changes nothing: the key stays as it is.
    private func unlock(_ record: DeviceKeyRecord) throws(PingCLIError) -> [UInt8]? {
        guard record.hasPIN else { return record.sealedKey }
        for attempt in 1...3 {
            var pin = Array(try line("PIN for device key \(record.keyID.prefix(8))", secret: true).utf8)
            defer { Sodium.wipe(&pin) }
            if let privateKey = DevicePIN.open(record, pin: pin) { return privateKey }
            console.err("pingcli: that PIN does not unlock the key (\(3 - attempt) tries left; the key is kept).")
            if answers?.value(for: "PIN for device key \(record.keyID.prefix(8))") != nil { break }
        }
        console.err("pingcli: the PIN was wrong: telling the journey so (the key is kept; pingcli login tries again).")
        restart.block("the device key's PIN tries are used up (the key is kept; run pingcli login again)")
        return nil
    }

    /// A new PIN for `what` ("device key", "passkey"), typed twice without echo and checked (4 to 64
    /// characters); three tries on a terminal, one from an answers file.
    func newPIN(for what: String = "device key") throws(PingCLIError) -> [UInt8] {
        for _ in 0..<3 {
            var first = Array(try line("Choose a PIN for this \(what)", secret: true).utf8)
            guard DevicePIN.check(first) else {
                Sodium.wipe(&first)
                console.err("pingcli: a PIN is 4 to 64 characters, no control characters")
                if answers != nil { break }
                continue
            }
            var second = Array(try line("Repeat the PIN", secret: true).utf8)
            defer { Sodium.wipe(&second) }
            if second == first { return first }
            Sodium.wipe(&first)
            console.err("pingcli: the two PINs differ")
            if answers != nil { break }
        }
        throw .usage("no PIN was chosen for the \(what): run pingcli login again", rule: .devicePin)
    }

    private func showDeviceText(_ texts: String...) {
        for text in texts { say(text, .information) }
    }
}
