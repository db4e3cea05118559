import COpenSSL
import CSodium
import Foundation

/// The JWS algorithm the emulator signs ID tokens and access tokens with (RFC 7518 §3).
///
/// PingOne signs with RS256
/// (https://developer.pingidentity.com/pingone-api/foundations/authentication-concepts/access-tokens-and-id-tokens/token-claims.html);
/// PingFederate lets the administrator pick RS, ES or PS algorithms per access token manager and for ID
/// tokens (https://docs.pingidentity.com/pingfederate/latest/administrators_reference_guide/pf_configure_json_token_management.html).
/// The emulator offers RS256 (default), PS256 (same RSA key) and, for old tests, EdDSA.
public enum SigningAlgorithm: String, Sendable, Codable, CaseIterable {
    case rs256 = "RS256"
    case ps256 = "PS256"
    case edDSA = "EdDSA"
}

/// One 2048-bit RSA key for the whole process: generating one takes tens of milliseconds, and the test
/// suite starts hundreds of emulators. `EVP_PKEY` is never changed after generation, and OpenSSL 3 lets
/// threads sign and verify with one key concurrently (each call has its own `EVP_MD_CTX`).
final class RSAKey: @unchecked Sendable {
    static let shared = RSAKey()

    private let key: OpaquePointer
    let modulus: [UInt8]
    let exponent: [UInt8]

    private init() {
        guard let key = pingemu_rsa_generate(2048) else { fatalError("OpenSSL could not generate an RSA key") }
        self.key = key
        func parameter(_ name: String) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: 512)
            let count = pingemu_rsa_parameter(key, name, &bytes, Int32(bytes.count))
            precondition(count > 0, "RSA key without \(name)")
            return Array(bytes[..<Int(count)])
        }
        modulus = parameter("n")
        exponent = parameter("e")
    }

    func sign(_ message: [UInt8], pss: Bool) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 512)
        var length = signature.count
        guard pingemu_rsa_sha256(key, pss ? 1 : 0, 0, message, message.count, &signature, &length) == 1 else {
            fatalError("OpenSSL could not sign")
        }
        return Array(signature[..<length])
    }

    func verify(_ signature: [UInt8], of message: [UInt8], pss: Bool) -> Bool {
        var bytes = signature
        var length = bytes.count
        return pingemu_rsa_sha256(key, pss ? 1 : 0, 1, message, message.count, &bytes, &length) == 1
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

/// The emulator's signing key: one algorithm, one key, published in the JWKS with its `kid`.
struct SigningKey: Sendable {
    let algorithm: SigningAlgorithm
    let kid: String
    private let rsa: RSAKey?
    private let ed25519: Ed25519Key?

    init(algorithm: SigningAlgorithm) {
        self.algorithm = algorithm
        switch algorithm {
        case .rs256, .ps256:
            let rsa = RSAKey.shared
            self.rsa = rsa
            ed25519 = nil
            // One RSA key may be published as RS256 or PS256: the kid says which (RFC 7517 §4.4).
            kid = Base64URL.encode(Crypto.sha256(rsa.modulus).prefix(12)) + "-" + algorithm.rawValue.lowercased()
        case .edDSA:
            let ed25519 = Ed25519Key()
            self.ed25519 = ed25519
            rsa = nil
            kid = Base64URL.encode(Crypto.sha256(ed25519.publicKey).prefix(12))
        }
    }

    /// The public key as a JWK (RFC 7517): `kty: RSA` with `n` and `e`, or `kty: OKP` for EdDSA.
    var jwk: JSONValue {
        if let rsa {
            return [
                "kty": "RSA", "n": .string(Base64URL.encode(rsa.modulus)), "e": .string(Base64URL.encode(rsa.exponent)),
                "kid": .string(kid), "use": "sig", "alg": .string(algorithm.rawValue),
            ]
        }
        return [
            "kty": "OKP", "crv": "Ed25519", "x": .string(Base64URL.encode(ed25519?.publicKey ?? [])),
            "kid": .string(kid), "use": "sig", "alg": "EdDSA",
        ]
    }

    /// JWS compact serialization of `claims` with header {"alg":…,"typ":typ,"kid":…}.
    func sign(claims: [String: JSONValue], typ: String = "JWT") -> String {
        let header: JSONValue = ["alg": .string(algorithm.rawValue), "typ": .string(typ), "kid": .string(kid)]
        let signingInput =
            Base64URL.encode(Array(header.serialized.utf8)) + "."
            + Base64URL.encode(Array(JSONValue.object(claims).serialized.utf8))
        let message = Array(signingInput.utf8)
        let signature = rsa.map { $0.sign(message, pss: algorithm == .ps256) } ?? ed25519?.sign(message) ?? []
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Verifies a JWS made by `sign` (its header must name this key's algorithm and kid) and returns its
    /// claims.
    func verify(_ jws: String) -> [String: JSONValue]? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])),
            case .object(let header)? = JSONValue.parse(Data(headerBytes)),
            header["alg"] == .string(algorithm.rawValue), header["kid"] == .string(kid),
            let signature = Base64URL.decode(String(parts[2])), let payload = Base64URL.decode(String(parts[1]))
        else { return nil }
        let message = Array((parts[0] + "." + parts[1]).utf8)
        let valid = rsa?.verify(signature, of: message, pss: algorithm == .ps256) ?? ed25519?.verify(signature, of: message) ?? false
        guard valid, case .object(let claims)? = JSONValue.parse(Data(payload)) else { return nil }
        return claims
    }
}
