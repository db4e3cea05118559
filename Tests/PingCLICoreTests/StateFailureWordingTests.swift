import Testing

@testable import PingAuthenticators
@testable import PingBase
@testable import PingCrypto
@testable import PingPlatform
@testable import PingState

/// The OTP store and the TPM throw typed failures with their facts (`OTPStoreFailure`, `TPMFailure`,
/// `SealedFailure`); the line the user reads, with its next step, is made once in PingFlowCore
/// (`OTPStoreAdvice.swift`, `TPMAdvice.swift`). These tables pin
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
                .recordsDamaged(file: "x"), "OTP store x decrypted but its records are damaged", .otpStoreDamaged
            ),
        ])
    func otpStore(_ failure: OTPStoreFailure, _ line: String, _ rule: Rule) {
        #expect(failure.cliError == PingCLIError(.failure, line, rule: rule))
    }

    static let swtpm = TPM2.Access.system(tcti: "swtpm:host=127.0.0.1,port=2321")
    static let atSwtpm = "the TPM at TPM2TOOLS_TCTI=swtpm:host=127.0.0.1,port=2321"

    @Test(
        "tpm-*, device-pin, device-key-damaged: each TPM failure is worded once, naming the TPM and what could not be done, exit 1",
        arguments: [
            (
                TPM2.Failure.libraryMissing, TPM2.Access.absent,
                "cannot bind this machine: tpm2-tss is not installed (libtss2-esys.so.0, libtss2-tctildr.so.0): apt-get install libtss2-esys-3.0.2-0 libtss2-tctildr0, or unset TPM2TOOLS_TCTI",
                Rule.tpmLibraryMissing
            ),
            (
                .unreachable(code: 0xa000a), swtpm,
                "cannot bind this machine: \(atSwtpm) does not answer (0xa000a): start it or fix TPM2TOOLS_TCTI (pingcli does not fall back to a software key)",
                .tpmUnreachable
            ),
            (
                .authorizationFailed(failures: 2, maximum: 3), swtpm,
                "cannot bind this machine: \(atSwtpm) refused the PIN; 2 of 3 failures before the TPM locks out: run pingcli login again with the right PIN",
                .devicePin
            ),
            (
                .authorizationFailed(failures: nil, maximum: nil), .absent,
                "cannot bind this machine: this machine's TPM refused the PIN: run pingcli login again with the right PIN", .devicePin
            ),
            (
                .lockout(interval: 600), swtpm,
                "cannot bind this machine: \(atSwtpm) is in dictionary-attack lockout after too many wrong PINs (it forgives one failure every 600 s): wait, or have its owner run tpm2_dictionarylockout --clear-lockout",
                .tpmLockout
            ),
            (
                .lockout(interval: nil), .absent,
                "cannot bind this machine: this machine's TPM is in dictionary-attack lockout after too many wrong PINs: wait, or have its owner run tpm2_dictionarylockout --clear-lockout",
                .tpmLockout
            ),
            (
                .foreignBlob, swtpm,
                "cannot bind this machine: \(atSwtpm) does not load this key: it was made by another TPM (a copied home, or a cleared TPM): pingcli devices remove it, then bind again",
                .tpmKeyForeign
            ),
            (
                .damagedBlob, swtpm, "cannot bind this machine: the TPM key blob is damaged: pingcli devices remove it, then bind again",
                .deviceKeyDamaged
            ),
            (
                .unsupported, swtpm,
                "cannot bind this machine: \(atSwtpm) has neither ECC P-256 nor RSA 2048 with SHA-512: unset TPM2TOOLS_TCTI to use another TPM",
                .tpmUnsupported
            ),
            (
                .failed(operation: "Esys_Sign", code: 0x921), .absent,
                "cannot bind this machine: Esys_Sign failed in this machine's TPM (0x921): see tpm2_rc_decode 0x921", .tpmCommandFailed
            ),
        ])
    func tpm(_ failure: TPM2.Failure, _ access: TPM2.Access, _ line: String, _ rule: Rule) {
        let expected = PingCLIError(.failure, line, rule: rule)
        let typed = TPMFailure(failure, access, doing: "bind this machine")
        #expect(typed.cliError == expected)
        #expect(typed.rule == rule, "the rule is the typed failure's, below the wording")
        #expect(failure.cliError(access, doing: "bind this machine") == expected)
        #expect(SealedFailure.tpm(typed).cliError == expected && SealedFailure.tpm(typed).rule == rule)
        #expect(OTPStoreFailure.tpm(typed).cliError == expected)
    }

    @Test("a file's failure passes through the sealed records' and the OTP store's wording as the file's line")
    func filePassesThrough() {
        let file = FileFailure.tooLarge(path: "/c/x", limit: 9)
        #expect(SealedFailure.file(file).cliError == file.cliError && SealedFailure.file(file).rule == .fileTooLarge)
        #expect(OTPStoreFailure.file(file).cliError == file.cliError)
        #expect(OTPStoreFailure(SealedFailure.file(file)) == .file(file))
        #expect(OTPStoreFailure(SealedFailure.noTPM(doing: "z")) == .seal(.noTPM(doing: "z")))
        #expect(
            OTPStoreFailure(SealedFailure.tpm(TPMFailure(.foreignBlob, .absent, doing: "z")))
                == .tpm(TPMFailure(.foreignBlob, .absent, doing: "z")))
    }
}
