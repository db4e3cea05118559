import PingBase
import PingCrypto
import PingPlatform

/// A TPM 2.0 failure (`TPM2.Failure`) with the TPM it came from and what could not be done (`doing`,
/// "open device key …"); the line the user reads, with its next step, is made once in PingFlowCore
/// (`TPMFailure.cliError`).
package struct TPMFailure: Error, Sendable, Equatable {
    package var failure: TPM2.Failure
    package var access: TPM2.Access
    package var doing: String

    package init(_ failure: TPM2.Failure, _ access: TPM2.Access, doing: String) {
        self.failure = failure
        self.access = access
        self.doing = doing
    }

    /// The rule the failure names (docs/security.md, "Failure rules").
    package var rule: Rule {
        switch failure {
        case .libraryMissing: .tpmLibraryMissing
        case .unreachable: .tpmUnreachable
        case .authorizationFailed: .devicePin
        case .lockout: .tpmLockout
        case .foreignBlob: .tpmKeyForeign
        case .damagedBlob: .deviceKeyDamaged
        case .unsupported: .tpmUnsupported
        case .failed: .tpmCommandFailed
        }
    }
}

/// Why a record sealed to the TPM (`TPMSeal`, `DeviceKeyStore`, `PasskeyStore`) was not read or
/// written, with the facts: a file, the TPM's own failure, the seal (`tpm-seal`) missing or not
/// opening, a record damaged; worded in PingFlowCore (`SealedFailure.cliError`).
package enum SealedFailure: Error, Sendable, Equatable {
    /// A file that could not be used.
    case file(FileFailure)
    case tpm(TPMFailure)
    /// `TPM2TOOLS_TCTI` is not a TCTI configuration.
    case tctiRefused
    /// Could not `doing`: the record is sealed to a TPM, and none is reachable here.
    case noTPM(doing: String)
    /// Could not `doing`: the seal `file` is missing.
    case sealMissing(doing: String, file: String)
    /// The seal `file` is not a pingcli TPM seal of this version.
    case sealNotPingcli(file: String)
    /// Could not `doing`: the TPM `access` names does not unseal `file` (sealed by another TPM).
    case sealForeign(doing: String, access: TPM2.Access, file: String)
    /// Could not `doing`: the seal `file` is damaged.
    case sealDamaged(doing: String, file: String)
    /// The record file `path` of `kind` is not one of this version.
    case recordNotPingcli(SealedRecordKind, path: String)
    /// The record file `path` of `kind` does not decrypt under the key.
    case recordTampered(SealedRecordKind, path: String)
    /// The record file `path` of `kind` decrypted, but its record is damaged.
    case recordDamaged(SealedRecordKind, path: String)
    /// A record of `kind` with `id` exists already.
    case recordExists(SealedRecordKind, id: String)

    package var rule: Rule {
        switch self {
        case .file(let failure): failure.rule
        case .tpm(let failure): failure.rule
        case .tctiRefused: .tpmTctiGate
        case .noTPM: .tpmSealed
        case .sealMissing, .sealNotPingcli, .sealDamaged: .tpmSealDamaged
        case .sealForeign: .tpmSealForeign
        case .recordNotPingcli, .recordDamaged, .recordExists: .deviceKeyDamaged
        case .recordTampered: .deviceKeyTampered
        }
    }

    /// `body`, its file failure as `.file`.
    package static func file<T>(_ body: () throws(FileFailure) -> T) throws(SealedFailure) -> T {
        do { return try body() } catch { throw .file(error) }
    }
}

/// What a sealed record holds: a bound device key or a passkey.
package enum SealedRecordKind: Sendable, Equatable {
    case deviceKey, passkey
}
