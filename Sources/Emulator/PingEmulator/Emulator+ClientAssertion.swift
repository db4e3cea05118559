import EmulatorHTTP
import Foundation

extension Emulator {
    static let jwtBearer = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// `private_key_jwt` (RFC 7523 §3, OIDC Core §9): the assertion's signature with the client's
    /// registered key, `iss` = `sub` = client id, `aud` the endpoint's URL, the token endpoint or the
    /// issuer (or exactly the one the client is registered with), `exp` in the next five minutes, and a
    /// `jti` never seen before.
    func authenticateAssertion(_ request: HTTPRequest, form: [String: String]) -> ClientAuthentication {
        func invalid(_ description: String) -> ClientAuthentication {
            .failed(.oauthError("invalid_client", description, status: 401))
        }
        guard form["client_assertion_type"] == Self.jwtBearer, let assertion = form["client_assertion"] else {
            return invalid("client_assertion_type must be \(Self.jwtBearer) with a client_assertion")
        }
        guard form["client_secret"] == nil, request.header("authorization") == nil else {
            return .failed(.oauthError("invalid_request", "more than one client authentication method"))
        }
        guard let parts = JWS.split(assertion), let alg = parts.header["alg"]?.stringValue.flatMap(SigningAlgorithm.init(rawValue:)),
            !alg.isHMAC, alg != .edDSA
        else { return invalid("the client assertion is not a JWS signed with an RS, PS or ES algorithm") }
        let clientID = parts.claims["iss"]?.stringValue
        guard let clientID, parts.claims["sub"]?.stringValue == clientID, form["client_id"] ?? clientID == clientID,
            let client = client(clientID)
        else { return invalid("the client assertion's iss and sub must both be the client id") }
        guard let der = client.publicKeyDER, let key = OpenSSLKey.publicKey(der: der) else {
            return invalid("this client has no registered key for private_key_jwt")
        }
        let message = parts.input
        let valid: Bool
        switch alg {
        case .es256, .es384, .es512:
            let size = [32, 48, 66][Int(alg.digest)]
            valid =
                ECDSASignature.der(raw: parts.signature, size: size).map { key.verify($0, of: message, digest: alg.digest, pss: false) }
                ?? false
        default:
            valid = key.verify(parts.signature, of: message, digest: alg.digest, pss: alg.rawValue.hasPrefix("PS"))
        }
        guard valid else { return invalid("the client assertion's signature does not verify with the client's registered key") }
        let endpointURL = baseURL + request.path
        let tokenEndpoint = baseURL + (paths[.token] ?? "")
        let aud = parts.claims["aud"]?.stringValue ?? ""
        let accepted: [String]
        switch client.assertionAudience {
        case "endpoint"?: accepted = [endpointURL]
        case "token-endpoint"?: accepted = [tokenEndpoint, issuer]
        case "issuer"?: accepted = [issuer]
        default: accepted = [endpointURL, tokenEndpoint, issuer]
        }
        guard accepted.contains(aud) else {
            return invalid("the client assertion's aud \(aud) is not \(accepted.joined(separator: " or "))")
        }
        let now = nowSeconds()
        guard let exp = parts.claims["exp"]?.numberValue, exp > now, exp <= now + 300 else {
            return invalid("the client assertion's exp must lie within the next five minutes")
        }
        guard let jti = parts.claims["jti"]?.stringValue, !jti.isEmpty else { return invalid("the client assertion has no jti") }
        let fresh = state.withLock { $0.assertionIDs.insert(jti).inserted }
        guard fresh else { return invalid("the client assertion's jti was used before (replay)") }
        return .authenticated(client)
    }
}

/// A key pair a test registers for a `private_key_jwt` client (the public half) and hands pingcli as a
/// PEM file (the private half).
public struct ClientKeyPair: Sendable {
    let key: OpenSSLKey

    /// A new 2048-bit RSA key.
    public static func rsa() -> ClientKeyPair { ClientKeyPair(key: OpenSSLKey.rsa()) }
    /// A new EC key on P-256.
    public static func p256() -> ClientKeyPair { ClientKeyPair(key: OpenSSLKey.ec(curve: 0)) }

    public var privateKeyPEM: String { key.privateKeyPEM }
    public var publicKeyDER: [UInt8] { key.publicKeyDER }
}
