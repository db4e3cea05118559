import COpenSSL
import CSodium
import EmulatorHTTP
import Foundation

/// The JWS algorithm the emulator signs ID tokens with (RFC 7518 §3, EdDSA RFC 8037).
///
/// PingOne signs with RS256
/// (https://developer.pingidentity.com/pingone-api/foundations/authentication-concepts/access-tokens-and-id-tokens/token-claims.html);
/// PingFederate lets the administrator pick RS, ES or PS algorithms per client
/// (https://docs.pingidentity.com/pingfederate/latest/administrators_reference_guide/pf_configure_json_token_management.html).
/// HS algorithms sign ID tokens with the client's secret (OIDC Core §10.1); access tokens then use RS256.
public enum SigningAlgorithm: String, Sendable, Codable, CaseIterable {
    case rs256 = "RS256", rs384 = "RS384", rs512 = "RS512"
    case ps256 = "PS256", ps384 = "PS384", ps512 = "PS512"
    case es256 = "ES256", es384 = "ES384", es512 = "ES512"
    case edDSA = "EdDSA"
    case hs256 = "HS256", hs384 = "HS384", hs512 = "HS512"

    /// 0 SHA-256, 1 SHA-384, 2 SHA-512.
    var digest: Int32 {
        switch self {
        case .rs256, .ps256, .es256, .hs256, .edDSA: 0
        case .rs384, .ps384, .es384, .hs384: 1
        case .rs512, .ps512, .es512, .hs512: 2
        }
    }

    var isHMAC: Bool { self == .hs256 || self == .hs384 || self == .hs512 }
}

/// An OpenSSL key pair. `EVP_PKEY` is never changed after generation, and OpenSSL 3 lets threads sign and
/// verify with one key concurrently (each call has its own `EVP_MD_CTX`).
final class OpenSSLKey: @unchecked Sendable {
    let key: OpaquePointer

    /// Generating an RSA key takes tens of milliseconds and the suite starts hundreds of emulators: one
    /// shared key unless a rotation asks for a new one.
    static let sharedRSA = OpenSSLKey.rsa()
    /// A second RSA key, published only by the `foreign-kid` fault.
    static let otherRSA = OpenSSLKey.rsa()

    private init(_ key: OpaquePointer) { self.key = key }
    deinit { EVP_PKEY_free(key) }

    static func rsa() -> OpenSSLKey {
        guard let key = pingemu_rsa_generate(2048) else { fatalError("OpenSSL could not generate an RSA key") }
        return OpenSSLKey(key)
    }

    /// 0 P-256, 1 P-384, 2 P-521.
    static func ec(curve: Int32) -> OpenSSLKey {
        guard let key = pingemu_ec_generate(curve) else { fatalError("OpenSSL could not generate an EC key") }
        return OpenSSLKey(key)
    }

    /// A public key from a DER SubjectPublicKeyInfo (for client assertions), or nil.
    static func publicKey(der: [UInt8]) -> OpenSSLKey? {
        pingemu_public_key(der, der.count).map(OpenSSLKey.init)
    }

    func parameter(_ name: String, pad: Int = 0) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = pingemu_key_parameter(key, name, &bytes, Int32(bytes.count), Int32(pad))
        precondition(count > 0, "key without \(name)")
        return Array(bytes[..<Int(count)])
    }

    /// The public key as a DER SubjectPublicKeyInfo.
    var publicKeyDER: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = pingemu_public_key_der(key, &bytes, Int32(bytes.count))
        precondition(count > 0, "cannot write the public key")
        return Array(bytes[..<Int(count)])
    }

    /// The private key as PKCS#8 PEM, for tests that hand pingcli a key file.
    var privateKeyPEM: String {
        var bytes = [CChar](repeating: 0, count: 8192)
        let count = pingemu_private_key_pem(key, &bytes, Int32(bytes.count))
        precondition(count > 0, "cannot write the key as PEM")
        return String(decoding: bytes[..<Int(count)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Signs with hash `digest`; ECDSA as DER.
    func sign(_ message: [UInt8], digest: Int32, pss: Bool) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 1024)
        var length = signature.count
        guard pingemu_signature(key, digest, pss ? 1 : 0, 0, message, message.count, &signature, &length) == 1 else {
            fatalError("OpenSSL could not sign")
        }
        return Array(signature[..<length])
    }

    func verify(_ signature: [UInt8], of message: [UInt8], digest: Int32, pss: Bool) -> Bool {
        var bytes = signature.isEmpty ? [0] : signature
        var length = signature.count
        return pingemu_signature(key, digest, pss ? 1 : 0, 1, message, message.count, &bytes, &length) == 1
    }
}

/// HMAC-SHA-2 (RFC 2104) through OpenSSL.
func hmac(digest: Int32, key: [UInt8], message: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 64)
    let length = pingemu_hmac(digest, key, Int32(key.count), message, message.count, &out)
    return Array(out[..<Int(length)])
}

/// ECDSA signatures between OpenSSL's DER and JWS's R || S (RFC 7518 §3.4).
enum ECDSASignature {
    static func raw(der: [UInt8], size: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 2 * size)
        return pingemu_ecdsa_der_to_raw(der, der.count, &out, Int32(size)) == 1 ? out : nil
    }

    static func der(raw: [UInt8], size: Int) -> [UInt8]? {
        guard raw.count == 2 * size else { return nil }
        var out = [UInt8](repeating: 0, count: 2 * size + 16)
        let length = pingemu_ecdsa_raw_to_der(raw, Int32(size), &out, Int32(out.count))
        return length > 0 ? Array(out[..<Int(length)]) : nil
    }
}

/// An Ed25519 key pair (libsodium), for the EdDSA switch.
struct Ed25519Key: Sendable {
    let publicKey: [UInt8]
    let secretKey: [UInt8]

    init() {
        var pk = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var sk = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        crypto_sign_keypair(&pk, &sk)
        publicKey = pk
        secretKey = sk
    }

    func sign(_ message: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        var length: UInt64 = 0
        crypto_sign_detached(&signature, &length, message, UInt64(message.count), secretKey)
        return signature
    }

    func verify(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        signature.count == Int(crypto_sign_BYTES)
            && crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }
}
