import PingBase
import PingCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// A JWS algorithm for DPoP proofs ([RFC 9449 §4.2](https://www.rfc-editor.org/rfc/rfc9449#section-4.2), JWA names).
public enum DPoPAlgorithm: String, Sendable, CaseIterable {
    case es256 = "ES256"
    case edDSA = "EdDSA"
    case ps256 = "PS256"
    case rs256 = "RS256"

    /// Those this build can sign with: Ed25519 through libsodium, the others through OpenSSL's libcrypto
    /// (loaded only when a key is made or a proof signed).
    public static let implemented: [DPoPAlgorithm] = [.es256, .edDSA, .ps256, .rs256]

    /// The algorithm for a login that named none: ES256 (what RFC 9449's examples and most providers
    /// use) when this build can sign it, else the first the provider lists that this build can sign.
    public static func choose(advertised: [String]) -> DPoPAlgorithm? {
        let preference: [DPoPAlgorithm] = [.es256, .edDSA, .ps256, .rs256]
        return preference.first { implemented.contains($0) && advertised.contains($0.rawValue) }
    }
}

/// One profile's DPoP key pair. The private half lives only inside the encrypted token cache; nothing
/// prints it (`description` names the algorithm and the thumbprint).
public struct DPoPKey: Sendable, Equatable, CustomStringConvertible {
    public let algorithm: DPoPAlgorithm
    /// Ed25519: the 32-byte seed (RFC 8032 §5.1.5). ES256: the SEC 1 EC private key in DER; PS256 and
    /// RS256: the PKCS#1 RSA private key in DER.
    package let privateKey: [UInt8]
    /// The public key's JWK members that RFC 7638 §3.2 requires, by name.
    package let publicMembers: [(name: String, value: String)]

    public static func == (lhs: DPoPKey, rhs: DPoPKey) -> Bool {
        lhs.algorithm == rhs.algorithm && Sodium.constantTimeEquals(lhs.privateKey, rhs.privateKey)
    }

    public var description: String { "DPoP key (\(algorithm.rawValue), jkt \(thumbprint))" }

    /// An Ed25519 key from its seed; nil when the bytes are not one.
    package init?(algorithm: DPoPAlgorithm, privateKey: [UInt8]) {
        guard algorithm == .edDSA, let publicKey = Sodium.ed25519PublicKey(seed: privateKey) else { return nil }
        self.init(
            algorithm: .edDSA, privateKey: privateKey,
            publicMembers: [("crv", "Ed25519"), ("kty", "OKP"), ("x", Base64URL.encode(publicKey))])
    }

    private init(algorithm: DPoPAlgorithm, privateKey: [UInt8], publicMembers: [(name: String, value: String)]) {
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.publicMembers = publicMembers
    }

    /// A new key pair from the system's random generator (through libcrypto for ES256, PS256, RS256);
    /// nil when it cannot be made (libcrypto missing).
    public static func generate(_ algorithm: DPoPAlgorithm) -> DPoPKey? {
        guard algorithm != .edDSA else { return DPoPKey(algorithm: .edDSA, privateKey: Sodium.randomBytes(32)) }
        guard var pair = try? LibCrypto.generateKey(rsa: algorithm != .es256) else { return nil }
        defer { Sodium.wipe(&pair.privateKey) }
        guard let members = publicMembers(spki: pair.publicKey, rsa: algorithm != .es256) else { return nil }
        return DPoPKey(algorithm: algorithm, privateKey: pair.privateKey, publicMembers: members)
    }

    /// The JWK members of a SubjectPublicKeyInfo (RFC 5280 §4.1.2.7): RSA `n`, `e` (RFC 7518 §6.3.1),
    /// or P-256 `crv`, `x`, `y` from the uncompressed point (RFC 7518 §6.2.1, SEC 1 §2.3.3).
    package static func publicMembers(spki: [UInt8], rsa: Bool) -> [(name: String, value: String)]? {
        var outer = DER.Reader(spki)
        guard let body = outer.read(tag: 0x30), outer.atEnd else { return nil }
        var fields = DER.Reader(body)
        guard fields.read(tag: 0x30) != nil, let bits = fields.read(tag: 0x03), bits.first == 0 else { return nil }
        let key = Array(bits.dropFirst())
        if !rsa {
            guard key.count == 65, key[0] == 4 else { return nil }
            return [("crv", "P-256"), ("kty", "EC"), ("x", Base64URL.encode(key[1...32])), ("y", Base64URL.encode(key[33...]))]
        }
        var sequence = DER.Reader(key)
        guard let numbers = sequence.read(tag: 0x30) else { return nil }
        var integers = DER.Reader(numbers)
        guard let n = integers.read(tag: 0x02), let e = integers.read(tag: 0x02) else { return nil }
        return [
            ("e", Base64URL.encode(e.drop(while: { $0 == 0 }))), ("kty", "RSA"), ("n", Base64URL.encode(n.drop(while: { $0 == 0 }))),
        ]
    }

