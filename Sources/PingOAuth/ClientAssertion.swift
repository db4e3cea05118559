import PingBase
import PingCrypto

/// What a client assertion's `aud` names (`login --client-assertion-audience`, saved in the profile):
/// the URL of the endpoint it is sent to (the default), the token endpoint (OIDC Core §9), or the issuer
/// (RFC 7523bis: one value). Every choice names where the assertion is delivered, so no endpoint receives
/// an assertion another provider would accept: the token endpoint is named only on the request to it
/// and only when it shares the issuer's origin (a provider may list another's token endpoint as its own
/// and keep PAR, device authorization and revocation for itself); anywhere else it is the issuer.
public enum ClientAssertionAudience: String, Sendable, Codable, CaseIterable {
    case endpoint
    case tokenEndpoint = "token-endpoint"
    case issuer
}

/// A client's private key for `private_key_jwt` ([RFC 7523 §2.2](https://www.rfc-editor.org/rfc/rfc7523#section-2.2),
/// [OIDC Core §9](https://openid.net/specs/openid-connect-core-1_0.html#ClientAuthentication)) with the JWS
/// algorithm and `kid` it signs with.
public struct ClientAssertionKey: Sendable {
    package let key: LibCrypto.PrivateKey
    public let algorithm: JWSAlgorithm
    public let keyID: String?

    /// Why a key cannot sign client assertions. Never holds key material.
    public enum Failure: Error, Sendable, Equatable {
        case notPEM
        case encrypted
        case unsupportedKey
        case weakKey(bits: Int)
        case noAlgorithm(listed: [String])
        case libraryMissing

        public var message: String {
            switch self {
            case .notPEM: "it holds no PEM private key (PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)"
            case .encrypted: "the key is encrypted: give an unencrypted key in a file only you can read (mode 0600)"
            case .unsupportedKey: "the key is neither RSA nor EC on P-256, P-384 or P-521"
            case .weakKey(let bits): "the RSA key has \(bits) bits, fewer than the 2048 RFC 7518 §3.3 requires"
            case .noAlgorithm(let listed):
                "the provider's token_endpoint_auth_signing_alg_values_supported (\(displaySafe(listed.joined(separator: ", "), limit: 100))) has no algorithm for this key"
            case .libraryMissing: "OpenSSL's libcrypto could not be loaded: install it (apt-get install libssl3)"
            }
        }
    }

    /// The key in `pem` (wiped afterwards), and the algorithm for it the provider lists in
    /// `token_endpoint_auth_signing_alg_values_supported`: RS256 first for RSA (PingOne accepts RS256,
    /// RS384, RS512 only), the curve's ES algorithm for EC. An absent list allows RS256 and ES*.
    public init(pem: inout [UInt8], keyID: String?, listed: [String]?) throws(Failure) {
        defer { Sodium.wipe(&pem) }
        var der: [UInt8]
        do { der = try PEM.privateKeyDER(pem) } catch {
            throw error == .encrypted ? .encrypted : .notPEM
        }
        do { key = try LibCrypto.PrivateKey(der: &der) } catch {
            throw error == .unavailable ? .libraryMissing : .notPEM
        }
        let candidates: [JWSAlgorithm]
        switch key.type {
        case .rsa:
            guard key.bits >= 2048 else { throw .weakKey(bits: key.bits) }
            candidates = [.rs256, .ps256, .rs384, .rs512, .ps384, .ps512]
        case .ec:
            switch key.bits {
            case 256: candidates = [.es256]
            case 384: candidates = [.es384]
            case 521: candidates = [.es512]
            default: throw .unsupportedKey
            }
        case .other: throw .unsupportedKey
        }
        let allowed = listed ?? ["RS256", "ES256", "ES384", "ES512"]
        guard let algorithm = candidates.first(where: { allowed.contains($0.rawValue) }) else { throw .noAlgorithm(listed: allowed) }
        self.algorithm = algorithm
        self.keyID = keyID
    }

    /// A signed JWT for `audience`: `iss` = `sub` = the client id, a fresh `jti`, `exp` 60 s after `now`
    /// (RFC 7523 §3). nil only if libcrypto fails to sign.
    package func assertion(clientID: String, audience: String, now: Double) -> String? {
        var header: [String: JSONValue] = ["alg": .string(algorithm.rawValue), "typ": .string("JWT")]
        if let keyID { header["kid"] = .string(keyID) }
        let issued = now.rounded(.down)
        let claims: [String: JSONValue] = [
            "iss": .string(clientID), "sub": .string(clientID), "aud": .string(audience),
            "jti": .string(Base64URL.encode(Sodium.randomBytes(32))), "iat": .number(issued), "exp": .number(issued + 60),
        ]
        let input =
            Base64URL.encode(Array(JSONValue.object(header).rendered(pretty: false).utf8)) + "."
            + Base64URL.encode(Array(JSONValue.object(claims).rendered(pretty: false).utf8))
        let pss: Bool
        if case .rsa(let isPSS) = algorithm.family { pss = isPSS } else { pss = false }
        guard var signature = key.sign(Array(input.utf8), digest: algorithm.digest, pss: pss) else { return nil }
        if case .ec(let curve) = algorithm.family {
            guard let raw = DER.rawECDSASignature(der: signature, coordinateSize: curve.coordinateSize) else { return nil }
            signature = raw
        }
        return input + "." + Base64URL.encode(signature)
    }
}

/// `private_key_jwt` for one client: the key, and how `aud` is chosen.
public struct ClientAssertion: Sendable {
    public var key: ClientAssertionKey
    public var audience: ClientAssertionAudience
    public var issuer: String
    public var tokenEndpoint: String
    public var clock: WallClock

    public init(
        key: ClientAssertionKey, audience: ClientAssertionAudience, issuer: String, tokenEndpoint: String, clock: @escaping WallClock
    ) {
        self.key = key
        self.audience = audience
        self.issuer = issuer
        self.tokenEndpoint = tokenEndpoint
        self.clock = clock
    }

    /// The `aud` of an assertion delivered to `url`: that URL, the issuer, or the token endpoint on the
    /// request to it when it shares the issuer's origin (else the issuer).
    package func audience(for url: String) -> String {
        switch audience {
        case .endpoint: return url
        case .issuer: return issuer
        case .tokenEndpoint:
            guard url == tokenEndpoint, let token = try? EndpointURL(tokenEndpoint), let issuerURL = try? EndpointURL(issuer),
                token.origin == issuerURL.origin
            else { return issuer }
            return tokenEndpoint
        }
    }

    /// The form parameters of RFC 7523 §2.2 for a request to `url`.
    package func parameters(clientID: String, url: String) -> [FormEncoding.Pair] {
        let aud = audience(for: url)
        return [
            ("client_id", clientID), ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
            ("client_assertion", key.assertion(clientID: clientID, audience: aud, now: clock()) ?? ""),
        ]
    }
}
