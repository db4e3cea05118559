import Foundation
import PingEmulator
import Testing

/// RS512 end to end, as Ping's Android SDK signs: AM's Device Binding callback names no algorithm, so
/// `PINGCLI_DEVICE_KEY_ALGORITHM=RS512` asks for it (ES256 otherwise where the TPM has P-256, RS512 on a
/// TPM without it). The emulator's PingAM verifies the bind JWS with the `jwk` it carries and the
/// signing JWS with the key it kept.
@Suite("device keys with RS512, end to end")
struct DeviceKeyAlgorithmTests {
    let journeys = DeviceJourneyEndToEndTests()

    func bindAndVerify(
        _ environment: [String: String]
    ) throws -> (emulator: Emulator, sandbox: Sandbox, bind: String, verify: (status: Int32, transcript: String)) {
        let (emulator, sandbox) = try DeviceJourneyEndToEndTests.setUp()
        let bind = try journeys.login(
            emulator, sandbox, tree: "Device Binding", journeys.userLines(),
            environment: environment.merging(["PINGCLI_DEVICE_KEY_ALGORITHM": "RS512"]) { $1 })
        #expect(bind.status == 0, "\(bind.transcript)")
        // Signing uses the stored key's algorithm: the variable is not needed any more.
        let verify = try journeys.login(emulator, sandbox, tree: "Device Verify", journeys.userLines(), environment: environment)
        return (emulator, sandbox, bind.transcript, verify)
    }

    @Test(
        "device-rs512-tpm: PINGCLI_DEVICE_KEY_ALGORITHM=RS512 makes the key in the TPM as RSA 2048 with SHA-512; AM verifies its bind and signing JWSs",
        .enabled(if: SoftwareTPM.available, "needs swtpm and tpm2-tss (make deps)"))
    func tpmRS512() throws {
        let tpm = try SoftwareTPM()
        let (emulator, sandbox, bind, verify) = try bindAndVerify(["TPM2TOOLS_TCTI": tpm.tcti])
        let device = try #require(emulator.boundDevices().first, "\(bind)")
        #expect(device.algorithm == "RS512", "AM verified an RS512 bind JWS")
        #expect(
            bind.contains(
                "key \(device.keyID) (RS512, the TPM's RSA 2048 with SHA-512, as PINGCLI_DEVICE_KEY_ALGORITHM asks) lives in this machine's TPM"
            ),
            "\(bind)")
        #expect(verify.status == 0 && verify.transcript.contains("signed the challenge with device key \(device.keyID) in the TPM"))
        let json = sandbox.run(["devices", "--json"], environment: ["TPM2TOOLS_TCTI": tpm.tcti])
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(parsed?.first?["algorithm"] as? String == "RS512" && parsed?.first?["storage"] as? String == "tpm", "\(json)")
    }

    @Test("device-rs512-software: without a TPM, RS512 is a software RSA 2048 key; AM verifies its bind and signing JWSs")
    func softwareRS512() throws {
        let (emulator, sandbox, bind, verify) = try bindAndVerify([:])
        let device = try #require(emulator.boundDevices().first, "\(bind)")
        #expect(device.algorithm == "RS512", "AM verified an RS512 bind JWS")
        #expect(bind.contains("key \(device.keyID) (RS512, RSA 2048 with SHA-512, as PINGCLI_DEVICE_KEY_ALGORITHM asks) lives in software"))
        #expect(verify.status == 0 && verify.transcript.contains("signed the challenge with device key \(device.keyID)"), "\(verify)")
        let list = sandbox.run(["devices"])
        #expect(list.status == 0 && list.stdout.contains("RS512"), "\(list)")
    }

    @Test(
        "device-key-algorithm: a PINGCLI_DEVICE_KEY_ALGORITHM other than ES256 or RS512 is a usage error at the bind step; nothing is bound"
    )
    func refusedAlgorithm() throws {
        let (emulator, sandbox) = try DeviceJourneyEndToEndTests.setUp()
        let run = try journeys.login(
            emulator, sandbox, tree: "Device Binding", journeys.userLines(), environment: ["PINGCLI_DEVICE_KEY_ALGORITHM": "HS256"])
        #expect(run.status == 2, "\(run.transcript)")
        #expect(run.transcript.contains("PINGCLI_DEVICE_KEY_ALGORITHM must be ES256 or RS512, not \"HS256\""), "\(run.transcript)")
        #expect(emulator.boundDevices().isEmpty)
        #expect(sandbox.run(["devices"]).stderr.contains("No device keys"))
    }
}
