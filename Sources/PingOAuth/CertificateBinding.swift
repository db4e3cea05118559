import PingBase
import PingCrypto

/// Certificate-bound access tokens ([RFC 8705 §3](https://www.rfc-editor.org/rfc/rfc8705#section-3)):
/// a JWT access token names the certificate it is bound to in `cnf.x5t#S256`, base64url of the SHA-256
/// of the DER certificate (§3.1). The token is opaque to the client otherwise; pingcli only reads this
/// member, to show it and to refuse a token bound to a certificate the profile does not hold.
package enum CertificateBinding {
    /// `cnf.x5t#S256` of an access token that is a JWT, nil for an opaque or unbound token.
    package static func thumbprint(ofAccessToken token: String) -> String? {
        guard let payload = try? CompactJWS.decode(token).payload, let claims = JSONValue.parseObject(payload),
            let confirmation = claims["cnf"]?.objectValue, let thumbprint = confirmation["x5t#S256"]?.stringValue,
            Base64URL.decode(thumbprint)?.count == 32
        else { return nil }
        return thumbprint
    }

    /// A token bound to a certificate must be bound to this profile's: one bound to another would be
    /// refused by every resource server, so the login stops here and says why.
    package static func verify(_ accessToken: String, certificate: ClientCertificate?, doing what: String) throws(Failure) {
        guard let bound = thumbprint(ofAccessToken: accessToken) else { return }
        guard let certificate else { throw .noCertificate(doing: what) }
        guard Sodium.constantTimeEquals(Array(bound.utf8), Array(certificate.thumbprint.utf8)) else {
            throw .otherCertificate(doing: what, bound: bound, client: certificate.thumbprint)
        }
    }

    /// Why the token cannot be used with this profile's certificate; worded where the flows word
    /// failures (`PingFlowCore/OAuthAdvice.swift`). `doing`: the command (`login`, `token`).
    package enum Failure: Error, Sendable, Equatable {
        /// The token is bound to a certificate, and the profile has none.
        case noCertificate(doing: String)
        /// The token is bound to the certificate with thumbprint `bound`, not the client's (`client`).
        case otherCertificate(doing: String, bound: String, client: String)

        package var rule: Rule { .certificateBinding }
    }
}
