import Testing

@testable import PingBase
@testable import PingCrypto
@testable import PingFlows
@testable import PingState

/// The OTP store and the TPM throw typed failures with their facts (`OTPStoreFailure`); the line the
/// user reads, with its next step, is made once in PingFlows (`OTPStoreAdvice.swift`). These tables pin
/// each of those lines word for word, with its exit status and rule.
@Suite("state failure wording: the OTP store's and the TPM's, typed below, worded once at the top")
struct StateFailureWordingTests {
    @Test(
        "generation-damaged, otp-store-rolled-back: each OTP store failure is worded once, exit 1",
        arguments: [
            (
                OTPStoreFailure.generationDamaged(path: "/d/pingcli/otp-generation"),
                "/d/pingcli/otp-generation is damaged (it must hold one number): remove it and run the pingcli otp command again (a store restored from a backup is then read again: check its HOTP counters)",
                Rule.generationDamaged
            ),
            (
                .rolledBack(file: "/c/pingcli/otp/accounts.enc", stored: 3, recorded: 5),
                "OTP store /c/pingcli/otp/accounts.enc is older than the last one pingcli wrote (generation 3, recorded 5): it was restored from a backup or a sync, and its HOTP counters could hand out codes already used, so no code comes from it: put the newest copy back, or move it away and add the accounts again (pingcli otp add)",
                .otpStoreRolledBack
            ),
            (
                .system(.failure("OTP store x decrypted but its records are damaged", rule: .otpStoreDamaged)),
                "OTP store x decrypted but its records are damaged", .otpStoreDamaged
            ),
        ])
    func otpStore(_ failure: OTPStoreFailure, _ line: String, _ rule: Rule) {
        #expect(failure.cliError == PingCLIError(.failure, line, rule: rule))
    }
}
