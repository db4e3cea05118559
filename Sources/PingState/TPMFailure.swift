import PingBase
import PingCrypto

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

/// Why a record sealed to the TPM (`TPMSeal`, `DeviceKeyStore`) was not read or written: a failure
/// worded already (a file, a seal that is missing or damaged), or the TPM's own, worded in PingFlowCore.
package enum SealedFailure: Error, Sendable, Equatable {
    case system(PingCLIError)
    case tpm(TPMFailure)

    package var rule: Rule {
        switch self {
        case .system(let error): error.rule
        case .tpm(let failure): failure.rule
        }
    }

    /// `body`, its worded failure as `.system`.
    package static func system<T>(_ body: () throws(PingCLIError) -> T) throws(SealedFailure) -> T {
        do { return try body() } catch { throw .system(error) }
    }
}
