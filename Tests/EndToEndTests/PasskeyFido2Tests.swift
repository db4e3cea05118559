import Foundation
import PingEmulator
import Testing

/// Debian's python3-fido2 can be imported.
let fido2Available =
    runProcess("/usr/bin/python3", ["-c", "import fido2.ctap2, fido2.attestation, fido2.cose"], environment: [:], timeout: 30).status == 0

/// pingcli's CBOR, COSE keys, authenticator data, attestation objects and signatures, as the built binary
/// sent them to the emulator from a passkey in swtpm, read and verified by an independent
/// implementation: Debian's python3-fido2 (its CBOR codec, `AttestationObject`, `PackedAttestation`,
/// `CoseKey`), and its RP id rule beside pingcli's.
@Suite(
    "passkey output checked by python3-fido2",
    .enabled(if: SoftwareTPM.available && fido2Available, "needs swtpm and python3-fido2 (make deps)"))
struct PasskeyFido2Tests {
    static let python = "/usr/bin/python3"

    /// The `::` parts of an answer (unwrapping the JSON form).
    static func parts(_ answer: String) throws -> [String] {
        var legacy = answer
        if answer.hasPrefix("{") {
            let object = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
            legacy = try #require(object?["legacyData"] as? String)
        }
        return legacy.components(separatedBy: "::")
    }

    static func hex(_ signedList: String) -> String {
        signedList.split(separator: ",").map { String(format: "%02x", UInt8(bitPattern: Int8($0)!)) }.joined()
    }

    static let script = """
        import sys, hashlib
        from fido2 import cbor
        from fido2.ctap2 import AttestationObject, AuthenticatorData
        from fido2.attestation import PackedAttestation, NoneAttestation
        from fido2.cose import CoseKey, ES256
        from fido2.utils import websafe_decode
        cdj_reg, att_hex, cred_b64, cdj_get, auth_hex, sig_hex, rp_id = sys.argv[1:8]
        att = bytes.fromhex(att_hex)
        assert cbor.encode(cbor.decode(att)) == att, "not CTAP2 canonical CBOR"
        obj = AttestationObject(att)
        ad = obj.auth_data
        assert ad.rp_id_hash == hashlib.sha256(rp_id.encode()).digest(), "rpIdHash"
        assert ad.is_user_present() and ad.is_user_verified() and ad.is_attested(), "flags"
        cred = ad.credential_data
        assert cred.credential_id == websafe_decode(cred_b64), "credential id"
        cose = bytes(ad)[55 + len(cred.credential_id):]
        assert cbor.encode(cbor.decode(cose)) == cose, "COSE key not canonical"
        key = CoseKey.parse(cbor.decode(cose))
        assert isinstance(key, ES256) and key[-1] == 1 and len(key[-2]) == 32 and len(key[-3]) == 32, "not an ES256 P-256 key"
        verifier = {"packed": PackedAttestation(), "none": NoneAttestation()}[obj.fmt]
        verifier.verify(obj.att_statement, ad, hashlib.sha256(cdj_reg.encode()).digest())
        data = AuthenticatorData(bytes.fromhex(auth_hex))
        assert data.rp_id_hash == ad.rp_id_hash and data.is_user_present() and data.is_user_verified() and not data.is_attested()
        assert data.counter > ad.counter, "counter"
        key.verify(bytes(data) + hashlib.sha256(cdj_get.encode()).digest(), bytes.fromhex(sig_hex))
        print("verified", obj.fmt)
        """

    @Test(
        "passkey-fido2: python3-fido2 parses and verifies the attestation object (none, and packed self attestation), the COSE key and an assertion pingcli made in the TPM"
    )
    func verifiedByFido2() throws {
        let passkeys = PasskeyEndToEndTests()
        for tree in ["Passkey Registration", "Passkey Registration Direct"] {
            let (emulator, sandbox) = try PasskeyEndToEndTests.setUp()
            let tpm = try SoftwareTPM()
            #expect(try passkeys.register(emulator, sandbox, tpm, tree: tree).status == 0)
            #expect(try passkeys.login(emulator, sandbox, tcti: tpm.tcti).status == 0)
            let answers = emulator.webAuthnAnswers()
            let registration = try Self.parts(try #require(answers.first))
            let assertion = try Self.parts(try #require(answers.last))
            let run = runProcess(
                Self.python,
                [
                    "-c", Self.script, registration[0], Self.hex(registration[1]), registration[2], assertion[0], Self.hex(assertion[1]),
                    Self.hex(assertion[2]), "127.0.0.1",
                ], environment: [:], timeout: 60)
            let format = tree.hasSuffix("Direct") ? "packed" : "none"
            #expect(run.status == 0 && run.stdout.contains("verified \(format)"), "\(tree): \(run)")
        }
    }
}
