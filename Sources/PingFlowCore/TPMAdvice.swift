import PingAuthenticators
import PingBase
import PingCrypto
import PingState

// Where a failure of the TPM gets its words: PingState throws `TPMFailure` (the TPM's `TPM2.Failure`,
// which TPM, what could not be done) and `SealedFailure`, and this is the one place that turns them
// into the line the user reads, with its rule, its exit status and the next step.

extension TPMFailure {
    /// The failure in one line with its rule: what happened and what to do next.
    package var cliError: PingCLIError { PingCLIError(.failure, message, rule: rule) }

    private var message: String {
        let tpm = access.name
        switch failure {
        case .libraryMissing:
            return
                "cannot \(doing): tpm2-tss is not installed (libtss2-esys.so.0, libtss2-tctildr.so.0): apt-get install libtss2-esys-3.0.2-0 libtss2-tctildr0, or unset TPM2TOOLS_TCTI"
        case .unreachable(let code):
            return
                "cannot \(doing): \(tpm) does not answer (\(TPMFailure.hex(code))): start it or fix TPM2TOOLS_TCTI (pingcli does not fall back to a software key)"
        case .authorizationFailed(let failures, let maximum):
            let count = failures.map { f in maximum.map { "; \(f) of \($0) failures before the TPM locks out" } ?? "" } ?? ""
            return "cannot \(doing): \(tpm) refused the PIN\(count): run pingcli login again with the right PIN"
        case .lockout(let interval):
            let wait = interval.map { " (it forgives one failure every \($0) s)" } ?? ""
            return
                "cannot \(doing): \(tpm) is in dictionary-attack lockout after too many wrong PINs\(wait): wait, or have its owner run tpm2_dictionarylockout --clear-lockout"
        case .foreignBlob:
            return
                "cannot \(doing): \(tpm) does not load this key: it was made by another TPM (a copied home, or a cleared TPM): pingcli devices remove it, then bind again"
        case .damagedBlob:
            return "cannot \(doing): the TPM key blob is damaged: pingcli devices remove it, then bind again"
        case .unsupported:
            return "cannot \(doing): \(tpm) has neither ECC P-256 nor RSA 2048 with SHA-512: unset TPM2TOOLS_TCTI to use another TPM"
        case .failed(let operation, let code):
            return "cannot \(doing): \(operation) failed in \(tpm) (\(TPMFailure.hex(code))): see tpm2_rc_decode \(TPMFailure.hex(code))"
        }
    }

    package static func hex(_ code: UInt32) -> String { "0x" + String(code, radix: 16) }
}

extension TPM2.Failure {
    /// The failure in one line with its rule, for the TPM `access` names, when `doing` failed.
    package func cliError(_ access: TPM2.Access, doing: String) -> PingCLIError {
        TPMFailure(self, access, doing: doing).cliError
    }
}

extension SealedFailure {
    package var cliError: PingCLIError {
        switch self {
        case .system(let error): error
        case .tpm(let failure): failure.cliError
        }
    }
}

extension DeviceKeyStore {
    /// `create`, its failure worded. Whether the record was sealed to the TPM.
    @discardableResult
    package func add(_ record: DeviceKeyRecord, key: [UInt8], session: TPM2.Session? = nil) throws(PingCLIError) -> Bool {
        do { return try create(record, key: key, session: session) } catch { throw error.cliError }
    }

    /// `sealAll`, its failure worded. How many records were sealed.
    @discardableResult
    package func sealUnsealed(key: [UInt8], session: TPM2.Session? = nil) throws(PingCLIError) -> Int {
        do { return try sealAll(key: key, session: session) } catch { throw error.cliError }
    }

    /// `read`, its failure worded.
    package func load(_ keyID: String, key: [UInt8]) throws(PingCLIError) -> DeviceKeyRecord? {
        do { return try read(keyID, key: key) } catch { throw error.cliError }
    }

    /// `readAll`, its failures worded.
    package func all(key: [UInt8]) throws(PingCLIError) -> (records: [DeviceKeyRecord], failures: [PingCLIError]) {
        do {
            let (records, failures) = try readAll(key: key)
            return (records, failures.map(\.cliError))
        } catch {
            throw error.cliError
        }
    }
}

extension PasskeyStore {
    /// `create`, its failure worded.
    package func add(_ record: PasskeyRecord, key: [UInt8], session: TPM2.Session?) throws(PingCLIError) {
        do { try create(record, key: key, session: session) } catch { throw error.cliError }
    }

    /// `update`, its failure worded.
    package func save(_ record: PasskeyRecord, key: [UInt8], session: TPM2.Session?) throws(PingCLIError) {
        do { try update(record, key: key, session: session) } catch { throw error.cliError }
    }

    /// `readAll`, its failures worded.
    package func all(key: [UInt8]) throws(PingCLIError) -> (records: [PasskeyRecord], failures: [PingCLIError]) {
        do {
            let (records, failures) = try readAll(key: key)
            return (records, failures.map(\.cliError))
        } catch {
            throw error.cliError
        }
    }
}
