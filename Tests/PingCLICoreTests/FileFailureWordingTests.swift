import Testing

@testable import PingAuthenticators
@testable import PingBase
@testable import PingCrypto
@testable import PingFlowCore
@testable import PingPlatform
@testable import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// PingPlatform's files and locks, the key command and the TPM's seal throw typed facts (`FileFailure`,
/// `KeyCommandFailure`, `SealedFailure`, `OTPStoreFailure`); the line the user reads is made once in
/// PingFlowCore (`FileAdvice.swift`, `StoreAdvice.swift`, `TPMAdvice.swift`, `OTPStoreAdvice.swift`).
/// These tables pin each line word for word, with its exit status and rule.
@Suite("file failure wording: typed in the platform and the state, worded once at the top")
struct FileFailureWordingTests {
    static let denied = String(cString: strerror(EACCES))

    @Test(
        "directory-unusable, file-read, file-write, file-remove, lock-file: each failed call is worded once, exit 1",
        arguments: [
            (
                FileFailure.Operation.createDirectory,
                "cannot create directory /c/p: \(denied): check its parent's permissions", Rule.directoryUnusable
            ),
            (.useDirectory, "cannot use directory /c/p: \(denied)", .directoryUnusable),
            (.judgeDirectory, "cannot use /c/p: \(denied)", .directoryUnusable),
            (.open, "cannot open /c/p: \(denied)", .fileRead),
            (.read, "cannot read /c/p: \(denied)", .fileRead),
            (.write, "cannot write /c/p: \(denied): check free space", .fileWrite),
            (.sync, "cannot write /c/p: \(denied)", .fileWrite),
            (.replace, "cannot replace /c/p: \(denied)", .fileWrite),
            (.create, "cannot create /c/p: \(denied)", .fileWrite),
            (.createBeside, "cannot create a file beside /c/p: \(denied): check the directory's permissions and free space", .fileWrite),
            (.remove, "cannot remove /c/p: \(denied)", .fileRemove),
            (.move(to: "/c/q"), "cannot move /c/p to /c/q: \(denied)", .fileWrite),
            (.openLock, "cannot open lock file /c/p: \(denied)", .lockFile),
            (.lock, "cannot lock /c/p: \(denied)", .lockFile),
        ])
    func io(_ operation: FileFailure.Operation, _ line: String, _ rule: Rule) throws {
        let failure = FileFailure.io(operation, path: "/c/p", errno: EACCES)
        #expect(failure.cliError == PingCLIError(.failure, line, rule: rule))
        #expect(failure.rule == rule, "the rule is the typed failure's, below the wording")
        #expect(StoreFailure.file(failure).cliError == failure.cliError && StoreFailure.file(failure).status == .failure)
        #expect(try #require(FileAdviceProbe.worded(failure)) == failure.cliError)
    }

