import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Device binding and signing with the key in a TPM 2.0: Debian's swtpm, started for each test on free
/// loopback ports with a fresh state, reached through `TPM2TOOLS_TCTI` as tpm2-tools reads it; the built
/// binary on a pseudo-terminal against the emulator's PingAM nodes, which verify the JWS with the public
/// key the TPM made.
@Suite("device keys in a TPM (swtpm), end to end", .enabled(if: SoftwareTPM.available, "needs swtpm and tpm2-tss (make deps)"))
struct TPMDeviceEndToEndTests {
    let journeys = DeviceJourneyEndToEndTests()

    func users() -> [(String, String)] { journeys.userLines() }

    func bind(
        _ emulator: Emulator, _ sandbox: Sandbox, _ tpm: SoftwareTPM, pin: String? = nil, extra: [String] = []
    ) throws -> (status: Int32, transcript: String) {
        let steps = pin.map { [("Choose a PIN for this device key: ", $0), ("Repeat the PIN: ", $0)] } ?? []
        return try journeys.login(
            emulator, sandbox, tree: pin == nil ? "Device Binding" : "Device Binding PIN", users() + steps, extra: extra,
            environment: ["TPM2TOOLS_TCTI": tpm.tcti])
    }

    /// `Device Verify` answered with `pins`; with `restart`, the last PIN after the tree started over
    /// (the name and password typed again).
    func verify(
        _ emulator: Emulator, _ sandbox: Sandbox, tcti: String, pins: [String] = [], restart: Bool = false
    ) throws -> (status: Int32, transcript: String) {
        let typed = pins.map { ("PIN for device key", $0) }
        let steps = restart ? users() + typed.dropLast() + users() + typed.suffix(1) : users() + typed
        return try journeys.login(emulator, sandbox, tree: "Device Verify", steps, environment: ["TPM2TOOLS_TCTI": tcti])
    }

