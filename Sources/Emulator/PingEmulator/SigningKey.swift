import EmulatorHTTP
import Foundation

/// One of the emulator's signing keys: an algorithm, a key of the type it needs, and its `kid`.
struct SigningKey: Sendable {
    enum Material: Sendable {
        case rsa(OpenSSLKey, pss: Bool)
        /// An EC key and its coordinate size in bytes.
        case ec(OpenSSLKey, size: Int)
        case ed25519(Ed25519Key)
    }

    let algorithm: SigningAlgorithm
    let kid: String
    let material: Material

    /// A key for `algorithm` (HMAC algorithms sign ID tokens with the client's secret: this key is then
    /// the RS256 key for access tokens). `fresh` makes a new RSA key rather than the shared one.
    init(algorithm requested: SigningAlgorithm, fresh: Bool = false) {
        let algorithm = requested.isHMAC ? .rs256 : requested
        self.algorithm = algorithm
        switch algorithm {
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512, .hs256, .hs384, .hs512:
            let rsa = fresh ? OpenSSLKey.rsa() : OpenSSLKey.sharedRSA
            material = .rsa(rsa, pss: algorithm.rawValue.hasPrefix("PS"))
            // One RSA key may be published for several algorithms: the kid says which (RFC 7517 §4.4).
            kid = Base64URL.encode(Crypto.sha256(rsa.parameter("n")).prefix(12)) + "-" + algorithm.rawValue.lowercased()
        case .es256, .es384, .es512:
            let curve: Int32 = algorithm == .es256 ? 0 : algorithm == .es384 ? 1 : 2
            let size = [32, 48, 66][Int(curve)]
            let ec = OpenSSLKey.ec(curve: curve)
            material = .ec(ec, size: size)
            kid = Base64URL.encode(Crypto.sha256(ec.parameter("qx", pad: size)).prefix(12))
        case .edDSA:
            let ed25519 = Ed25519Key()
            material = .ed25519(ed25519)
            kid = Base64URL.encode(Crypto.sha256(ed25519.publicKey).prefix(12))
        }
    }

    /// An RS256 key with its own kid, for the `foreign-kid` fault.
    init(other key: OpenSSLKey) {
        algorithm = .rs256
        material = .rsa(key, pss: false)
        kid = Base64URL.encode(Crypto.sha256(key.parameter("n")).prefix(12)) + "-other"
    }

    /// The public key as a JWK (RFC 7517, RFC 7518 §6, RFC 8037 §2).
    var jwk: EmulatorJSON {
        var fields: [String: EmulatorJSON] = ["kid": .string(kid), "use": "sig", "alg": .string(algorithm.rawValue)]
        switch material {
        case .rsa(let key, _):
            fields["kty"] = "RSA"
            fields["n"] = .string(Base64URL.encode(key.parameter("n")))
            fields["e"] = .string(Base64URL.encode(key.parameter("e")))
        case .ec(let key, let size):
            fields["kty"] = "EC"
            fields["crv"] = .string(["P-256", "P-384", "P-521"][Int(algorithm.digest)])
            fields["x"] = .string(Base64URL.encode(key.parameter("qx", pad: size)))
            fields["y"] = .string(Base64URL.encode(key.parameter("qy", pad: size)))
        case .ed25519(let key):
            fields["kty"] = "OKP"
            fields["crv"] = "Ed25519"
            fields["x"] = .string(Base64URL.encode(key.publicKey))
        }
        return .object(fields)
    }

    /// The signature of `message` in JWS form (ECDSA as R || S).
    func signature(_ message: [UInt8]) -> [UInt8] {
        switch material {
        case .rsa(let key, let pss): return key.sign(message, digest: algorithm.digest, pss: pss)
        case .ec(let key, let size):
            return ECDSASignature.raw(der: key.sign(message, digest: algorithm.digest, pss: false), size: size) ?? []
        case .ed25519(let key): return key.sign(message)
        }
    }

    func isValid(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        switch material {
        case .rsa(let key, let pss): return key.verify(signature, of: message, digest: algorithm.digest, pss: pss)
        case .ec(let key, let size):
            guard let der = ECDSASignature.der(raw: signature, size: size) else { return false }
            return key.verify(der, of: message, digest: algorithm.digest, pss: false)
        case .ed25519(let key): return key.verify(signature, of: message)
        }
    }

    /// JWS compact serialization of `claims` with header {"alg":…,"typ":typ,"kid":…}.
    func sign(claims: [String: EmulatorJSON], typ: String = "JWT") -> String {
        let input = JWS.signingInput(["alg": .string(algorithm.rawValue), "typ": .string(typ), "kid": .string(kid)], claims)
        return input + "." + Base64URL.encode(signature(Array(input.utf8)))
    }
}

/// Compact JWS pieces (RFC 7515 §7.1).
enum JWS {
    static func signingInput(_ header: [String: EmulatorJSON], _ claims: [String: EmulatorJSON]) -> String {
        Base64URL.encode(Array(EmulatorJSON.object(header).serialized.utf8)) + "."
            + Base64URL.encode(Array(EmulatorJSON.object(claims).serialized.utf8))
    }

    /// Header, claims, signing input and signature of a compact JWS, or nil.
    static func split(
        _ jws: String
    ) -> (header: [String: EmulatorJSON], claims: [String: EmulatorJSON], input: [UInt8], signature: [UInt8])? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])),
            case .object(let header)? = EmulatorJSON.parse(Data(headerBytes)), let payload = Base64URL.decode(String(parts[1])),
            case .object(let claims)? = EmulatorJSON.parse(Data(payload)), let signature = Base64URL.decode(String(parts[2]))
        else { return nil }
        return (header, claims, Array((parts[0] + "." + parts[1]).utf8), signature)
    }
}

/// The emulator's keys: the current one signs; those retired by a rotation stay published (and verify
/// the tokens they signed), as providers keep old keys in the JWKS for a while.
struct KeyRing: Sendable {
    var current: SigningKey
    var retired: [SigningKey] = []

    var all: [SigningKey] { [current] + retired }

    /// A new key of the same algorithm (a new RSA key too), the old one kept for verification.
    mutating func rotate() {
        retired.insert(current, at: 0)
        current = SigningKey(algorithm: current.algorithm, fresh: true)
    }

    func sign(claims: [String: EmulatorJSON], typ: String = "JWT") -> String { current.sign(claims: claims, typ: typ) }

    /// The claims of a JWS one of these keys signed (the header's alg and kid name it), or nil.
    func verify(_ jws: String) -> [String: EmulatorJSON]? {
        guard let parts = JWS.split(jws),
            let key = all.first(where: { parts.header["kid"] == .string($0.kid) && parts.header["alg"] == .string($0.algorithm.rawValue) }),
            key.isValid(parts.signature, of: parts.input)
        else { return nil }
        return parts.claims
    }
}

/// A signing key for the tests' other servers (the hostile provider): its JWK Set and compact JWS.
public struct TestSigningKey: Sendable {
    let key: SigningKey

    public init(algorithm: SigningAlgorithm = .rs256) { key = SigningKey(algorithm: algorithm) }

    public var jwksJSON: String { EmulatorJSON.object(["keys": [key.jwk]]).serialized }

    /// A compact JWS of `payloadJSON` exactly as given (hostile text included).
    public func sign(payloadJSON: String) -> String {
        let header = EmulatorJSON.object(["alg": .string(key.algorithm.rawValue), "typ": "JWT", "kid": .string(key.kid)]).serialized
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payloadJSON.utf8))
        return input + "." + Base64URL.encode(key.signature(Array(input.utf8)))
    }
}