    @Test(
        "file-type-refused, file-symlink-refused, file-owner-refused, file-mode-refused, file-too-large: each refusal is worded once, exit 1",
        arguments: [
            (
                FileFailure.notDirectory(path: "/c/p", .fifo),
                "refusing to use /c/p: it is a FIFO (named pipe), not a directory: remove it, or use another profile", Rule.fileTypeRefused
            ),
            (
                .notRegularFile(path: "/c/p", .directory), "refusing to use /c/p: it is a directory, not a regular file: remove it",
                .fileTypeRefused
            ),
            (
                .notRegularFile(path: "/c/p", .device), "refusing to use /c/p: it is a device, not a regular file: remove it",
                .fileTypeRefused
            ),
            (
                .notRegularFile(path: "/c/p", .socket), "refusing to use /c/p: it is a socket, not a regular file: remove it",
                .fileTypeRefused
            ),
            (
                .notDirectory(path: "/c/p", .regular),
                "refusing to use /c/p: it is a regular file, not a directory: remove it, or use another profile", .fileTypeRefused
            ),
            (
                .notDirectory(path: "/c/p", .special),
                "refusing to use /c/p: it is a special file, not a directory: remove it, or use another profile", .fileTypeRefused
            ),
            (
                .symbolicLink(path: "/c/p"),
                "refusing to use /c/p: it is a symbolic link, and pingcli follows none for its own files: replace it with the file itself, or remove it",
                .fileSymlinkRefused
            ),
            (
                .notOwned(path: "/c/p", uid: 1001),
                "refusing to use /c/p: it belongs to another user (uid 1001): remove it, or run pingcli as its owner", .fileOwnerRefused
            ),
            (
                .directoryNotOwned(path: "/c/p", directory: "/c", uid: 1001),
                "refusing to use /c/p: the directory /c belongs to another user (uid 1001), who could replace it: move it to a directory of yours",
                .fileOwnerRefused
            ),
            (
                .openToOthers(path: "/c/p", mode: 0o640),
                "refusing to use /c/p: the file is open to group or others (mode 640): run chmod 600 /c/p", .fileModeRefused
            ),
            (
                .writableByOthers(path: "/c/p", mode: 0o666),
                "refusing to use /c/p: group or others may write it (mode 666): run chmod 600 /c/p", .fileModeRefused
            ),
            (
                .directoryWritableByOthers(path: "/c", mode: 0o777),
                "refusing to use /c: group or others may write the directory (mode 777) and replace what is in it: run chmod go-w /c",
                .fileModeRefused
            ),
            (.tooLarge(path: "/c/p", limit: 64), "/c/p is larger than 64 bytes: it is not a pingcli file", .fileTooLarge),
        ])
    func refusal(_ failure: FileFailure, _ line: String, _ rule: Rule) {
        #expect(failure.cliError == PingCLIError(.failure, line, rule: rule))
        #expect(failure.rule == rule)
    }

    @Test(
        "lock-bounded: a lock held too long names what is locked and who holds it, exit 1",
        arguments: [
            (
                FileFailure.lockTimedOut(
                    .profile(.default), holder: FileFailure.LockHolder(pid: 42, command: "pingcli token"), timeout: 40),
                "profile \"default\" is locked by pid 42 (pingcli token) for more than 40 s: if it is stuck, end it (kill 42), then try again"
            ),
            (
                .lockTimedOut(.otpStore, holder: nil, timeout: 10),
                "the OTP store is locked by another process for more than 10 s: if a pingcli process is stuck, end it, then try again"
            ),
            (
                .lockTimedOut(.login(.default), holder: FileFailure.LockHolder(pid: 7, command: ""), timeout: 0),
                "another pingcli login of profile \"default\" is running (pid 7): if it is stuck, end it (kill 7), then try again"
            ),
        ])
    func lock(_ failure: FileFailure, _ line: String) {
        #expect(failure.cliError == PingCLIError(.failure, line, rule: .lockBounded))
    }