    /// As kept in the encrypted cache: the algorithm's name and a NUL, then for EdDSA the seed; for the
    /// others the private key's DER (2-byte big-endian length first) and the public members as
    /// `name=value` joined by `&` (so reading the cache never needs libcrypto).
    package var cacheBytes: [UInt8] {
        var bytes = Array(algorithm.rawValue.utf8) + [0]
        guard algorithm != .edDSA else { return bytes + privateKey }
        bytes += [UInt8(privateKey.count >> 8 & 0xFF), UInt8(privateKey.count & 0xFF)] + privateKey
        return bytes + Array(publicMembers.map { "\($0.name)=\($0.value)" }.joined(separator: "&").utf8)
    }

    package init?(cacheBytes bytes: ArraySlice<UInt8>) {
        guard let nul = bytes.firstIndex(of: 0), let name = validUTF8String(bytes[..<nul]),
            let algorithm = DPoPAlgorithm(rawValue: name)
        else { return nil }
        let rest = bytes[(nul + 1)...]
        guard algorithm != .edDSA else {
            self.init(algorithm: .edDSA, privateKey: Array(rest))
            return
        }
        guard rest.count > 2 else { return nil }
        let length = Int(rest[rest.startIndex]) << 8 | Int(rest[rest.startIndex + 1])
        let keyStart = rest.startIndex + 2
        guard length > 0, rest.count - 2 > length, let text = validUTF8String(rest[(keyStart + length)...]) else { return nil }
        let members = text.split(separator: "&").compactMap { pair -> (name: String, value: String)? in
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[1].utf8.allSatisfy(\.isBase64URL) || parts[1] == "P-256" else { return nil }
            return (String(parts[0]), String(parts[1]))
        }
        let expected = algorithm == .es256 ? ["crv", "kty", "x", "y"] : ["e", "kty", "n"]
        guard members.map(\.name) == expected,
            members.contains(where: { $0.name == "kty" && $0.value == (algorithm == .es256 ? "EC" : "RSA") })
        else {
            return nil
        }
        self.init(algorithm: algorithm, privateKey: Array(rest[keyStart..<(keyStart + length)]), publicMembers: members)
    }

    /// The public JWK with only its required members, in lexicographic order
    /// ([RFC 7638 §3.2–3.3](https://www.rfc-editor.org/rfc/rfc7638#section-3.2)).
    public var publicJWK: String { JWKThumbprint.canonicalJSON(publicMembers) }

    /// The JWK SHA-256 thumbprint (RFC 7638 §3), `jkt` and `dpop_jkt` in RFC 9449.
    public var thumbprint: String { JWKThumbprint.sha256(publicMembers) }

    /// The JWS signature over a signing input (RFC 7518 §3.3–3.5, RFC 8037 §3.1): ECDSA as R || S.
    package func sign(_ input: [UInt8]) -> [UInt8]? {
        switch algorithm {
        case .edDSA: return Sodium.ed25519Sign(input, seed: privateKey)
        case .es256, .ps256, .rs256:
            var der = privateKey  // a copy: PrivateKey wipes what it read
            guard let key = try? LibCrypto.PrivateKey(der: &der),
                let signature = key.sign(input, digest: .sha256, pss: algorithm == .ps256)
            else { return nil }
            return algorithm == .es256 ? DER.rawECDSASignature(der: signature, coordinateSize: 32) : signature
        }
    }
}

/// [RFC 7638](https://www.rfc-editor.org/rfc/rfc7638): the JWK thumbprint.
public enum JWKThumbprint {
    /// The required members sorted by name, as a JSON object without whitespace (RFC 7638 §3.3). The
    /// values are base64url or fixed names, so no escaping is ever needed; one that would is refused.
    public static func canonicalJSON(_ members: [(name: String, value: String)]) -> String {
        let sorted = members.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        return "{" + sorted.map { "\"\($0.name)\":\"\($0.value)\"" }.joined(separator: ",") + "}"
    }

    /// base64url(SHA-256(canonical JSON)).
    public static func sha256(_ members: [(name: String, value: String)]) -> String {
        Base64URL.encode(Sodium.sha256(Array(canonicalJSON(members).utf8)))
    }
}

