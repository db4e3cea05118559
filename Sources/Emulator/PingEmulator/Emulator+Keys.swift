import EmulatorHTTP
import Foundation

extension Emulator {
    /// The JWK Set at `jwks_uri` (RFC 7517 §5): every key of the ring, plus another RSA key while the
    /// `foreign-kid` fault is on.
    func jwksDocument() -> EmulatorJSON {
        var keys = key.all.map(\.jwk)
        if faults.idTokenSignature == "foreign-kid" { keys.append(SigningKey(other: OpenSSLKey.otherRSA).jwk) }
        return ["keys": .array(keys)]
    }

    /// A new signing key (a rotation), the old one kept published; returns the new kid.
    @discardableResult
    public func rotateKeys() -> String {
        keyRing.withLock { ring in
            ring.rotate()
            return ring.current.kid
        }
    }

    /// The ID token: signed by the current key, or with the client's secret for an HS algorithm
    /// (OIDC Core §10.1), or broken as the `idTokenSignature` fault asks.
    func signIDToken(_ claims: [String: EmulatorJSON], clientID: String, fault: String?) -> String {
        let ring = key
        let algorithm = configuration.signingAlgorithm
        func hmacToken(_ alg: SigningAlgorithm, secret: [UInt8], kid: String?) -> String {
            var header: [String: EmulatorJSON] = ["alg": .string(alg.rawValue), "typ": "JWT"]
            if let kid { header["kid"] = .string(kid) }
            let input = JWS.signingInput(header, claims)
            return input + "." + Base64URL.encode(hmac(digest: alg.digest, key: secret, message: Array(input.utf8)))
        }
        switch fault {
        case "none"?:
            return JWS.signingInput(["alg": "none", "typ": "JWT"], claims) + "."
        case "stripped"?:
            let token = ring.sign(claims: claims)
            return String(token[...token.lastIndex(of: ".")!])
        case "forged"?:
            var parts = ring.sign(claims: claims).split(separator: ".").map(String.init)
            var signature = Base64URL.decode(parts[2]) ?? []
            signature[signature.count / 2] ^= 0x01
            parts[2] = Base64URL.encode(signature)
            return parts.joined(separator: ".")
        case "hs256-public-key"?:
            // The classic confusion: the verifier's own public key (its DER) used as the HMAC secret.
            guard case .rsa(let rsa, _) = ring.current.material else { break }
            return hmacToken(.hs256, secret: rsa.publicKeyDER, kid: ring.current.kid)
        case "foreign-kid"?:
            let other = SigningKey(other: OpenSSLKey.otherRSA)
            let input = JWS.signingInput(["alg": "RS256", "typ": "JWT", "kid": .string(other.kid)], claims)
            return input + "." + Base64URL.encode(ring.current.signature(Array(input.utf8)))
        default: break
        }
        if algorithm.isHMAC, let secret = client(clientID)?.clientSecret {
            return hmacToken(algorithm, secret: Array(secret.utf8), kid: nil)
        }
        return ring.sign(claims: claims)
    }
}