    @Test("home-missing, profile-name-gate: the paths' failures are worded once, with their exit status")
    func paths() {
        #expect(
            Paths.HomeMissing(variable: "XDG_CONFIG_HOME").cliError
                == PingCLIError(.failure, "neither XDG_CONFIG_HOME nor HOME is set to an absolute path: set HOME", rule: .homeMissing))
        #expect(throws: Paths.HomeMissing(variable: "XDG_CONFIG_HOME")) { try Paths(environment: Environment([:])) }
        #expect(
            ProfileName.Refused(text: ".x").cliError
                == PingCLIError(
                    .usage, "profile name \".x\" is not allowed: use 1-64 letters, digits, '.', '_' or '-', not starting with '.'",
                    rule: .profileNameGate))
        #expect(throws: ProfileName.Refused(text: ".x")) { try ProfileName(".x") }
    }

    @Test(
        "key-command, key-command-status, key-command-timeout, key-command-output-bounded: each key command failure is worded once, exit 1",
        arguments: [
            (KeyCommandFailure.notStarted(reason: "No such file"), "cannot run PINGCLI_KEY_COMMAND: No such file", Rule.keyCommand),
            (
                .outputBounded(limit: 4096),
                "PINGCLI_KEY_COMMAND printed more than 4096 bytes, so it was stopped: it must print only the 32-byte key",
                .keyCommandOutputBounded
            ),
            (
                .timedOut(seconds: 60),
                "PINGCLI_KEY_COMMAND did not finish within 60 s (PINGCLI_KEY_COMMAND_TIMEOUT), so it was stopped: check that it does not wait for input, or raise the timeout",
                .keyCommandTimeout
            ),
            (
                .exitStatus(3), "PINGCLI_KEY_COMMAND failed (exit status 3): run it by hand to see why; it must print the 32-byte key",
                .keyCommandStatus
            ),
            (
                .signal(9), "PINGCLI_KEY_COMMAND failed (signal 9): run it by hand to see why; it must print the 32-byte key",
                .keyCommandStatus
            ),
            (
                .notAKey(length: 6),
                "PINGCLI_KEY_COMMAND printed 6 bytes, not a 32-byte key: it must print 32 raw bytes, 64 hex digits or base64 (for example from: openssl rand -base64 32)",
                .keyCommand
            ),
        ])
    func keyCommand(_ failure: KeyCommandFailure, _ line: String, _ rule: Rule) {
        #expect(StoreFailure.keyCommand(failure).cliError == PingCLIError(.failure, line, rule: rule))
        #expect(failure.rule == rule)
    }

    @Test(
        "key-store-env: a key store setting that chooses no store is a usage error (exit 2), worded once",
        arguments: [
            (
                KeySource.SettingRefused.commandMissing,
                "PINGCLI_KEY_STORE=command needs PINGCLI_KEY_COMMAND, the command that prints the key: set it, or choose keyring or file"
            ),
            (
                .commandAndStore(store: "file"),
                "PINGCLI_KEY_STORE=file and PINGCLI_KEY_COMMAND are both set: unset one of them (PINGCLI_KEY_STORE=command goes with the command)"
            ),
            (.unknownStore("vault"), "PINGCLI_KEY_STORE must be keyring, file or command, not \"vault\""),
            (.timeoutRefused("-1"), "PINGCLI_KEY_COMMAND_TIMEOUT must be a number of seconds between 0 and 86400, not \"-1\""),
        ])
    func keyStoreSetting(_ failure: KeySource.SettingRefused, _ line: String) {
        #expect(failure.cliError == PingCLIError(.usage, line, rule: .keyStoreEnv))
    }

    @Test(
        "tpm-sealed, tpm-seal-damaged, tpm-seal-foreign, device-key-damaged, device-key-tampered: the seal's and the records' failures are worded once, exit 1",
        arguments: [
            (
                SealedFailure.noTPM(doing: "open device key k"),
                "cannot open device key k: it is sealed to a TPM, and none is reachable here (TPM2TOOLS_TCTI is unset and there is no /dev/tpmrm0 this user can open): set TPM2TOOLS_TCTI to the TPM that sealed it (a copy of the home without that TPM reads nothing)",
                Rule.tpmSealed
            ),
            (
                .sealMissing(doing: "open device key k", file: "/d/tpm-seal"),
                "cannot open device key k: it is sealed to a TPM, and /d/tpm-seal, which holds the TPM's sealed key, is missing: put it back (the secrets cannot be read without it)",
                .tpmSealDamaged
            ),
            (
                .sealNotPingcli(file: "/d/tpm-seal"),
                "/d/tpm-seal is not a pingcli TPM seal of this version: put the original back (what it protects cannot be read without it)",
                .tpmSealDamaged
            ),
            (
                .sealForeign(doing: "open passkey p", access: .absent, file: "/d/tpm-seal"),
                "cannot open passkey p: this machine's TPM does not unseal /d/tpm-seal: it was sealed by another TPM (a copied home, or a cleared TPM), so nothing under it can be read here",
                .tpmSealForeign
            ),
            (
                .sealDamaged(doing: "open passkey p", file: "/d/tpm-seal"),
                "cannot open passkey p: /d/tpm-seal is damaged: put the original back (what it protects cannot be read without it)",
                .tpmSealDamaged
            ),
            (
                .recordNotPingcli(.deviceKey, path: "/c/k.key"),
                "/c/k.key is not a pingcli device key of this version: remove it and bind the device again", .deviceKeyDamaged
            ),
            (
                .recordNotPingcli(.passkey, path: "/c/p.passkey"),
                "/c/p.passkey is not a pingcli passkey of this version: remove it and register the passkey again", .deviceKeyDamaged
            ),
            (
                .recordTampered(.passkey, path: "/c/p.passkey"),
                "passkey /c/p.passkey cannot be decrypted: it was modified, or encrypted under another cache key (a copied home, or a key store changed outside pingcli)",
                .deviceKeyTampered
            ),
            (
                .recordDamaged(.deviceKey, path: "/c/k.key"),
                "device key /c/k.key decrypted but its record is damaged: remove it and bind again",
                .deviceKeyDamaged
            ),
            (
                .recordDamaged(.passkey, path: "/c/p.passkey"),
                "passkey /c/p.passkey decrypted but its record is damaged: remove it and register again", .deviceKeyDamaged
            ),
            (.recordExists(.deviceKey, id: "k"), "a device key with id k exists already: bind again", .deviceKeyDamaged),
            (.recordExists(.passkey, id: "p"), "a passkey with id p exists already: register again", .deviceKeyDamaged),
        ])
    func sealed(_ failure: SealedFailure, _ line: String, _ rule: Rule) {
        #expect(failure.cliError == PingCLIError(.failure, line, rule: rule))
        #expect(failure.rule == rule)
        #expect(OTPStoreFailure(failure).cliError == failure.cliError)
    }

    @Test("tpm-tcti-gate: a TPM2TOOLS_TCTI that is no TCTI configuration is a usage error (exit 2)")
    func tcti() {
        #expect(
            SealedFailure.tctiRefused.cliError
                == PingCLIError(
                    .usage,
                    "TPM2TOOLS_TCTI is not a TCTI configuration (printable ASCII such as swtpm:host=127.0.0.1,port=2321): fix or unset it",
                    rule: .tpmTctiGate))
        #expect(throws: SealedFailure.tctiRefused) { try TPM2.Access.system(tcti: "bad\u{1}").checked() }
    }

    @Test(
        "otp-store-damaged, otp-store-version, otp-store-tampered: the OTP store's own failures are worded once, exit 1",
        arguments: [
            (
                OTPStoreFailure.notAStore(file: "/c/otp/accounts.enc"),
                "/c/otp/accounts.enc is not a pingcli OTP store: move it away (its accounts are lost) and add them again",
                Rule.otpStoreDamaged
            ),
            (
                .unknownFormat(file: "/c/otp/accounts.enc", version: 9),
                "/c/otp/accounts.enc has OTP store format 9, which this pingcli cannot read: upgrade pingcli", .otpStoreVersion
            ),
            (
                .tampered(file: "/c/otp/accounts.enc"),
                "OTP store /c/otp/accounts.enc cannot be decrypted: it was modified, or encrypted under another cache key (a copied home, or a key store changed outside pingcli)",
                .otpStoreTampered
            ),
        ])
    func otpStore(_ failure: OTPStoreFailure, _ line: String, _ rule: Rule) {
        #expect(failure.cliError == PingCLIError(.failure, line, rule: rule))
    }

    @Test("profile-encode, file-remove: the store's own new cases are worded once, exit 1")
    func store() {
        #expect(
            StoreFailure.profileEncode(profile: .default).cliError
                == PingCLIError(.failure, "cannot encode profile default", rule: .profileEncode))
        #expect(
            StoreFailure.profileDirectoryKept(profile: .default, directory: "/c/profiles/default", errno: ENOTEMPTY).cliError
                == PingCLIError(
                    .failure,
                    "removed profile \"default\"'s tokens and settings, but not /c/profiles/default: \(String(cString: strerror(ENOTEMPTY))): remove what is left by hand",
                    rule: .fileRemove))
    }
}

/// `FileAdvice.worded` as a caller above the state layer uses it.
private enum FileAdviceProbe {
    static func worded(_ failure: FileFailure) -> PingCLIError? {
        do throws(PingCLIError) {
            try FileAdvice.worded(try fail(failure))
            return nil
        } catch {
            return error
        }
    }

    static func fail(_ failure: FileFailure) throws(FileFailure) { throw failure }
}
