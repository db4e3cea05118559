import Foundation
import Testing

@testable import PingAM
@testable import PingBase
@testable import PingCrypto
@testable import PingEmulator
@testable import PingFlowCore
@testable import PingJourney
@testable import PingLogin
@testable import PingWebAuthn

/// A security key for these tests: an ES256 software key pair per credential (libcrypto), answering
/// through the `WebAuthnAuthenticator` interface as a FIDO2 key would. It stands in for PingFIDO2 only at
/// the seam (`JourneyFlow.securityKey`): the emulator's WebAuthn nodes verify what it makes.
final class SoftwareSecurityKey: WebAuthnAuthenticator, @unchecked Sendable {
    let attachment = AuthenticatorAttachment.crossPlatform
    private var credentials: [(id: [UInt8], rpID: String, user: [UInt8], key: SoftwareDeviceKey)] = []
    private var counter: UInt32 = 0
    private(set) var touches = 0

    func makeCredential(
        _ request: CredentialCreationRequest, interaction: any AuthenticatorInteraction
    ) throws(AuthenticatorFailure) -> CreatedCredential {
        guard request.algorithms.contains(.es256), let key = SoftwareDeviceKey.generate(.es256) else { throw .notSupported }
        interaction.touchRequested()
        touches += 1
        func member(_ name: String) -> [UInt8] { Base64URL.decode(key.publicMembers.first { $0.name == name }?.value ?? "") ?? [] }
        let id = Sodium.randomBytes(32)
        credentials.append((id, request.relyingParty.id, request.user.id, key))
        let data = AuthenticatorData(
            rpID: request.relyingParty.id, flags: AuthenticatorData.userPresent | AuthenticatorData.userVerified, signCount: 0,
            attested: .init(credentialID: id, publicKey: COSEKey.es256(x: member("x"), y: member("y"))))
        return CreatedCredential(
            credentialId: id, attestationObject: AttestationObject.none(authenticatorData: data.bytes), attachment: .crossPlatform)
    }

    func getAssertion(_ request: AssertionRequest, interaction: any AuthenticatorInteraction) throws(AuthenticatorFailure) -> Assertion {
        guard let found = credentials.first(where: { $0.rpID == request.rpId && request.allowCredentials.contains($0.id) }) else {
            throw .noCredential
        }
        interaction.touchRequested()
        touches += 1
        counter += 1
        let data = AuthenticatorData(
            rpID: request.rpId, flags: AuthenticatorData.userPresent | AuthenticatorData.userVerified, signCount: counter)
        guard let raw = found.key.sign(data.bytes + request.clientDataHash), let der = DER.ecdsaSignature(raw: raw, coordinateSize: 32)
        else {
            throw .device(code: -1)
        }
        return Assertion(
            credentialId: found.id, authenticatorData: data.bytes, signature: der, userHandle: found.user, attachment: .crossPlatform)
    }
}

@Suite("the security key seam of a journey's WebAuthn steps, in process")
struct SecurityKeySeamFlowTests {
    func run(_ harness: FlowHarness, tree: String, lines: [String], key: SoftwareSecurityKey?) throws -> FlowRun {
        let (context, captured) = try harness.context()
        var signIn = try #require(SignIn.forTests(issuer: harness.emulator.issuer))
        signIn.journey = SignIn.Journey(tree: PingAM.JourneyTree(tree))
        var flow = JourneyFlow(signIn: signIn, context: context.forJourney, terminal: ScriptedTerminal(lines).input)
        flow.securityKey = key.map { key in { key } }
        return runJourneyFlow(flow, captured)
    }

    @Test(
        "webauthn-security-key-seam: a cross-platform registration and a sign-in whose allowCredentials this machine does not hold go to the injected security key; AM verifies both"
    )
    func securityKey() throws {
        let harness = try FlowHarness { $0.layout = .pingAM }
        let key = SoftwareSecurityKey()
        let made = try run(harness, tree: "Security Key Registration", lines: ["demo", "demo"], key: key)
        #expect(
            made.status == 0 && made.stderr.contains("with your security key") && made.stderr.contains("Touch your security key"), "\(made)"
        )
        #expect(harness.emulator.webAuthnCredentials().count == 1 && key.touches == 1)
        let signed = try run(harness, tree: "Passkey Login", lines: ["demo"], key: key)
        #expect(signed.status == 0 && signed.stderr.contains("signing in with your security key") && key.touches == 2, "\(signed)")
        #expect(harness.emulator.webAuthnCredentials().first?.signCount == 1)
        // Without the key, the same step is told NotAllowedError and the tree's password path runs.
        let without = try run(harness, tree: "Passkey Login", lines: ["demo", "demo"], key: nil)
        #expect(without.status == 0 && harness.emulator.webAuthnAnswers().last?.hasPrefix("ERROR::NotAllowedError:") == true, "\(without)")
    }
}
