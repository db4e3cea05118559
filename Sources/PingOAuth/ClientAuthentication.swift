import PingBase
import PingCrypto
import PingHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Why a client secret was refused at its gate. Never holds the secret.
public enum ClientSecretError: GateFailure, Sendable, Equatable {
    case empty
    case tooLong
    /// A byte outside RFC 6749 Appendix A.2 `VSCHAR` (%x20-7E): a control character, CR, LF or non-ASCII.
    case invalidCharacter

    public var message: String {
        switch self {
        case .empty: "the client secret is empty"
        case .tooLong: "the client secret is longer than \(ClientSecret.maximumLength) bytes"
        case .invalidCharacter:
            "the client secret holds a control character or a byte outside printable ASCII (RFC 6749 Appendix A.2)"
        }
    }
}

/// A confidential client's secret ([RFC 6749 §2.3.1](https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1)),
/// checked at its gate: `1*VSCHAR`, at most 1024 bytes. It lives only in memory and in the encrypted
/// cache; `description` never shows it.
public struct ClientSecret: Sendable, Equatable, CheckedString, CustomStringConvertible {
    public let value: String
    package static let maximumLength = 1024

    public init(checking text: String) throws(ClientSecretError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= Self.maximumLength else { throw .tooLong }
        guard bytes.allSatisfy(\.isVisibleOrSpace) else { throw .invalidCharacter }
        value = text
    }

    /// The secret from a file's bytes: one trailing newline (LF or CR LF), as editors and `echo` add, is
    /// not part of it; any other control character is refused.
    public init(fileContents bytes: [UInt8]) throws(ClientSecretError) {
        var bytes = bytes
        if bytes.last == 10 { bytes.removeLast() }
        if bytes.last == 13 { bytes.removeLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidCharacter }
        try self.init(checking: text)
    }

    public var description: String { "client secret (\(value.utf8.count) bytes)" }

}

/// How a confidential client proves itself at the token and revocation endpoints
/// ([RFC 6749 §2.3.1](https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1),
/// [OpenID Connect Core §9](https://openid.net/specs/openid-connect-core-1_0.html#ClientAuthentication)).
public enum ClientAuthMethod: String, Sendable, Codable, Equatable {
    case clientSecretBasic = "client_secret_basic"
    case clientSecretPost = "client_secret_post"
    /// RFC 8705 §2.1: a certificate from a CA the provider trusts, matched by subject or SAN.
    case tlsClientAuth = "tls_client_auth"
    /// RFC 8705 §2.2: a self-signed certificate registered with the client.
    case selfSignedTLSClientAuth = "self_signed_tls_client_auth"

    /// The client proves itself in the TLS handshake; the request names it by `client_id` only.
    package var isMutualTLS: Bool { self == .tlsClientAuth || self == .selfSignedTLSClientAuth }

    /// The mutual-TLS method for a certificate from what the provider lists (RFC 8705 §2): a self-signed
    /// certificate prefers `self_signed_tls_client_auth`, any other `tls_client_auth`; the other one
    /// when only that is listed. A provider that lists nothing gets the one the certificate suggests.
    public static func chooseMutualTLS(from supported: [String]?, selfSigned: Bool) -> ClientAuthMethod? {
        let preferred: [ClientAuthMethod] =
            selfSigned ? [.selfSignedTLSClientAuth, .tlsClientAuth] : [.tlsClientAuth, .selfSignedTLSClientAuth]
        guard let supported else { return preferred[0] }
        return preferred.first { supported.contains($0.rawValue) }
    }

    /// RFC 7523 §2.2: a JWT signed with the client's private key (`login --client-key-file`).
    case privateKeyJWT = "private_key_jwt"

    /// The method for an endpoint from what the provider lists: `client_secret_basic` first, then
    /// `client_secret_post`. A provider that lists nothing gets `client_secret_basic`, the default of
    /// RFC 8414 §2. nil when the list names neither.
    public static func choose(from supported: [String]?) -> ClientAuthMethod? {
        guard let supported else { return .clientSecretBasic }
        if supported.contains(Self.clientSecretBasic.rawValue) { return .clientSecretBasic }
        if supported.contains(Self.clientSecretPost.rawValue) { return .clientSecretPost }
        return nil
    }
}

/// The client as it identifies itself in one request: a public client by `client_id` in the body, a
/// confidential one by its secret, in the `Authorization` header or the body.
public struct ClientCredentials: Sendable {
    public var clientID: String
    public var secret: ClientSecret?
    public var method: ClientAuthMethod?
    /// `private_key_jwt`: the key that signs a fresh assertion for each request.
    public var assertion: ClientAssertion?

