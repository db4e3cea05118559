import PingBase
import PingState

/// Why the OTP store (`OTPStore`) was not read or written, with the facts; the line the user reads, with
/// its next step, is made once in PingFlowCore (`OTPStoreFailure.cliError`).
package enum OTPStoreFailure: Error, Sendable, Equatable {
    /// Worded already: the file system, the lock, the TPM's seal, a store that is damaged or not one.
    case system(PingCLIError)
    /// The TPM the store is sealed to failed.
    case tpm(TPMFailure)
    /// The record of the generation (`otp-generation`) at `path` does not hold one number.
    case generationDamaged(path: String)
    /// The store `file` has generation `stored`, older than the `recorded` one: restored from a backup or a sync.
    case rolledBack(file: String, stored: UInt64, recorded: UInt64)

    package init(_ failure: SealedFailure) {
        switch failure {
        case .system(let error): self = .system(error)
        case .tpm(let failure): self = .tpm(failure)
        }
    }

    /// `body`, its failure as the OTP store's.
    package static func sealed<T>(_ body: () throws(SealedFailure) -> T) throws(OTPStoreFailure) -> T {
        do { return try body() } catch { throw OTPStoreFailure(error) }
    }

    /// `body`, its worded failure as `.system`.
    package static func system<T>(_ body: () throws(PingCLIError) -> T) throws(OTPStoreFailure) -> T {
        do { return try body() } catch { throw .system(error) }
    }
}
