/// The JWS algorithms pingcli verifies ([RFC 7518 §3.1](https://www.rfc-editor.org/rfc/rfc7518#section-3.1),
/// EdDSA from [RFC 8037 §3.1](https://www.rfc-editor.org/rfc/rfc8037#section-3.1)). `none` is not among
/// them: an unsigned ID token is never accepted.
public enum JWSAlgorithm: String, Sendable, CaseIterable {
    case rs256 = "RS256", rs384 = "RS384", rs512 = "RS512"
    case ps256 = "PS256", ps384 = "PS384", ps512 = "PS512"
    case es256 = "ES256", es384 = "ES384", es512 = "ES512"
    case edDSA = "EdDSA"
    case hs256 = "HS256", hs384 = "HS384", hs512 = "HS512"

    /// What kind of key signs with this algorithm.
    public enum Family: Sendable, Equatable {
        /// RSASSA-PKCS1-v1_5 (`pss` false) or RSASSA-PSS (RFC 7518 §3.3, §3.5).
        case rsa(pss: Bool)
        /// ECDSA on one curve (RFC 7518 §3.4).
        case ec(ECCurve)
        /// Ed25519 (RFC 8037).
        case okp
        /// HMAC with the client secret (RFC 7518 §3.2, OIDC Core §10.1).
        case hmac
    }

    public var family: Family {
        switch self {
        case .rs256, .rs384, .rs512: .rsa(pss: false)
        case .ps256, .ps384, .ps512: .rsa(pss: true)
        case .es256: .ec(.p256)
        case .es384: .ec(.p384)
        case .es512: .ec(.p521)
        case .edDSA: .okp
        case .hs256, .hs384, .hs512: .hmac
        }
    }

    package var digest: LibCrypto.Digest {
        switch self {
        case .rs256, .ps256, .es256, .hs256, .edDSA: .sha256
        case .rs384, .ps384, .es384, .hs384: .sha384
        case .rs512, .ps512, .es512, .hs512: .sha512
        }
    }

    /// The JWK `kty` a key for this algorithm has (RFC 7518 §6.1, RFC 8037 §2).
    package var keyType: String {
        switch family {
        case .rsa: "RSA"
        case .ec: "EC"
        case .okp: "OKP"
        case .hmac: "oct"
        }
    }
}

/// The NIST curves of RFC 7518 §6.2.1.1, by their JWK `crv` names.
public enum ECCurve: String, Sendable, CaseIterable {
    case p256 = "P-256"
    case p384 = "P-384"
    case p521 = "P-521"

    /// Bytes in one coordinate, and in each half of a JWS signature (RFC 7518 §3.4).
    package var coordinateSize: Int {
        switch self {
        case .p256: 32
        case .p384: 48
        case .p521: 66
        }
    }
}
