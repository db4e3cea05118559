import EmulatorHTTP
import Foundation

/// Mutual TLS as PingFederate and PingOne document it ([RFC 8705](https://www.rfc-editor.org/rfc/rfc8705)):
/// `tls_client_auth` (a certificate from the trusted CA whose subject DN is registered with the client,
/// §2.1) and `self_signed_tls_client_auth` (a registered self-signed certificate, matched by its
/// SHA-256 thumbprint, §2.2), on a second port that requires a client certificate and that discovery
/// lists in `mtls_endpoint_aliases` (§5). Access tokens issued there are bound to the certificate
/// (`cnf.x5t#S256`, §3), and userinfo accepts a bound token only with that certificate.
extension Emulator {
    static let mutualTLSMethods = ["tls_client_auth", "self_signed_tls_client_auth"]

    /// `x5t#S256` of the certificate of the request being answered (nil on a plain or https-only port).
    @TaskLocal static var presentedCertificate: String?

    /// `x5t#S256` of a DER certificate: base64url of its SHA-256 (RFC 8705 §3.1).
    public static func thumbprint(ofCertificate der: [UInt8]) -> String { Base64URL.encode(Crypto.sha256(der)) }

    /// RFC 8705 §5: the endpoints served on the mutual-TLS port.
    func mutualTLSAliases() -> EmulatorJSON? {
        guard let mtlsBaseURL else { return nil }
        var aliases: [String: EmulatorJSON] = [:]
        var kinds: [(EndpointKind, String)] = [
            (.token, "token_endpoint"), (.revoke, "revocation_endpoint"), (.introspect, "introspection_endpoint"),
            (.userinfo, "userinfo_endpoint"), (.deviceAuthorization, "device_authorization_endpoint"),
        ]
        if configuration.pushedAuthorization != .off { kinds.append((.par, "pushed_authorization_request_endpoint")) }
        for (kind, name) in kinds { if let path = paths[kind] { aliases[name] = .string(mtlsBaseURL + path) } }
        return .object(aliases)
    }

    /// The client's certificate checked against its registration; nil when it passes, else why not.
    func checkMutualTLS(_ request: HTTPRequest, client: RegisteredClient) -> String? {
        guard let der = request.clientCertificate else {
            return "this client must authenticate with a client certificate (mutual TLS, RFC 8705): use the mtls_endpoint_aliases"
        }
        switch client.authMethod {
        case "tls_client_auth":
            guard let caFile = configuration.tls?.clientCAFile else { return "no client CA is configured" }
            let (failure, subject) = ClientCertificateCheck.verify(der, caFile: caFile)
            if let failure { return "the client certificate was refused: \(failure)" }
            guard subject == client.tlsClientAuthSubjectDN else {
                return "the client certificate's subject \(subject) is not the one registered for this client"
            }
            return nil
        default:
            guard Self.thumbprint(ofCertificate: der) == client.selfSignedCertificateThumbprint else {
                return "the client certificate is not the one registered for this client"
            }
            return nil
        }
    }
}
