import PingAuthenticators
import PingBase
import PingCrypto
import PingFlowCore
import PingWebAuthn

/// This machine's TPM 2.0 as a WebAuthn platform authenticator: an ES256 key created in the TPM under
/// its storage hierarchy with the person's PIN as its authorisation value (so the TPM checks the PIN and
/// its dictionary-attack lockout guards it: user verification), attestation `none` (or `packed` self
/// attestation when the relying party asks for `direct`), the credential discoverable (kept in the
/// passkey store with its user handle, sealed to this TPM). No software fallback: without a TPM there is
/// no platform authenticator.
final class TPMPlatformAuthenticator: WebAuthnAuthenticator {
    let attachment = AuthenticatorAttachment.platform
    let passkeys: JourneyPasskeys
    let session: TPM2.Session
    let cacheKey: [UInt8]
    /// The relying party's attestation preference (`direct`: packed self attestation).
    var attestation = "none"
    /// The passkeys an assertion may use (chosen by the journey).
    var candidates: [PasskeyRecord] = []
    /// Lines for the person (a refused PIN).
    let notice: (String) -> Void
    /// The TPM's own failure behind a `.device` or `.pinBlocked`, for the journey to word.
    private(set) var tpmFailure: TPM2.Failure?
    /// The counter and limit when the next wrong PIN would lock the TPM out.
    private(set) var lockoutNear: (failures: UInt32, maximum: UInt32)?
    /// The passkey made or used.
    private(set) var record: PasskeyRecord?

    init(passkeys: JourneyPasskeys, session: TPM2.Session, cacheKey: [UInt8], notice: @escaping (String) -> Void) {
        self.passkeys = passkeys
        self.session = session
        self.cacheKey = cacheKey
        self.notice = notice
    }

    func makeCredential(
        _ request: CredentialCreationRequest, interaction: any AuthenticatorInteraction
    ) throws(AuthenticatorFailure) -> CreatedCredential {
        guard request.algorithms.contains(.es256) else { throw .notSupported }
        if candidates.contains(where: { request.excludeCredentials.contains($0.credentialID) }) { throw .excluded }
        guard var pin = interaction.pin(retries: nil, confirm: true) else { throw .notAllowed }
        defer { Sodium.wipe(&pin) }
        let blob: [UInt8]
        let x: [UInt8]
        let y: [UInt8]
        do {
            blob = try session.createSigningKey(.p256, pin: pin)
            (_, x, y) = try TPM2.publicKey(blob)
        } catch {
            tpmFailure = error
            throw .device(code: 0)
        }
        let id = DeviceKeyStore.newKeyID()
        let credentialID = PasskeyStore.credentialID(id) ?? []
        let data = AuthenticatorData(
            rpID: request.relyingParty.id, flags: AuthenticatorData.userPresent | AuthenticatorData.userVerified, signCount: 0,
            attested: .init(credentialID: credentialID, publicKey: COSEKey.es256(x: x, y: y))
        ).bytes
        var object = AttestationObject.none(authenticatorData: data)
        if attestation == "direct" {
            let signature = try sign(blob: blob, pin: pin, data + request.clientDataHash)
            object = AttestationObject.packedSelf(authenticatorData: data, algorithm: .es256, signature: signature)
        }
        record = PasskeyRecord(
            id: id, rpID: request.relyingParty.id, userHandle: request.user.id, userName: request.user.name,
            displayName: request.user.displayName, origin: passkeys.amOrigin, realm: passkeys.realm,
            created: UInt64(max(0, passkeys.clock())), signCount: 0, blob: blob)
        return CreatedCredential(credentialId: credentialID, attestationObject: object, attachment: .platform)
    }

    func getAssertion(_ request: AssertionRequest, interaction: any AuthenticatorInteraction) throws(AuthenticatorFailure) -> Assertion {
        // A passkey is only ever used for the RP id it was made for.
        guard
            var chosen = candidates.first(where: {
                $0.rpID == request.rpId && (request.allowCredentials.isEmpty || request.allowCredentials.contains($0.credentialID))
            })
        else { throw .noCredential }
        for _ in 1...3 {
            // Never the try that would put the TPM into dictionary-attack lockout.
            if let (failures, maximum) = session.lockoutCounter(), maximum > 0, failures + 1 >= maximum {
                lockoutNear = (failures, maximum)
                throw .pinBlocked
            }
            guard var pin = interaction.pin(retries: nil, confirm: false) else { throw .notAllowed }
            defer { Sodium.wipe(&pin) }
            let count = chosen.signCount &+ 1
            let data = AuthenticatorData(
                rpID: chosen.rpID, flags: AuthenticatorData.userPresent | AuthenticatorData.userVerified, signCount: count
            ).bytes
            do throws(AuthenticatorFailure) {
                let signature = try sign(blob: chosen.blob, pin: pin, data + request.clientDataHash)
                chosen.signCount = count
                record = chosen
                return Assertion(
                    credentialId: chosen.credentialID, authenticatorData: data, signature: signature, userHandle: chosen.userHandle,
                    attachment: .platform)
            } catch {
                guard case .authorizationFailed(let failures, let maximum)? = tpmFailure else { throw error }
                let counted = failures.map { f in maximum.map { ", \(f) of \($0) failures before it locks out" } ?? "" } ?? ""
                notice("pingcli: the TPM refused that PIN (the passkey is kept\(counted)).")
            }
        }
        throw .wrongPIN(retries: nil)
    }

    /// ES256 in the TPM: SHA-256 of `input` signed with the key in `blob`, as ASN.1 DER.
    private func sign(blob: [UInt8], pin: [UInt8], _ input: [UInt8]) throws(AuthenticatorFailure) -> [UInt8] {
        do throws(TPM2.Failure) {
            tpmFailure = nil
            let raw = try session.sign(blob: blob, pin: pin, digest: Sodium.sha256(input))
            guard let der = DER.ecdsaSignature(raw: raw, coordinateSize: 32) else { throw TPM2.Failure.damagedBlob }
            return der
        } catch {
            tpmFailure = error
            if case .lockout = error { throw .pinBlocked }
            throw .device(code: 0)
        }
    }
}
