import PingBase
import PingPlatform
import PingState

/// Why the OTP store (`OTPStore`) was not read or written, with the facts; the line the user reads, with
/// its next step, is made once in PingFlowCore (`OTPStoreFailure.cliError`).
package enum OTPStoreFailure: Error, Sendable, Equatable {
    /// A file of the store that could not be used, or its lock.
    case file(FileFailure)
    /// The TPM the store is sealed to failed.
    case tpm(TPMFailure)
    /// The TPM's seal of the store did not open (none reachable, its file missing, foreign or damaged).
    case seal(SealedFailure)
    /// The store `file` is not a pingcli OTP store.
    case notAStore(file: String)
    /// The store `file` has format `version`, newer than this pingcli reads.
    case unknownFormat(file: String, version: UInt8)
    /// The store `file` does not decrypt under the key.
    case tampered(file: String)
    /// The store `file` decrypted, but its records are damaged.
    case recordsDamaged(file: String)
    /// The record of the generation (`otp-generation`) at `path` does not hold one number.
    case generationDamaged(path: String)
    /// The store `file` has generation `stored`, older than the `recorded` one: restored from a backup or a sync.
    case rolledBack(file: String, stored: UInt64, recorded: UInt64)

    package init(_ failure: SealedFailure) {
        switch failure {
        case .file(let failure): self = .file(failure)
        case .tpm(let failure): self = .tpm(failure)
        default: self = .seal(failure)
        }
    }

    /// `body`, its failure as the OTP store's.
    package static func sealed<T>(_ body: () throws(SealedFailure) -> T) throws(OTPStoreFailure) -> T {
        do { return try body() } catch { throw OTPStoreFailure(error) }
    }

    /// `body`, its file failure as `.file`.
    package static func file<T>(_ body: () throws(FileFailure) -> T) throws(OTPStoreFailure) -> T {
        do { return try body() } catch { throw .file(error) }
    }
}
