import FIDOTestAuthenticator
import Foundation
import PingCrypto
import PingWebAuthn
import Testing

@testable import PingFIDO2

/// What the security key hands to a WebAuthn step, read by an implementation that is not ours: Debian's
/// python3-fido2 parses the attestation object, verifies its packed attestation and an assertion's signature
/// (Tests/Fixtures/fido/check-webauthn.py).
@Suite(
    .enabled(
        if: SecurityKey.libraryAvailable && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/fido2/__init__.py"),
        "needs libfido2-1 and python3-fido2 (make deps)"))
struct SecurityKeyIndependentCheckTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/fido/check-webauthn.py").standardizedFileURL.path

    @Test(
        "python3-fido2 verifies the packed self attestation and the assertion (ES256, EdDSA); a flipped signature bit it refuses",
        arguments: [COSEAlgorithm.es256, .eddsa])
    func pythonFido2(_ algorithm: COSEAlgorithm) throws {
        var configuration = SoftwareAuthenticator.Configuration(pin: "4711")
        configuration.algorithms = [-7, -8]
        let plugged = try PluggedSoftwareKey(configuration)
        let person = ScriptedInteraction(pins: ["4711", "4711"])
        let created = try plugged.key.makeCredential(
            WebAuthnSamples.creation(residentKey: true, algorithms: [algorithm]), interaction: person)
        #expect(plugged.authenticator.held.map(\.algorithm) == [algorithm.rawValue])
        let request = WebAuthnSamples.assertion(allow: [])
        let assertion = try plugged.key.getAssertion(request, interaction: person)
        let files: [String: [UInt8]] = [
            "attestation": created.attestationObject, "create-hash": WebAuthnSamples.clientDataHash,
            "authdata": assertion.authenticatorData, "get-hash": request.clientDataHash, "signature": assertion.signature,
            "rp-id": Array(WebAuthnSamples.rp.id.utf8),
        ]
        for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: plugged.directory + "/" + name)) }
        let counter = assertion.authenticatorData[33..<37].reduce(0) { $0 << 8 | Int($1) }
        let hex = created.credentialId.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        let run = try python([Self.script, plugged.directory])
        #expect(run.status == 0 && run.output == "SELF \(hex.joined()) \(counter)\n", "\(run)")

        var flipped = assertion.signature
        flipped[flipped.count - 1] ^= 1
        try Data(flipped).write(to: URL(fileURLWithPath: plugged.directory + "/signature"))
        let refused = try python([Self.script, plugged.directory])
        #expect(refused.status != 0 && refused.error.contains("InvalidSignature"), "\(refused)")
    }

    @Test(
        "the software authenticator is a CTAP2 key to python3-fido2 as well (CTAPHID, ClientPIN, packed attestation), and pingcli signs in with the credential python made"
    )
    func pythonClientOfTheSoftwareKey() throws {
        let plugged = try PluggedSoftwareKey(.init(pin: "4711"))
        let client = Self.script.replacingOccurrences(of: "check-webauthn.py", with: "ctap-client.py")
        let run = try python([client, plugged.server.path, "4711", WebAuthnSamples.rp.id])
        let held = try #require(plugged.authenticator.held.first)
        let hex = { (bytes: [UInt8]) in bytes.map { String(Int($0) + 0x100, radix: 16).dropFirst() }.joined() }
        #expect(
            run.status == 0 && run.output == "FIDO_2_0,FIDO_2_1 2 8 \(hex(held.id)) \(hex(Array("id-python".utf8))) verified\n", "\(run)")
        #expect(held.resident && plugged.authenticator.seen.pinAttempts == 1)
        let assertion = try plugged.key.getAssertion(WebAuthnSamples.assertion(allow: []), interaction: ScriptedInteraction(pins: ["4711"]))
        #expect(assertion.credentialId == held.id && assertion.userHandle == Array("id-python".utf8))
    }

    private func python(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"]
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