/// A server's `DPoP-Nonce` value ([RFC 9449 §8.1](https://www.rfc-editor.org/rfc/rfc9449#section-8.1):
/// `1*NQCHAR`), at most 1 KiB: it goes into every later proof to that origin.
public struct DPoPNonce: Sendable, Equatable {
    public let value: String

    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 1024,
            bytes.allSatisfy({ (0x21...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C })
        else { return nil }
        value = text
    }
}

/// DPoP proofs ([RFC 9449 §4](https://www.rfc-editor.org/rfc/rfc9449#section-4)).
public enum DPoPProof {
    /// The HTTP target URI without query and fragment (RFC 9449 §4.2 `htu`).
    public static func targetURI(_ url: String) -> String {
        guard let cut = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return url }
        return String(url[..<cut])
    }

    /// `ath`: base64url(SHA-256(ASCII of the access token)) (RFC 9449 §4.2).
    public static func accessTokenHash(_ accessToken: String) -> String {
        Base64URL.encode(Sodium.sha256(Array(accessToken.utf8)))
    }

    /// One signed proof: header `typ`, `alg`, `jwk`; claims `jti` (128 random bits), `htm`, `htu`, `iat`,
    /// `ath` when an access token goes with it, `nonce` when the server gave one.
    public static func make(
        key: DPoPKey, method: String, url: String, issuedAt: Double, accessToken: String? = nil, nonce: DPoPNonce? = nil
    ) -> String? {
        let header = "{\"typ\":\"dpop+jwt\",\"alg\":\"\(key.algorithm.rawValue)\",\"jwk\":\(key.publicJWK)}"
        var claims: [(String, JSONValue)] = [
            ("jti", .string(Base64URL.encode(Sodium.randomBytes(16)))), ("htm", .string(method)),
            ("htu", .string(targetURI(url))), ("iat", .number(issuedAt.rounded(.down))),
        ]
        if let accessToken { claims.append(("ath", .string(accessTokenHash(accessToken)))) }
        if let nonce { claims.append(("nonce", .string(nonce.value))) }
        let payload =
            "{" + claims.map { "\(JSONValue.string($0.0).rendered(pretty: false)):\($0.1.rendered(pretty: false))" }.joined(separator: ",")
            + "}"
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        guard let signature = key.sign(Array(input.utf8)) else { return nil }
        return input + "." + Base64URL.encode(signature)
    }
}

/// Only the encrypted cache's older JSON form (format 2) encodes a token set: the key goes there as
/// base64url of its cache bytes, and comes back through the same check.
extension DPoPKey: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let bytes = Base64URL.decode(text), let key = DPoPKey(cacheBytes: bytes[...]) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a DPoP key"))
        }
        self = key
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Base64URL.encode(cacheBytes))
    }
}

/// What `login --dpop [ALG]` asked for: an algorithm named, or the provider's choice.
public enum DPoPRequest: Sendable, Equatable {
    case providerChoice
    case algorithm(DPoPAlgorithm)

    /// The algorithm to sign with, given the provider's `dpop_signing_alg_values_supported` (RFC 9449
    /// §5.1). A provider that lists none does not announce DPoP: refused unless the algorithm is named.
    package func choose(advertised: [String]?) throws(Failure) -> DPoPAlgorithm {
        switch self {
        case .algorithm(let algorithm):
            if let advertised, !advertised.contains(algorithm.rawValue) { throw .notAccepted(algorithm, advertised: advertised) }
            return algorithm
        case .providerChoice:
            guard let advertised else { throw .unannounced }
            guard let algorithm = DPoPAlgorithm.choose(advertised: advertised) else { throw .noneImplemented(advertised: advertised) }
            return algorithm
        }
    }

    /// Why no DPoP algorithm could be used, with the provider's list; worded where the flows word
    /// failures (`PingFlowCore/OAuthAdvice.swift`).
    package enum Failure: Error, Sendable, Equatable {
        /// The algorithm named is not in the provider's `dpop_signing_alg_values_supported`.
        case notAccepted(DPoPAlgorithm, advertised: [String])
        /// The provider lists no `dpop_signing_alg_values_supported`, and no algorithm was named.
        case unannounced
        /// The provider lists only algorithms this build does not sign with.
        case noneImplemented(advertised: [String])

        package var rule: Rule { self == .unannounced ? .dpopUnannounced : .dpopAlgorithmChoice }
    }
}

extension TokenSet {
    /// The `Authorization` header for a resource request: `DPoP` for a token bound to the profile's key
    /// (RFC 9449 §7.1; the transport adds the proof with `ath`), else `Bearer` (RFC 6750 §2.1).
    public var authorization: (name: String, value: String) {
        ("Authorization", (dpopKey == nil ? "Bearer " : "DPoP ") + accessToken.value)
    }
}
