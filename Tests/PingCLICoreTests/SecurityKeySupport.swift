import FIDOTestAuthenticator
import Foundation
import PingCrypto
import PingWebAuthn

@testable import PingFIDO2

/// The tests' software authenticator on a Unix socket in a private directory, and a `SecurityKey` that
/// reaches it through libfido2 (the test builds' socket transport).
final class PluggedSoftwareKey {
    let directory = makeTemporaryDirectory("fido")
    let authenticator: SoftwareAuthenticator
    let server: SoftwareKeyServer
    var key: SecurityKey { SecurityKey(testSocket: server.path) }

    init(_ configuration: SoftwareAuthenticator.Configuration = .init()) throws {
        authenticator = SoftwareAuthenticator(configuration)
        server = try SoftwareKeyServer(path: directory + "/key.sock", authenticator: authenticator)
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// The person at the key: PINs to type in order (nil: declines), and what they were told.
final class ScriptedInteraction: AuthenticatorInteraction {
    var pins: [String?]
    private(set) var askedRetries: [Int?] = []
    private(set) var touches = 0

    init(pins: [String?] = []) { self.pins = pins }

    func touchRequested() { touches += 1 }

    func pin(retries: Int?, confirm: Bool) -> [UInt8]? {
        askedRetries.append(retries)
        guard !pins.isEmpty, let pin = pins.removeFirst() else { return nil }
        return Array(pin.utf8)
    }
}

enum WebAuthnSamples {
    static let rp = RelyingParty(id: "am.example.test", name: "Example")
    static let clientDataHash = Sodium.sha256(Array(#"{"type":"webauthn.create","challenge":"x"}"#.utf8))

    static func creation(
        user: String = "alice", residentKey: Bool = false, userVerification: UserVerification = .preferred,
        algorithms: [COSEAlgorithm] = [.es256], exclude: [[UInt8]] = []
    ) -> CredentialCreationRequest {
        CredentialCreationRequest(
            clientDataHash: clientDataHash, relyingParty: rp,
            user: WebAuthnUser(id: Array("id-\(user)".utf8), name: user, displayName: user),
            algorithms: algorithms, excludeCredentials: exclude, residentKey: residentKey, userVerification: userVerification)
    }

    static func assertion(allow: [[UInt8]], userVerification: UserVerification = .preferred) -> AssertionRequest {
        AssertionRequest(
            clientDataHash: Sodium.sha256(Array("get".utf8)), rpId: rp.id, allowCredentials: allow, userVerification: userVerification)
    }

    /// The attestation object's parts, read back with pingcli's CBOR.
    static func parts(_ attestationObject: [UInt8]) throws -> (fmt: String?, statement: CBOR?, authData: [UInt8]) {
        let object = try CBOR.decode(attestationObject)
        return (object["fmt"]?.textValue, object["attStmt"], object["authData"]?.bytesValue ?? [])
    }

    /// The credential's COSE key in authenticator data (WebAuthn §6.5.1), as a P-256 SubjectPublicKeyInfo.
    static func publicKey(authData: [UInt8]) throws -> [UInt8] {
        let idLength = Int(authData[53]) << 8 | Int(authData[54])
        let (cose, _) = try CBOR.decodePrefix(authData[(55 + idLength)...])
        guard cose[intKey: 1]?.intValue == 2, cose[intKey: 3]?.intValue == -7, cose[intKey: -1]?.intValue == 1,
            let x = cose[intKey: -2]?.bytesValue, let y = cose[intKey: -3]?.bytesValue, x.count == 32, y.count == 32
        else { throw CBOR.DecodingError.malformed }
        // SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING 04 || x || y }
        let prefix: [UInt8] = [
            0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d,
            0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04,
        ]
        return prefix + x + y
    }

    static func verifies(spki: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
        (try? LibCrypto.verify(publicKey: spki, digest: .sha256, pss: false, message: message, signature: signature).valid) == true
    }
}