    @Test(
        "tpm-e2e-none: bind with NONE creates the key in the TPM (ES256, P-256), the emulator verifies its JWS, sign-in signs in the TPM; devices says tpm"
    )
    func bindNoneAndSign() throws {
        let (emulator, sandbox) = try DeviceJourneyEndToEndTests.setUp()
        let tpm = try SoftwareTPM()
        let bind = try self.bind(emulator, sandbox, tpm, extra: ["--verbose"])
        #expect(bind.status == 0, "\(bind.transcript)")
        let keyID = try #require(emulator.boundDevices().first?.keyID, "\(bind.transcript)")
        #expect(
            bind.transcript.contains(
                "key \(keyID) (ES256, the TPM's ECC NIST P-256) lives in this machine's TPM (the TPM at TPM2TOOLS_TCTI="),
            "\(bind.transcript)")
        let verify = try self.verify(emulator, sandbox, tcti: tpm.tcti)
        #expect(
            verify.status == 0 && verify.transcript.contains("signed the challenge with device key \(keyID) in the TPM"),
            "\(verify.transcript)")
        let json = sandbox.run(["devices", "--json"], environment: ["TPM2TOOLS_TCTI": tpm.tcti])
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(parsed?.first?["storage"] as? String == "tpm" && parsed?.first?["algorithm"] as? String == "ES256", "\(json)")
        #expect(sandbox.run(["devices"], environment: ["TPM2TOOLS_TCTI": tpm.tcti]).stdout.contains("TPM"))
        // The record itself is sealed to the TPM: without it, devices names the seal in one line.
        let without = sandbox.run(["devices"])
        #expect(without.status == 1 && without.stdout.isEmpty, "\(without)")
        #expect(without.rule == "tpm-sealed", "\(without)")
        #expect(without.stderr.hasPrefix("pingcli: cannot open device key \(keyID): it is sealed to a TPM"), "\(without)")
    }

    @Test(
        "tpm-e2e-no-key-material: no file holds a private key, and the blob is the TPM's: a copy of the home with another TPM (another machine) unseals no record and signs nothing"
    )
    func copiedHomeElsewhere() throws {
        let (emulator, sandbox) = try DeviceJourneyEndToEndTests.setUp()
        let tpm = try SoftwareTPM()
        #expect(try bind(emulator, sandbox, tpm).status == 0)
        let keyID = try #require(emulator.boundDevices().first?.keyID)
        // A SEC 1 P-256 private key's DER starts 30 77 02 01 01 04 20; PKCS#8 wraps the same OID.
        let ecPrivateKey = Data([0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20])
        for (path, bytes) in journeys.files(sandbox) { #expect(bytes.range(of: ecPrivateKey) == nil, "\(path) holds an EC private key") }
        let elsewhere = try SoftwareTPM()
        let sessions = emulator.journeySessions.count
        let foreign = try verify(emulator, sandbox, tcti: elsewhere.tcti)
        #expect(foreign.status == 1, "\(foreign.transcript)")
        // The record is sealed to the first TPM: the second unseals nothing, before any key is loaded.
        #expect(
            foreign.transcript.contains("does not unseal") && foreign.transcript.contains("it was sealed by another TPM"),
            "\(foreign.transcript)")
        #expect(emulator.journeySessions.count == sessions, "signed in with another TPM")
        let back = try verify(emulator, sandbox, tcti: tpm.tcti)
        #expect(back.status == 0 && back.transcript.contains("signed the challenge with device key \(keyID)"), "\(back.transcript)")
    }

    @Test("tpm-e2e-pin: the PIN is the TPM key's authorisation value: a wrong PIN is refused by the TPM and counted, the right one signs")
    func bindPIN() throws {
        let (emulator, sandbox) = try DeviceJourneyEndToEndTests.setUp()
        let tpm = try SoftwareTPM()
        let bind = try self.bind(emulator, sandbox, tpm, pin: DeviceJourneyEndToEndTests.pin)
        #expect(bind.status == 0 && bind.transcript.contains("behind a PIN the TPM checks"), "\(bind.transcript)")
        let verify = try self.verify(emulator, sandbox, tcti: tpm.tcti, pins: ["wr0ng-1111", DeviceJourneyEndToEndTests.pin])
        #expect(verify.status == 0, "\(verify.transcript)")
        #expect(verify.transcript.contains("the TPM refused that PIN (the key is kept, 1 of "), "\(verify.transcript)")
        #expect(verify.transcript.contains("signed the challenge with device key"), "\(verify.transcript)")
        journeys.expectNowhere(
            [DeviceJourneyEndToEndTests.password, DeviceJourneyEndToEndTests.pin, "wr0ng-1111"], [bind.transcript, verify.transcript],
            sandbox)
    }

    @Test(
        "tpm-lockout-near: pingcli reads the TPM's lockout counter and limit and never offers the PIN try that would lock it out; the tree is not started over"
    )
    func neverLockedOut() throws {
        let (emulator, sandbox) = try DeviceJourneyEndToEndTests.setUp()
        let tpm = try SoftwareTPM()
        #expect(try bind(emulator, sandbox, tpm, pin: DeviceJourneyEndToEndTests.pin).status == 0)
        // swtpm allows three failures: two wrong PINs are asked for, the third try (the one that would
        // lock the TPM out) is not offered, and the tree is not walked again.
        let run = try verify(emulator, sandbox, tcti: tpm.tcti, pins: ["wr0ng-1111", "wr0ng-2222"])
        #expect(run.status == 1, "\(run.transcript)")
        #expect(
            run.transcript.contains("the TPM refused that PIN (the key is kept, 2 of 3 failures before it locks out)"), "\(run.transcript)")
        #expect(Self.prompts(run.transcript) == 2, "a third PIN was asked for: \(run.transcript)")
        #expect(run.transcript.components(separatedBy: "User Name").count == 2, "the tree started over: \(run.transcript)")
        let line = run.transcript.split(separator: "\n").last { $0.hasPrefix("pingcli: ") } ?? ""
        #expect(
            line.contains("has counted 2 of the 3 wrong authorisations it allows") && line.contains("asks for none"), "\(run.transcript)")
        #expect(!run.transcript.contains("dictionary-attack lockout (") && Self.lockout(tpm) == "counter 2, inLockout false")
        // The next sign-in reads the counter first: no PIN is asked at all, and the TPM stays usable.
        let next = try verify(emulator, sandbox, tcti: tpm.tcti)
        #expect(next.status == 1 && Self.prompts(next.transcript) == 0, "\(next.transcript)")
        #expect(next.transcript.contains("one more wrong PIN for device key") && Self.lockout(tpm) == "counter 2, inLockout false")
    }

    @Test(
        "tpm-lockout: a TPM already in dictionary-attack lockout (its limit lowered by its owner) is reported in one line; no PIN is asked")
    func lockout() throws {
        let (emulator, sandbox) = try DeviceJourneyEndToEndTests.setUp()
        let tpm = try SoftwareTPM()
        #expect(try bind(emulator, sandbox, tpm, pin: DeviceJourneyEndToEndTests.pin).status == 0)
        #expect(try verify(emulator, sandbox, tcti: tpm.tcti, pins: ["wr0ng-1111", "wr0ng-2222"]).status == 1)
        // The owner lowers the limit to the two failures counted: the TPM is now in lockout.
        let lower = runProcess(
            "/usr/bin/tpm2_dictionarylockout",
            ["--setup-parameters", "--max-tries=2", "--recovery-time=1000", "--lockout-recovery-time=1000"],
            environment: ["TPM2TOOLS_TCTI": tpm.tcti], timeout: 30)
        #expect(lower.status == 0 && Self.lockout(tpm) == "counter 2, inLockout true", "\(lower) \(Self.lockout(tpm))")
        let run = try verify(emulator, sandbox, tcti: tpm.tcti)
        #expect(run.status == 1 && Self.prompts(run.transcript) == 0, "\(run.transcript)")
        let lines = run.transcript.split(separator: "\n").filter { $0.contains("dictionary-attack lockout") }
        #expect(lines.count == 1 && lines[0].hasPrefix("pingcli: cannot sign with device key"), "\(run.transcript)")
    }

    /// How many times the transcript asked for a device key's PIN.
    static func prompts(_ transcript: String) -> Int {
        transcript.split(separator: "\n").filter { $0.hasPrefix("PIN for device key") }.count
    }

    /// The TPM's lockout counter and whether it is in lockout, as tpm2-tools' `tpm2_getcap` reads them.
    static func lockout(_ tpm: SoftwareTPM) -> String {
        let run = runProcess("/usr/bin/tpm2_getcap", ["properties-variable"], environment: ["TPM2TOOLS_TCTI": tpm.tcti], timeout: 30)
        let lines = run.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let index = lines.firstIndex(where: { $0.hasPrefix("TPM2_PT_LOCKOUT_COUNTER") }),
            let counter = (lines[index].split(separator: ":").last).flatMap({
                UInt32($0.trimmingCharacters(in: .whitespaces).dropFirst(2), radix: 16)
            }),
            let locked = lines.first(where: { $0.hasPrefix("inLockout") })?.split(separator: ":").last
        else { return "unreadable: \(run)" }
        return "counter \(counter), inLockout \(locked.trimmingCharacters(in: .whitespaces) == "1")"
    }

    @Test(
        "tpm-unreachable: a TPM2TOOLS_TCTI that is set but does not answer is refused in one line (no software fallback); one that is not a TCTI is a usage error"
    )
    func deadTCTI() throws {
        let (emulator, sandbox) = try DeviceJourneyEndToEndTests.setUp()
        let dead = TLSFront.freePort()
        let run = try journeys.login(
            emulator, sandbox, tree: "Device Binding", users(), environment: ["TPM2TOOLS_TCTI": "swtpm:host=127.0.0.1,port=\(dead)"])
        #expect(run.status == 1, "\(run.transcript)")
        let lines = run.transcript.split(separator: "\n").filter { $0.contains("pingcli:") }
        #expect(lines.count == 1 && lines[0].contains("does not answer") && lines[0].contains("does not fall back"), "\(run.transcript)")
        #expect(!run.transcript.contains("ERROR:"), "tpm2-tss's own log reached the terminal: \(run.transcript)")
        #expect(emulator.boundDevices().isEmpty)
        #expect(sandbox.run(["devices"]).stderr.contains("No device keys"))
        let bad = try journeys.login(emulator, sandbox, tree: "Device Binding", users(), environment: ["TPM2TOOLS_TCTI": "swtpm:host=a b"])
        #expect(bad.status == 2 && bad.transcript.contains("TPM2TOOLS_TCTI is not a TCTI configuration"), "\(bad.transcript)")
    }

    @Test("tpm-lazy: a device step maps tpm2-tss; token --raw on a cache hit maps no TPM library")
    func lazyLibraries() throws {
        let (emulator, sandbox) = try DeviceJourneyEndToEndTests.setUp()
        let tpm = try SoftwareTPM()
        let bind = try journeys.login(
            emulator, sandbox, tree: "Device Binding", users(), environment: ["TPM2TOOLS_TCTI": tpm.tcti, "LD_DEBUG": "libs"])
        #expect(bind.status == 0 && bind.transcript.contains("libtss2-esys.so.0"), "a device step loads ESYS")
        let hit = sandbox.run(["token", "--raw"], environment: ["TPM2TOOLS_TCTI": tpm.tcti, "LD_DEBUG": "libs"])
        #expect(hit.status == 0 && hit.stderr.contains("calling init"), "LD_DEBUG=libs reported the libraries it loaded")
        #expect(!hit.stderr.contains("libtss2"), "\(hit.stderr)")
    }
}
