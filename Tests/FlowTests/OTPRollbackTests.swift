import Foundation
import Testing

@testable import PingAuthenticators
@testable import PingCrypto
@testable import PingJourney
@testable import PingOTP

/// The OTP store (`accounts.enc`) is bound to a generation recorded beside the key, as the token cache
/// is (`GenerationRecord`): a store restored from a backup would roll an HOTP counter back and hand out a
/// code again, so an older store is refused in one line, and no code already issued comes out of it.
@Suite("the OTP store's generation")
struct OTPRollbackTests {
    /// RFC 4226 Appendix D's secret: its HOTP codes for counters 0, 1, 2 are 755224, 287082, 359152.
    static let rfcSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    static let rfcCodes = ["755224", "287082", "359152", "969429"]

    func setUp() throws -> (FlowHarness, OTPAccounts) {
        let harness = try FlowHarness()
        let (context, _) = try harness.context()
        let accounts = OTPAccounts(store: OTPStore(paths: harness.paths), key: context.store.commandKey(), clock: { harness.clock.now })
        try accounts.add(
            try OTPAuthURI.parse("otpauth://hotp/Example:rfc?secret=\(Self.rfcSecret)&counter=0&issuer=Example"), replace: false)
        return (harness, accounts)
    }

    func read(_ path: String) throws -> Data { try #require(FileManager.default.contents(atPath: path)) }
    func put(_ data: Data, _ path: String) throws { try data.write(to: URL(fileURLWithPath: path)) }  // in place: mode 0600 kept

    @Test(
        "otp-store-rolled-back: a backup of accounts.enc put back after codes were issued is refused in one line (exit 1), never giving an issued code; the newest copy put back works"
    )
    func restoredBackupRefused() throws {
        let (harness, accounts) = try setUp()
        let store = accounts.store
        let backup = try read(store.file)
        #expect(try accounts.code("Example:rfc").code == Self.rfcCodes[0])
        #expect(try accounts.code("Example:rfc").code == Self.rfcCodes[1])
        let newest = try read(store.file)
        try put(backup, store.file)
        for operation in [["otp", "code", "Example:rfc"], ["otp", "list"], ["otp", "remove", "Example:rfc"]] {
            let run = harness.run(operation)
            expectOneLineError(
                run, status: 1, rule: .otpStoreRolledBack, contains: [store.file, "restored from a backup", "pingcli otp add"],
                secrets: Self.rfcCodes)
        }
        do {
            _ = try accounts.code("Example:rfc")
            Issue.record("a rolled-back store gave a code")
        } catch {
            #expect(error.rule == .otpStoreRolledBack)
        }
        #expect(try read(store.file) == backup, "a refused store is left as it is, for the person to judge")
        try put(newest, store.file)
        #expect(try accounts.code("Example:rfc").code == Self.rfcCodes[2])
        let run = harness.run(["otp", "code", "Example:rfc"])
        #expect(run.status == 0 && run.stdout == Self.rfcCodes[3] + "\n", "\(run)")
    }

    @Test(
        "otp-store-generation: each write records one generation more beside the key; a store one ahead of the record (a crash between the two writes) is read, and the next write goes past it"
    )
    func generationAdvances() throws {
        let (harness, accounts) = try setUp()
        let record = accounts.store.generation
        #expect(record.path == harness.root + "/data/pingcli/otp-generation")
        #expect(try record.read() == 1)
        _ = try accounts.code("Example:rfc")
        #expect(try record.read() == 2)
        let header = try read(accounts.store.file).prefix(16)
        #expect(header.prefix(6) == Data("PCLO".utf8) + [OTPStore.version, 0] && header.suffix(8) == Data([0, 0, 0, 0, 0, 0, 0, 2]))
        let beforeCrash = try read(accounts.store.file)
        try record.write(1)  // the store was written, the record not yet
        #expect(try accounts.code("Example:rfc").code == Self.rfcCodes[1])
        #expect(try record.read() == 3, "past the store one ahead, so a copy of it is refused")
        try put(beforeCrash, accounts.store.file)
        let run = harness.run(["otp", "code", "Example:rfc"])
        expectOneLineError(run, status: 1, rule: .otpStoreRolledBack, contains: [accounts.store.file], secrets: Self.rfcCodes)
    }

    @Test(
        "otp-store-version-1: a store of format 1 (no generation) is read while none is recorded and rewritten in the current format; put back afterwards, it is refused"
    )
    func formatOneStore() throws {
        let harness = try FlowHarness()
        let (context, _) = try harness.context()
        let key = try context.store.commandKey().get(create: true)
        let store = OTPStore(paths: harness.paths)
        let account = try OTPAuthURI.parse("otpauth://hotp/Example:rfc?secret=\(Self.rfcSecret)&counter=0&issuer=Example")
        let header = OTPStore.magic + [1, 0, 0, 0]
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let sealed = Sodium.seal(
            // Before format 4 an account had no origin field (empty here: its two length bytes).
            plaintext: Array(OTPRecords.encode([account]).dropLast(2)), associatedData: OTPStore.associatedData(header: header),
            nonce: nonce, key: key)
        try FileManager.default.createDirectory(
            atPath: store.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let formatOne = Data(header + nonce + sealed)
        #expect(FileManager.default.createFile(atPath: store.file, contents: formatOne, attributes: [.posixPermissions: 0o600]))
        let accounts = OTPAccounts(store: store, key: context.store.commandKey(), clock: { harness.clock.now })
        #expect(try accounts.code("Example:rfc").code == Self.rfcCodes[0])
        #expect(try read(store.file)[4] == OTPStore.version && (try store.generation.read()) == 1)
        try put(formatOne, store.file)
        let run = harness.run(["otp", "code", "Example:rfc"])
        expectOneLineError(run, status: 1, rule: .otpStoreRolledBack, contains: [store.file], secrets: Self.rfcCodes)
    }

    @Test("generation-damaged: an otp-generation record that is not one number refuses the OTP store in one line, naming the file")
    func damagedRecord() throws {
        let (harness, accounts) = try setUp()
        for garbage in ["x\n", "", "-3\n"] {
            try put(Data(garbage.utf8), accounts.store.generation.path)
            let run = harness.run(["otp", "code", "Example:rfc"])
            expectOneLineError(run, status: 1, rule: .generationDamaged, contains: [accounts.store.generation.path], secrets: Self.rfcCodes)
        }
    }
}
