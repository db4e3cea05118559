import PingBase
import PingCrypto

/// The signature rules of an ID token ([OIDC Core §3.1.3.7](https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation)
/// 6–8, [RFC 7515 §5.2](https://www.rfc-editor.org/rfc/rfc7515#section-5.2), RFC 7518, RFC 8037), one
/// failure per rule. Worded where the flows word failures (`PingFlowCore/OAuthAdvice.swift`), each line
/// starting with the rule's name.
public enum SignatureError: Error, Sendable, Equatable {
    case malformedHeader
    case algorithmNone
    case unsupportedAlgorithm(String)
    case algorithmNotListed(String, listed: [String])
    case hmacWithoutSecret(String)
    case criticalHeader
    case missingSignature
    case unknownKeyID(String)
    case keyDoesNotFit(kid: String, alg: String)
    case noFittingKey(String)
    case weakKey(bits: Int)
    case invalidSignature
    case noJWKSURI
    case libraryMissing

    /// Whether a fresh JWK Set might help (the provider may have rotated its keys).
    package var wantsFreshKeys: Bool {
        if case .unknownKeyID = self { return true }
        if case .noFittingKey = self { return true }
        return false
    }
}

/// The parts of a JWS protected header that decide how it is verified (RFC 7515 §4.1).
package struct JWSHeader: Equatable {
    package var algorithm: String
    package var keyID: String?

    package init(_ token: String) throws(SignatureError) {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64URL.decode(Substring(parts[0])), let header = JSONValue.parseObject(bytes),
            let alg = header["alg"]?.stringValue
        else { throw .malformedHeader }
        guard header["crit"] == nil else { throw .criticalHeader }
        switch header["kid"] {
        case nil: keyID = nil
        case .string(let kid)?: keyID = kid
        default: throw .malformedHeader
        }
        algorithm = alg
    }
}

/// Verifies the signature of a compact JWS against the provider's keys or the client secret.
public enum IDTokenSignature {
    /// The algorithms a provider may use when discovery lists none (OpenID Discovery §3: RS256).
    package static let defaultAlgorithms = ["RS256"]

    /// Checks `token`'s signature: the header's `alg` must be one pingcli verifies and the provider lists
    /// (`listed`, nil for the default), HMAC only with `clientSecret`, the key chosen by `kid` alone or,
    /// without one, among the keys that fit the algorithm. The embedded `jwk`, `jku` and `x5u` headers are
    /// never used.
    public static func verify(
        _ token: String, listed: [String]?, keys: JWKSet?, clientSecret: String?
    ) throws(SignatureError) -> JWSAlgorithm {
        let header = try JWSHeader(token)
        guard header.algorithm.lowercased() != "none" else { throw .algorithmNone }
        guard let alg = JWSAlgorithm(rawValue: header.algorithm) else { throw .unsupportedAlgorithm(header.algorithm) }
        let advertised = listed ?? defaultAlgorithms
        guard advertised.contains(alg.rawValue) else { throw .algorithmNotListed(alg.rawValue, listed: advertised) }
        guard let cut = token.utf8.lastIndex(of: UInt8(ascii: ".")) else { throw .malformedHeader }
        let signingInput = Array(token.utf8[..<cut])
        let encodedSignature = token.utf8[token.utf8.index(after: cut)...]
        guard !encodedSignature.isEmpty else { throw .missingSignature }
        guard let signature = Base64URL.decode(Substring(encodedSignature)), !signature.isEmpty else { throw .invalidSignature }

        if alg.family == .hmac {
            // OIDC Core §10.1: the client secret's octets are the key; never a public key from the set.
            guard let clientSecret else { throw .hmacWithoutSecret(alg.rawValue) }
            let mac: [UInt8]
            do { mac = try LibCrypto.hmac(alg.digest, key: Array(clientSecret.utf8), message: signingInput) } catch {
                throw .libraryMissing
            }
            guard Sodium.constantTimeEquals(mac, signature) else { throw .invalidSignature }
            return alg
        }
        guard let keys else { throw .noJWKSURI }
        let candidates: [JWK]
        if let kid = header.keyID {
            let named = keys.keys.filter { $0.kid == kid }
            guard !named.isEmpty else { throw .unknownKeyID(kid) }
            candidates = named.filter { $0.fits(alg) }
            guard !candidates.isEmpty else { throw .keyDoesNotFit(kid: kid, alg: alg.rawValue) }
        } else {
            candidates = keys.keys.filter { $0.fits(alg) }
            guard !candidates.isEmpty else { throw .noFittingKey(alg.rawValue) }
        }
        for key in candidates where try verify(signature, of: signingInput, with: key, alg) { return alg }
        throw .invalidSignature
    }

    /// One key, one signature.
    package static func verify(_ signature: [UInt8], of message: [UInt8], with key: JWK, _ alg: JWSAlgorithm) throws(SignatureError) -> Bool
    {
        let spki: [UInt8]
        var derSignature = signature
        switch key.material {
        case .ed25519(let publicKey):
            return Sodium.verifyEd25519(signature, of: message, publicKey: publicKey)
        case .rsa(let modulus, let exponent):
            spki = DER.rsaPublicKey(modulus: modulus, exponent: exponent)
        case .ec(let curve, let x, let y):
            spki = DER.ecPublicKey(curve: curve, x: x, y: y)
            guard let der = DER.ecdsaSignature(raw: signature, coordinateSize: curve.coordinateSize) else { return false }
            derSignature = der
        }
        let pss: Bool
        if case .rsa(let isPSS) = alg.family { pss = isPSS } else { pss = false }
        let result: (valid: Bool, type: LibCrypto.KeyType, bits: Int)
        do {
            result = try LibCrypto.verify(publicKey: spki, digest: alg.digest, pss: pss, message: message, signature: derSignature)
        } catch {
            guard error != .unavailable else { throw .libraryMissing }
            return false  // libcrypto refused the key: it cannot have made this signature
        }
        if result.type == .rsa && result.bits < 2048 { throw .weakKey(bits: result.bits) }
        return result.valid
    }
}
