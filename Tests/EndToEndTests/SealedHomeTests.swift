import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// With a TPM reachable, the OTP store and the device keys' records are sealed to it (`TPMSeal`): their
/// key is the cache key combined with bytes only that TPM unseals, so a copy of the home (with its key
/// file) reads no secret and signs nothing without that TPM. Debian's swtpm is the TPM; the built binary
/// runs as root and, for the copy, as nobody.
@Suite("secrets sealed to the TPM (swtpm), end to end", .enabled(if: SoftwareTPM.available, "needs swtpm and tpm2-tss (make deps)"))
struct SealedHomeTests {
    /// RFC 4226 Appendix D: the secret "12345678901234567890" and its HOTP codes for counters 0 to 3.
    static let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    static let raw = "12345678901234567890"
    static let hex = "3132333435363738393031323334353637383930"
    static let codes = ["755224", "287082", "359152", "969429"]
    static let uri = "otpauth://hotp/Corp:bob?secret=\(secret)&counter=0"

    func header(_ sandbox: Sandbox) -> [UInt8] {
        Array((FileManager.default.contents(atPath: sandbox.root + "/config/pingcli/otp/accounts.enc") ?? Data()).prefix(6))
    }

    func expectNoSecret(in root: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for case let relative as String in FileManager.default.enumerator(atPath: root) ?? .init() where !relative.hasPrefix("stdin-") {
            guard let bytes = FileManager.default.contents(atPath: root + "/" + relative) else { continue }
            for secret in [Self.secret, Self.raw, Self.hex] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(relative) holds the OTP secret", sourceLocation: sourceLocation)
            }
        }
    }

    @Test(
        "tpm-sealed: with a TPM reachable, otp add seals the store to it; without that TPM (tpm-sealed) or with another (tpm-seal-foreign) one line, exit 1, no code, and no counter used"
    )
    func otpSealed() throws {
        let sandbox = Sandbox()
        let tpm = try SoftwareTPM()
        let here = ["TPM2TOOLS_TCTI": tpm.tcti]
        let add = sandbox.run(["otp", "add", "--name", "vpn"], input: Self.uri + "\n", environment: here)
        #expect(add.status == 0, "\(add)")
        #expect(header(sandbox) == Array("PCLO".utf8) + [4, 1], "format 4, sealed to the TPM")
        let seal = FileManager.default.contents(atPath: sandbox.root + "/data/pingcli/tpm-seal") ?? Data()
        #expect(seal.prefix(8) == Data("PCLT".utf8) + [1, 0, 0, 0] && seal.count > 100, "the TPM's sealed object beside the key")
        #expect(sandbox.run(["otp", "code", "vpn"], environment: here).stdout == Self.codes[0] + "\n")
        let without = sandbox.run(["otp", "code", "vpn"])
        expectOneLineError(
            without, status: 1, rule: "tpm-sealed",
            contains: ["cannot read the OTP store", "it is sealed to a TPM, and none is reachable here"],
            secrets: Self.codes)
        let elsewhere = try SoftwareTPM()
        let foreign = sandbox.run(["otp", "code", "vpn"], environment: ["TPM2TOOLS_TCTI": elsewhere.tcti])
        expectOneLineError(
            foreign, status: 1, rule: "tpm-seal-foreign", contains: ["does not unseal", "it was sealed by another TPM"], secrets: Self.codes
        )
        #expect(sandbox.run(["otp", "code", "vpn"], environment: here).stdout == Self.codes[1] + "\n", "the refusals used no counter")
        expectNoSecret(in: sandbox.root)
    }

    @Test(
        "tpm-seal-migration: a store written without a TPM is read under the cache key (tpm2-tss not loaded) and sealed at its next use with a TPM reachable"
    )
    func migration() throws {
        let sandbox = Sandbox()
        #expect(sandbox.run(["otp", "add", "--name", "vpn"], input: Self.uri + "\n").status == 0)
        #expect(header(sandbox) == Array("PCLO".utf8) + [4, 0], "no TPM: the cache key alone")
        let plain = sandbox.run(["otp", "code", "vpn"], environment: ["LD_DEBUG": "libs"])
        #expect(plain.stdout == Self.codes[0] + "\n" && plain.stderr.contains("calling init"), "\(plain.stdout)")
        #expect(!plain.stderr.contains("libtss2"), "a store under the cache key loads no TPM library")
        let tpm = try SoftwareTPM()
        #expect(sandbox.run(["otp", "code", "vpn"], environment: ["TPM2TOOLS_TCTI": tpm.tcti]).stdout == Self.codes[1] + "\n")
        #expect(header(sandbox) == Array("PCLO".utf8) + [4, 1], "sealed at its first use with the TPM")
        let without = sandbox.run(["otp", "list"])
        expectOneLineError(without, status: 1, rule: "tpm-sealed", contains: ["it is sealed to a TPM"], secrets: Self.codes)
    }
}

