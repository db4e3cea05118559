import PingAuthenticators
import PingBase
import PingOTP

/// Where a failure of the OTP store gets its words: `OTPStore` throws `OTPStoreFailure` with the facts,
/// and this is the one place that turns it into the line the user reads, with its rule, its exit status
/// and the next step ("pingcli otp add").
extension OTPStoreFailure {
    package var cliError: PingCLIError {
        switch self {
        case .file(let failure): failure.cliError
        case .tpm(let failure): failure.cliError
        case .seal(let failure): failure.cliError
        case .notAStore(let file):
            .failure("\(file) is not a pingcli OTP store: move it away (its accounts are lost) and add them again", rule: .otpStoreDamaged)
        case .unknownFormat(let file, let version):
            .failure("\(file) has OTP store format \(version), which this pingcli cannot read: upgrade pingcli", rule: .otpStoreVersion)
        case .tampered(let file):
            .failure(
                "OTP store \(file) cannot be decrypted: it was modified, or encrypted under another cache key (a copied home, or a key store changed outside pingcli)",
                rule: .otpStoreTampered)
        case .recordsDamaged(let file): .failure("OTP store \(file) decrypted but its records are damaged", rule: .otpStoreDamaged)
        case .generationDamaged(let path):
            .failure(
                "\(path) is damaged (it must hold one number): remove it and run the pingcli otp command again (a store restored from a backup is then read again: check its HOTP counters)",
                rule: .generationDamaged)
        case .rolledBack(let file, let stored, let recorded):
            .failure(
                "OTP store \(file) is older than the last one pingcli wrote (generation \(stored), recorded \(recorded)): it was restored from a backup or a sync, and its HOTP counters could hand out codes already used, so no code comes from it: put the newest copy back, or move it away and add the accounts again (pingcli otp add)",
                rule: .otpStoreRolledBack)
        }
    }
}

/// Where a caller that words its failures now runs an OTP store call: an `OTPStoreFailure` becomes its
/// line (`OTPStoreFailure.cliError`). The store has one method per operation; there is no worded twin.
package enum OTPStoreAdvice {
    @inlinable
    package static func worded<T>(_ body: @autoclosure () throws(OTPStoreFailure) -> T) throws(PingCLIError) -> T {
        do { return try body() } catch { throw error.cliError }
    }
}
