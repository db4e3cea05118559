import PingAM
import PingAuthenticators
import PingBase
import PingCrypto

/// Device binding and signing with a key held in this machine's TPM 2.0: the key is created inside the
/// TPM under its storage hierarchy and never leaves it; with a PIN, the PIN is the key's authorisation
/// value, which the TPM checks (a wrong one is counted against its dictionary-attack lockout, and the key
/// stays as it is).
extension JourneyPrompter {
    /// A new TPM key for `request`, its bind JWS; `record` gets the key's algorithm and the TPM's blob.
    package func bindInTPM(
        _ request: DeviceBindingRequest, tpm: TPM2.Session, access: TPM2.Access, pin: [UInt8], preferred: DeviceKeyAlgorithm?,
        record: inout DeviceKeyRecord
    ) throws(PingCLIError) -> String {
        guard let devices else { throw .failure("no device store for this journey: run pingcli login again", rule: .deviceSign) }
        let key: TPMDeviceKey
        do {
            key = try TPMDeviceKey.generate(session: tpm, pin: pin, preferring: preferred)
        } catch {
            if error == .unsupported, let preferred {
                let lacks = preferred == .es256 ? "ECC NIST P-256" : "RSA 2048 with SHA-512"
                throw .failure(
                    "cannot create the device key in the TPM: \(access.name) has no \(lacks) for PINGCLI_DEVICE_KEY_ALGORITHM=\(preferred.rawValue): unset it to use what the TPM has (pingcli does not fall back to a software key)",
                    rule: .tpmUnsupported)
            }
            throw error.cliError(access, doing: "create the device key in the TPM")
        }
        do {
            let jws = try DeviceJWS.bind(
                key: key, kid: record.keyID, userID: request.userID, issuer: devices.issuer, challenge: request.challenge,
                now: devices.clock(), timeout: Double(request.timeout), platform: "linux")
            record.algorithm = key.algorithm
            record.storage = .tpm
            record.sealedKey = key.blob
            return jws
        } catch {
            throw signFailure(key, access, record.keyID)
        }
    }

    /// The challenge signed in the TPM with `record`'s key, asking for its PIN when it has one (three
    /// tries; after three wrong ones the journey is told so). The TPM's lockout ends the sign-in with
    /// `tpm-lockout`.
    package func signInTPM(_ request: DeviceSigningRequest, record: DeviceKeyRecord) throws(PingCLIError) -> JourneyAnswer {
        guard let devices else { return JourneyDevices.unsupported }
        let (opened, access) = try devices.openTPM(doing: "sign with device key \(record.keyID)")
        guard let tpm = opened else {
            throw .failure(
                "device key \(record.keyID) lives in a TPM, and none is reachable here (TPM2TOOLS_TCTI is unset, no /dev/tpmrm0 this user can open): set TPM2TOOLS_TCTI to that TPM, or bind this machine again",
                rule: .tpmUnreachable)
        }
        let prompt = "PIN for device key \(record.keyID.prefix(8))"
        for _ in 1...(record.hasPIN ? 3 : 1) {
            if record.hasPIN { try neverLockOut(tpm, access, keyID: record.keyID) }
            var pin = record.hasPIN ? Array(try line(prompt, secret: true).utf8) : []
            defer { Sodium.wipe(&pin) }
            let key: TPMDeviceKey
            do {
                key = try TPMDeviceKey(session: tpm, blob: record.sealedKey, pin: pin)
            } catch {
                throw error.cliError(access, doing: "sign with device key \(record.keyID)")
            }
            do {
                let jws = try DeviceJWS.sign(
                    key: key, kid: record.keyID, userID: record.userID, issuer: devices.issuer, challenge: request.challenge,
                    now: devices.clock(), timeout: Double(request.timeout))
                console.err("pingcli: signed the challenge with device key \(record.keyID) in \(access.name).")
                return .device(jws: jws, deviceName: nil, deviceID: nil)
            } catch {
                guard case .authorizationFailed(let failures, let maximum)? = key.failure, record.hasPIN else {
                    throw signFailure(key, access, record.keyID)
                }
                let count = failures.map { f in maximum.map { ", \(f) of \($0) failures before it locks out" } ?? "" } ?? ""
                console.err("pingcli: the TPM refused that PIN (the key is kept\(count)).")
                if answers?.value(for: prompt) != nil { break }
            }
        }
        console.err("pingcli: the PIN was wrong: telling the journey so (the key is kept; pingcli login tries again).")
        restart.block("the device key's PIN tries are used up (the TPM counts each wrong one; the key is kept)")
        return JourneyDevices.unsupported
    }

    /// Never the PIN try that would put the TPM into dictionary-attack lockout (it would stop every key
    /// of every program on the machine): with the TPM one failure short of its limit, no PIN is asked.
    private func neverLockOut(_ tpm: TPM2.Session, _ access: TPM2.Access, keyID: String) throws(PingCLIError) {
        guard let (failures, maximum) = tpm.lockoutCounter(), maximum > 0, failures + 1 >= maximum else { return }
        // Already at the limit (lowered by its owner, or reached by another program): the TPM is locked out.
        if failures >= maximum { throw TPM2.Failure.lockout(interval: nil).cliError(access, doing: "sign with device key \(keyID)") }
        throw .failure(
            "\(access.name) has counted \(failures) of the \(maximum) wrong authorisations it allows: one more wrong PIN for device key \(keyID) would lock it out (every key of every program on this machine), so pingcli asks for none: not signed in; try again once the TPM has forgiven a failure",
            rule: .tpmLockoutNear)
    }

    private func signFailure(_ key: TPMDeviceKey, _ access: TPM2.Access, _ keyID: String) -> PingCLIError {
        guard let failure = key.failure else {
            return .failure("device key \(keyID) cannot sign: pingcli devices remove \(keyID), then bind again", rule: .deviceSign)
        }
        return failure.cliError(access, doing: "sign with device key \(keyID)")
    }
}