extension SealedHomeTests {
    @Test(
        "tpm-seal-device-migration: a software device key bound without a TPM is sealed at the next bind with one: its record then opens only with that TPM"
    )
    func deviceMigration() throws {
        let (emulator, sandbox) = try DeviceJourneyEndToEndTests.setUp()
        let journeys = DeviceJourneyEndToEndTests()
        #expect(try journeys.login(emulator, sandbox, tree: "Device Binding", journeys.userLines()).status == 0)
        let software = try #require(emulator.boundDevices().first?.keyID)
        let file = sandbox.root + "/config/pingcli/devices/\(software).key"
        #expect(FileManager.default.contents(atPath: file)?.prefix(6) == Data("PCLD".utf8) + [2, 0], "under the cache key alone")
        let tpm = try SoftwareTPM()
        let here = ["TPM2TOOLS_TCTI": tpm.tcti]
        #expect(try journeys.login(emulator, sandbox, tree: "Device Binding", journeys.userLines(), environment: here).status == 0)
        #expect(FileManager.default.contents(atPath: file)?.prefix(6) == Data("PCLD".utf8) + [2, 1], "sealed by the bind with the TPM")
        let list = sandbox.run(["devices", "--json"], environment: here)
        let parsed = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]]
        #expect(Set(parsed?.compactMap { $0["storage"] as? String } ?? []) == ["software", "tpm"], "\(list)")
        let without = sandbox.run(["devices"])
        expectOneLineError(without, status: 1, rule: "tpm-sealed", contains: ["it is sealed to a TPM"], secrets: [])
    }
}

/// The copy of a home made as root (OTP account and TPM-bound device key, swtpm on a unix socket in a
/// directory only root may enter), owned by nobody and used by nobody with the copy as its HOME.
@Suite(
    "a copied home under another uid",
    .enabled(if: SoftwareTPM.available, "needs swtpm and tpm2-tss (make deps)"),
    .enabled(if: geteuid() == 0, "runs pingcli as another uid (nobody, 65534): needs root"))
struct CopiedHomeOtherUserTests {
    static let nobody: uid_t = 65534

    /// `copy` of the sandbox owned by nobody, a copy of the binary nobody may run (the checkout may be
    /// in a directory nobody cannot enter), and the sandbox's environment pointed at the copy.
    static func copyForNobody(_ sandbox: Sandbox) throws -> (root: String, pingcli: String, environment: [String: String]) {
        let copy = sandbox.root + "-copy"
        let bin = sandbox.root + "-bin"
        let cp = runProcess("/bin/cp", ["-a", sandbox.root, copy], environment: [:], timeout: 60)
        try #require(cp.status == 0, "\(cp)")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Locations.pingcli, toPath: bin + "/pingcli")
        let chown = runProcess("/bin/chown", ["-R", "\(nobody):\(nobody)", copy, bin], environment: [:], timeout: 60)
        try #require(chown.status == 0, "\(chown)")
        // Whatever the umask and wherever the checkout: only nobody may enter either.
        try #require(chmod(copy, 0o700) == 0 && chmod(bin, 0o700) == 0 && chmod(bin + "/pingcli", 0o700) == 0)
        var environment: [String: String] = [:]
        for (name, value) in sandbox.environment {
            environment[name] = value.hasPrefix(sandbox.root) ? copy + value.dropFirst(sandbox.root.count) : value
        }
        environment["PATH"] = "/usr/bin:/bin"
        return (copy, bin + "/pingcli", environment)
    }

