import PingAM
import PingCrypto

/// A bound device key created in this machine's TPM 2.0 (`TPM2`): it signs inside the chip, and only
/// the TPM's wrapped blob is kept (in the key's record, itself encrypted under the cache key). With a PIN,
/// the PIN is the key's authorisation value: the TPM checks it, counts a wrong one against its
/// dictionary-attack lockout, and a wrong one changes nothing of the key.
package final class TPMDeviceKey: DeviceSigner {
    package let algorithm: DeviceKeyAlgorithm
    package let blob: [UInt8]
    package let publicMembers: [(name: String, value: String)]
    private let session: TPM2.Session
    private var pin: [UInt8]
    /// Why the last `sign` returned nil.
    package private(set) var failure: TPM2.Failure?

    /// The key in `blob`, to sign through `session` with `pin` (empty: none).
    package init(session: TPM2.Session, blob: [UInt8], pin: [UInt8]) throws(TPM2.Failure) {
        let (type, first, second) = try TPM2.publicKey(blob)
        self.session = session
        self.blob = blob
        self.pin = pin
        switch type {
        case .p256:
            algorithm = .es256
            publicMembers = [("crv", "P-256"), ("kty", "EC"), ("x", Base64URL.encode(first)), ("y", Base64URL.encode(second))]
        case .rsa2048:
            algorithm = .rs512
            publicMembers = [("e", Base64URL.encode(second)), ("kty", "RSA"), ("n", Base64URL.encode(first))]
        }
    }

    deinit { Sodium.wipe(&pin) }

    /// A new key in the TPM: ES256 (P-256) where the TPM has it, else RS512 (RSA 2048, SHA-512); only
    /// `preferred` when one is asked for (`.unsupported` when the TPM lacks it).
    package static func generate(
        session: TPM2.Session, pin: [UInt8], preferring preferred: DeviceKeyAlgorithm? = nil
    ) throws(TPM2.Failure) -> TPMDeviceKey {
        let type = try session.keyType(preferring: preferred.map { $0 == .es256 ? .p256 : .rsa2048 })
        return try TPMDeviceKey(session: session, blob: try session.createSigningKey(type, pin: pin), pin: pin)
    }

    package func sign(_ input: [UInt8]) -> [UInt8]? {
        let digest = algorithm == .es256 ? Sodium.sha256(input) : Sodium.sha512(input)
        do {
            failure = nil
            return try session.sign(blob: blob, pin: pin, digest: digest)
        } catch {
            failure = error
            return nil
        }
    }
}
