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
        case .file(let failure): return failure.cliError
        case .tpm(let failure): return failure.cliError
        case .tctiRefused:
            return .usage(
                "TPM2TOOLS_TCTI is not a TCTI configuration (printable ASCII such as swtpm:host=127.0.0.1,port=2321): fix or unset it",
                rule: rule)
        default: return .failure(message, rule: rule)
        }
    }

    /// One line for a seal or a record that did not open: what happened and what to do next.
    private var message: String {
        switch self {
        case .noTPM(let doing):
            "cannot \(doing): it is sealed to a TPM, and none is reachable here (TPM2TOOLS_TCTI is unset and there is no /dev/tpmrm0 this user can open): set TPM2TOOLS_TCTI to the TPM that sealed it (a copy of the home without that TPM reads nothing)"
        case .sealMissing(let doing, let file):
            "cannot \(doing): it is sealed to a TPM, and \(file), which holds the TPM's sealed key, is missing: put it back (the secrets cannot be read without it)"
        case .sealNotPingcli(let file):
            "\(file) is not a pingcli TPM seal of this version: put the original back (what it protects cannot be read without it)"
        case .sealForeign(let doing, let access, let file):
            "cannot \(doing): \(access.name) does not unseal \(file): it was sealed by another TPM (a copied home, or a cleared TPM), so nothing under it can be read here"
        case .sealDamaged(let doing, let file):
            "cannot \(doing): \(file) is damaged: put the original back (what it protects cannot be read without it)"
        case .recordNotPingcli(let kind, let path):
            "\(path) is not a pingcli \(kind.noun) of this version: remove it and \(kind == .deviceKey ? "bind the device again" : "register the passkey again")"
        case .recordTampered(let kind, let path):
            "\(kind.noun) \(path) cannot be decrypted: it was modified, or encrypted under another cache key (a copied home, or a key store changed outside pingcli)"
        case .recordDamaged(let kind, let path):
            "\(kind.noun) \(path) decrypted but its record is damaged: remove it and \(kind == .deviceKey ? "bind again" : "register again")"
        case .recordExists(let kind, let id):
            "a \(kind.noun) with id \(id) exists already: \(kind == .deviceKey ? "bind again" : "register again")"
        case .file, .tpm, .tctiRefused: ""
        }
    }
}

extension SealedRecordKind {
    /// "device key", "passkey".
    package var noun: String {
        switch self {
        case .deviceKey: "device key"
        case .passkey: "passkey"
        }
    }
}

/// Where a caller that words its failures now (a command, a flow) runs a call to a sealed record store
/// (device keys, passkeys): a `SealedFailure` becomes its line (`SealedFailure.cliError`), as
/// `StoreAdvice.worded` does for the token store. The stores have one method per operation, throwing the
/// facts; there is no worded twin of each.
package enum SealedAdvice {
    @inlinable
    package static func worded<T>(_ body: @autoclosure () throws(SealedFailure) -> T) throws(PingCLIError) -> T {
        do { return try body() } catch { throw error.cliError }
    }

    /// A `readAll`, worded: the records that decrypt, and one line for each that does not.
    package static func all<Record>(
        _ body: @autoclosure () throws(SealedFailure) -> (records: [Record], failures: [SealedFailure])
    ) throws(PingCLIError) -> (records: [Record], failures: [PingCLIError]) {
        let (records, failures) = try worded(body())
        return (records, failures.map(\.cliError))
    }
}