    static func asNobody(_ pingcli: String, _ arguments: [String], _ environment: [String: String]) -> CLIRun {
        runProcess(
            "/usr/bin/setpriv", ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", pingcli] + arguments,
            environment: environment, timeout: 60)
    }

    @Test(
        "tpm-copied-home-other-uid: a copy of a home with a TPM-sealed OTP account and a TPM device key, used by another uid without that TPM, reads no secret and signs nothing (one line, exit 1)"
    )
    func copiedHomeUnderAnotherUID() throws {
        let (emulator, sandbox) = try DeviceJourneyEndToEndTests.setUp()
        let tpm = try UnixSocketTPM(directory: NSTemporaryDirectory() + "swtpm-root-" + UUID().uuidString)
        let here = ["TPM2TOOLS_TCTI": tpm.tcti]
        defer {
            try? FileManager.default.removeItem(atPath: sandbox.root + "-copy")
            try? FileManager.default.removeItem(atPath: sandbox.root + "-bin")
        }
        let devices = TPMDeviceEndToEndTests()
        let bind = try devices.journeys.login(emulator, sandbox, tree: "Device Binding", devices.users(), environment: here)
        #expect(bind.status == 0, "\(bind.transcript)")
        let keyID = try #require(emulator.boundDevices().first?.keyID)
        #expect(sandbox.run(["otp", "add", "--name", "vpn"], input: SealedHomeTests.uri + "\n", environment: here).status == 0)
        // As root with the TPM, both work: what fails below fails for the uid and the TPM alone.
        #expect(sandbox.run(["otp", "code", "vpn"], environment: here).stdout == SealedHomeTests.codes[0] + "\n")
        let signed = try devices.verify(emulator, sandbox, tcti: tpm.tcti)
        #expect(signed.status == 0 && signed.transcript.contains("signed the challenge with device key \(keyID)"), "\(signed.transcript)")

        let (copy, pingcli, environment) = try Self.copyForNobody(sandbox)
        let answers = copy + "/answers"
        let users = "User Name=ada\nPassword=\(DeviceJourneyEndToEndTests.password)\n"
        #expect(FileManager.default.createFile(atPath: answers, contents: Data(users.utf8), attributes: [.posixPermissions: 0o600]))
        #expect(chown(answers, Self.nobody, Self.nobody) == 0)
        let sessions = emulator.journeySessions.count
        let verify = [
            "login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--journey", "Device Verify", "--answers", answers,
        ]
        // The same TCTI: nobody cannot reach root's TPM (tpm-unreachable); none at all (tpm-sealed).
        for (extra, line) in [(here, "does not answer"), ([:], "it is sealed to a TPM, and none is reachable here")] {
            let code = Self.asNobody(pingcli, ["otp", "code", "vpn"], environment.merging(extra) { $1 })
            // Another uid's run: the sandbox records no rule for it.
            expectOneLineError(code, status: 1, rule: nil, contains: ["cannot read the OTP store", line], secrets: SealedHomeTests.codes)
            let sign = Self.asNobody(pingcli, verify, environment.merging(extra) { $1 })
            #expect(sign.status == 1, "\(sign)")
            let lines = sign.stderr.split(separator: "\n").filter { $0.hasPrefix("pingcli:") }
            #expect(lines.count == 1 && lines[0].contains("cannot open device key \(keyID)") && lines[0].contains(line), "\(sign)")
            #expect(!sign.stderr.contains(DeviceJourneyEndToEndTests.password), "\(sign)")
        }
        #expect(emulator.journeySessions.count == sessions, "the copy signed in")
        SealedHomeTests().expectNoSecret(in: copy)
        // A SEC 1 P-256 private key's DER starts 30 77 02 01 01 04 20: no file of the copy holds one.
        for case let relative as String in FileManager.default.enumerator(atPath: copy) ?? .init() {
            let bytes = FileManager.default.contents(atPath: copy + "/" + relative) ?? Data()
            #expect(bytes.range(of: Data([0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20])) == nil, "\(relative) holds an EC private key")
        }
    }
}