    public init(clientID: String, secret: ClientSecret? = nil, method: ClientAuthMethod? = nil, assertion: ClientAssertion? = nil) {
        self.clientID = clientID
        self.secret = secret
        self.method = method
        self.assertion = assertion
    }

    /// A form POST to `url` carrying `pairs` and this client's authentication. `alwaysClientID`: the
    /// body names the client also under `client_secret_basic` (a pushed authorization request, where
    /// `client_id` is one of the request's parameters).
    public func form(_ url: String, _ pairs: [FormEncoding.Pair], alwaysClientID: Bool = false) -> HTTPRequest {
        if let assertion { return .form(url, pairs + assertion.parameters(clientID: clientID, url: url)) }
        guard let secret, method?.isMutualTLS != true else { return .form(url, pairs + [("client_id", clientID)]) }
        switch method ?? .clientSecretBasic {
        case .tlsClientAuth, .selfSignedTLSClientAuth:
            return .form(url, pairs + [("client_id", clientID)])
        case .clientSecretBasic, .privateKeyJWT:
            return .form(
                url, pairs + (alwaysClientID ? [("client_id", clientID)] : []),
                headers: [("Authorization", Self.basicAuthorization(clientID: clientID, secret: secret))])
        case .clientSecretPost:
            return .form(url, pairs + [("client_id", clientID), ("client_secret", secret.value)])
        }
    }

    /// `Basic base64(urlencode(id) ":" urlencode(secret))`: RFC 6749 §2.3.1 form-encodes both before
    /// base64, so a `:` or non-ASCII byte in either survives.
    package static func basicAuthorization(clientID: String, secret: ClientSecret) -> String {
        let joined = FormEncoding.escape(clientID) + ":" + FormEncoding.escape(secret.value)
        return "Basic " + Base64URL.encodeStandard(Array(joined.utf8))
    }
}

extension ProviderMetadata {
    /// The methods a client with `secret` uses at the token and revocation endpoints (nil, nil for a
    /// public client). The revocation endpoint falls back to the token endpoint's method when its own
    /// list names neither secret method.
    package func authMethods(
        secret: ClientSecret?, certificate: ClientCertificate? = nil
    ) throws(ClientAuthFailure) -> (
        token: ClientAuthMethod?, revocation: ClientAuthMethod?
    ) {
        if let certificate, secret == nil { return try mutualTLSMethods(certificate) }
        guard secret != nil else { return (nil, nil) }
        guard let token = ClientAuthMethod.choose(from: tokenEndpointAuthMethodsSupported) else {
            throw .noSecretMethod(listed: tokenEndpointAuthMethodsSupported ?? [])
        }
        let revocation =
            revocationEndpointAuthMethodsSupported == nil ? token : ClientAuthMethod.choose(from: revocationEndpointAuthMethodsSupported)
        return (token, revocation ?? token)
    }

    /// RFC 8705 §2: the mutual-TLS method at the token endpoint, and at the revocation endpoint from its
    /// own list when it has one.
    private func mutualTLSMethods(
        _ certificate: ClientCertificate
    ) throws(ClientAuthFailure) -> (
        token: ClientAuthMethod?, revocation: ClientAuthMethod?
    ) {
        let selfSigned = certificate.isSelfIssued
        guard let token = ClientAuthMethod.chooseMutualTLS(from: tokenEndpointAuthMethodsSupported, selfSigned: selfSigned) else {
            throw .noMutualTLSMethod(listed: tokenEndpointAuthMethodsSupported ?? [])
        }
        let revocation = revocationEndpointAuthMethodsSupported.flatMap {
            ClientAuthMethod.chooseMutualTLS(from: $0, selfSigned: selfSigned)
        }
        return (token, revocation ?? token)
    }
}

/// Why the client cannot authenticate at the token endpoint, with the methods the provider lists;
/// worded where the flows word failures (`PingFlowCore/OAuthAdvice.swift`).
package enum ClientAuthFailure: Error, Sendable, Equatable {
    /// A client with a secret, and the provider lists neither `client_secret_basic` nor `client_secret_post`.
    case noSecretMethod(listed: [String])
    /// A client with a certificate, and the provider lists no mutual-TLS method (RFC 8705 §2).
    case noMutualTLSMethod(listed: [String])

    package var rule: Rule { .clientAuthUnsupported }
}
