import FIDOTestAuthenticator
import Foundation
import PingEmulator
import Testing

/// A journey's WebAuthn steps answered by a FIDO2 security key end to end: the built binary reaches the
/// tests' software authenticator through libfido2 (its socket transport of test builds,
/// `PINGCLI_TEST_FIDO_SOCKET`), on a pseudo-terminal, against the emulator's WebAuthn nodes.
@Suite("journeys with a security key (libfido2, the software authenticator), end to end")
struct SecurityKeyJourneyEndToEndTests {
    let journeys = DeviceJourneyEndToEndTests()

    @Test(
        "security-key-e2e: a cross-platform registration and a sign-in go to the security key through libfido2 (its PIN without echo); AM verifies both"
    )
    func registerAndSignIn() throws {
        let (emulator, sandbox) = try PasskeyEndToEndTests.setUp()
        let directory = NSTemporaryDirectory() + "fido-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try SoftwareKeyServer(
            path: directory + "/key.sock", authenticator: SoftwareAuthenticator(.init(pin: "8642")))
        defer { server.stop() }
        let environment = ["PINGCLI_TEST_FIDO_SOCKET": server.path]
        let made = try journeys.login(
            emulator, sandbox, tree: "Security Key Registration",
            journeys.userLines() + [("PIN for your security key", "8642")], environment: environment)
        #expect(made.status == 0 && made.transcript.contains("with your security key"), "\(made.transcript)")
        #expect(emulator.webAuthnCredentials().count == 1)
        let signed = try journeys.login(
            emulator, sandbox, tree: "Passkey Login", [("User Name: ", "ada"), ("PIN for your security key", "8642")],
            environment: environment)
        #expect(signed.status == 0 && signed.transcript.contains("signing in with your security key"), "\(signed.transcript)")
        #expect(emulator.webAuthnCredentials().first?.signCount ?? 0 > 0)
        journeys.expectNowhere(["8642"], [made.transcript, signed.transcript], sandbox)
    }
}
