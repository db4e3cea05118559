import CSodium
import EmulatorHTTP
import Foundation

/// DPoP (RFC 9449) as PingFederate offers it per client: "Require DPoP", server nonces, a proof
/// lifetime (120 s by default) and replay prevention. The emulator verifies ES256, PS256, RS256 and
/// EdDSA proofs.
public struct DPoPSettings: Sendable {
    /// `dpop_signing_alg_values_supported` in discovery; nil leaves DPoP unannounced (proofs of any
    /// algorithm the emulator verifies are still checked).
    public var algorithms: [String]? = ["ES256", "PS256", "RS256", "EdDSA"]
    /// The token endpoint refuses requests without a proof (`invalid_dpop_proof`).
    public var required = false
    /// Proofs must carry the server's current nonce: `use_dpop_nonce` (token endpoint, §8) or a 401
    /// `WWW-Authenticate: DPoP error="use_dpop_nonce"` (resources, §9), with `DPoP-Nonce`.
    public var nonces = false
    /// Seconds a proof's `iat` may lie in the past (and 60 s in the future, for clock skew).
    public var proofLifetime: Double = 120
    /// A proof's `jti` is accepted once (within its lifetime).
    public var replayPrevention = true

    public init() {}
}

/// A resource request's token, or the 401 to answer.
enum ResourceAccess {
    case granted(TokenRecord)
    case refused(HTTPResponse)
}

extension Emulator {
    /// What a request's DPoP header proved.
    enum DPoPCheck {
        /// No DPoP header.
        case absent
        /// A valid proof by the key with this RFC 7638 thumbprint.
        case valid(jkt: String)
        /// A refusal: the error code (`invalid_dpop_proof`, `use_dpop_nonce`) and why.
        case invalid(error: String, description: String)
    }

    /// The proof checks of RFC 9449 §4.3, in its order; `accessToken` for a resource request (`ath`).
    func checkDPoP(_ request: HTTPRequest, accessToken: String?) -> DPoPCheck {
        guard let proof = request.header("dpop") else { return .absent }
        func invalid(_ description: String) -> DPoPCheck { .invalid(error: "invalid_dpop_proof", description: description) }
        guard !proof.contains(",") else { return invalid("more than one DPoP header") }
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            case .object(let header)? = EmulatorJSON.parse(Data(headerBytes)),
            case .object(let claims)? = EmulatorJSON.parse(Data(payloadBytes))
        else { return invalid("the DPoP proof is not a JWT") }
        guard header["typ"]?.stringValue == "dpop+jwt" else { return invalid("typ is not dpop+jwt") }
        guard let alg = header["alg"]?.stringValue, alg != "none", !alg.hasPrefix("HS") else {
            return invalid("alg is not an asymmetric algorithm")
        }
        guard case .object(let jwk)? = header["jwk"] else { return invalid("no jwk header") }
        guard jwk["d"] == nil else { return invalid("the jwk holds a private key") }
        let input = Array((parts[0] + "." + parts[1]).utf8)
        guard settingsAlgorithms.contains(alg) || configuration.dpop.algorithms == nil else {
            return invalid("alg \(alg) is not one of dpop_signing_alg_values_supported")
        }
        guard let jkt = ProofKey.thumbprint(jwk, alg: alg) else { return invalid("the jwk does not fit alg \(alg)") }
        guard ProofKey.verify(signature, of: input, jwk: jwk, alg: alg) else {
            return invalid("the signature does not verify with the jwk")
        }
        guard claims["htm"]?.stringValue == request.method else { return invalid("htm does not match the request's method") }
        guard claims["htu"]?.stringValue == baseURL + request.path else { return invalid("htu does not match the request's URL") }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty else { return invalid("no jti") }
        let now = self.now()
        let settings = configuration.dpop
        guard let iat = claims["iat"]?.numberValue, iat >= now - settings.proofLifetime, iat <= now + 60 else {
            return invalid("iat is outside the proof lifetime")
        }
        if settings.nonces, claims["nonce"]?.stringValue != state.withLock({ $0.dpopNonce }) {
            return .invalid(error: "use_dpop_nonce", description: "a DPoP nonce is required")
        }
        if let accessToken {
            guard claims["ath"]?.stringValue == Base64URL.encode(Crypto.sha256(Array(accessToken.utf8))) else {
                return invalid("ath does not match the access token")
            }
        }
        if settings.replayPrevention {
            let replayed = state.withLock { s -> Bool in
                s.dpopProofIDs = s.dpopProofIDs.filter { $0.value > now }
                if s.dpopProofIDs[jti] != nil { return true }
                s.dpopProofIDs[jti] = now + settings.proofLifetime + 60
                return false
            }
            guard !replayed else { return invalid("the proof was used before (jti replayed)") }
        }
        return .valid(jkt: jkt)
    }

    /// The algorithms proofs may use: those announced, or all the emulator verifies when none are.
    var settingsAlgorithms: [String] { configuration.dpop.algorithms ?? ProofKey.algorithms }

    /// The token and revocation endpoints' answer to a refused proof (RFC 9449 §8): 400, and the nonce
    /// to use next when one is required.
    func dpopRefusal(_ error: String, _ description: String) -> HTTPResponse {
        .oauthError(error, description, headers: dpopNonceHeader())
    }

    /// `DPoP-Nonce` with the current nonce when nonces are on.
    func dpopNonceHeader() -> [(String, String)] {
        configuration.dpop.nonces ? [("DPoP-Nonce", state.withLock { $0.dpopNonce })] : []
    }

    /// Replaces the server nonce (PingFederate rotates its nonces).
    public func rotateDPoPNonce() { state.withLock { $0.dpopNonce = Crypto.randomToken(16) } }

    /// The access token of a resource request and its record, or the 401 to answer (RFC 6750 §3, RFC 9449
    /// §7): a DPoP-bound token only with the `DPoP` scheme and a proof by its key with `ath`; a bearer
    /// token only with `Bearer`.
    func protectedResourceToken(_ request: HTTPRequest) -> ResourceAccess {
        let algs = settingsAlgorithms.joined(separator: " ")
        func unauthorized(_ scheme: String, _ error: String, _ description: String) -> ResourceAccess {
            let challenge =
                scheme == "DPoP"
                ? "DPoP error=\"\(error)\", error_description=\"\(description)\", algs=\"\(algs)\""
                : "Bearer error=\"\(error)\", error_description=\"\(description)\""
            return .refused(
                .oauthError(
                    error, description, status: 401,
                    headers: [("WWW-Authenticate", challenge)] + (error == "use_dpop_nonce" ? dpopNonceHeader() : [])))
        }
        guard let authorization = request.header("authorization"), let space = authorization.firstIndex(of: " ") else {
            return unauthorized("Bearer", "invalid_token", "missing access token")
        }
        let scheme = authorization[..<space].lowercased()
        let token = authorization[authorization.index(after: space)...].trimmingCharacters(in: .whitespaces)
        guard scheme == "bearer" || scheme == "dpop" else { return unauthorized("Bearer", "invalid_token", "unknown scheme") }
        guard key.verify(token)?["iss"] == .string(issuer), let record = state.withLock({ $0.tokens[token] }), !record.isRefresh
        else {
            return unauthorized(scheme == "dpop" ? "DPoP" : "Bearer", "invalid_token", "unknown access token")
        }
        guard !record.revoked else { return unauthorized("Bearer", "invalid_token", "access token was revoked") }
        if let bound = record.certificateThumbprint, bound != Self.presentedCertificate {
            return unauthorized(
                "Bearer", "invalid_token", "the access token is bound to a client certificate the request did not present (RFC 8705 §3)")
        }
        guard now() < record.expiresAt else { return unauthorized("Bearer", "invalid_token", "access token expired") }
        guard let bound = record.jkt else {
            guard scheme == "bearer" else { return unauthorized("Bearer", "invalid_token", "a bearer token sent as DPoP") }
            return .granted(record)
        }
        guard scheme == "dpop" else { return unauthorized("DPoP", "invalid_token", "a DPoP-bound token sent as a bearer token") }
        switch checkDPoP(request, accessToken: token) {
        case .absent: return unauthorized("DPoP", "invalid_dpop_proof", "a DPoP proof is required")
        case .invalid(let error, let description): return unauthorized("DPoP", error, description)
        case .valid(let jkt):
            guard jkt == bound else { return unauthorized("DPoP", "invalid_dpop_proof", "the proof's key is not the token's") }
            return .granted(record)
        }
    }

    /// A small protected resource: who the token is for (`sub`, `name`), how it was bound, and the request body.
    func resource(_ request: HTTPRequest) -> HTTPResponse {
        switch protectedResourceToken(request) {
        case .refused(let response): return response
        case .granted(let record):
            return .json(
                [
                    "sub": .string(record.grant.user.sub), "name": .string(record.grant.user.name),
                    "client_id": .string(record.grant.clientID),
                    "token_type": record.jkt == nil ? "Bearer" : "DPoP", "method": .string(request.method),
                    "body": .string(String(decoding: request.body, as: UTF8.self)),
                    "scope": .string(record.scopes.joined(separator: " ")),
                    "aud": record.audience ?? accessTokenAudience(scopes: record.scopes),
                ], headers: dpopNonceHeader())
        }
    }
}

/// A proof's public key (RFC 9449 §4.2 `jwk`): its RFC 7638 thumbprint and signature check.
enum ProofKey {
    static let algorithms = ["ES256", "PS256", "RS256", "EdDSA"]

    /// The required members for the key type `alg` needs, or nil when the key does not fit it.
    static func members(_ jwk: [String: EmulatorJSON], alg: String) -> [(String, String)]? {
        func field(_ name: String) -> String? { jwk[name]?.stringValue }
        switch alg {
        case "EdDSA":
            guard field("kty") == "OKP", field("crv") == "Ed25519", let x = field("x") else { return nil }
            return [("crv", "Ed25519"), ("kty", "OKP"), ("x", x)]
        case "ES256":
            guard field("kty") == "EC", field("crv") == "P-256", let x = field("x"), let y = field("y") else { return nil }
            return [("crv", "P-256"), ("kty", "EC"), ("x", x), ("y", y)]
        case "PS256", "RS256":
            guard field("kty") == "RSA", let n = field("n"), let e = field("e") else { return nil }
            return [("e", e), ("kty", "RSA"), ("n", n)]
        default: return nil
        }
    }

    static func thumbprint(_ jwk: [String: EmulatorJSON], alg: String) -> String? {
        guard let members = members(jwk, alg: alg),
            members.allSatisfy({ Base64URL.isAlphabet($0.1) || $0.1.hasPrefix("P-") || $0.1 == "Ed25519" })
        else {
            return nil
        }
        let json = "{" + members.map { "\"\($0.0)\":\"\($0.1)\"" }.joined(separator: ",") + "}"
        return Base64URL.encode(Crypto.sha256(Array(json.utf8)))
    }

    static func verify(_ signature: [UInt8], of input: [UInt8], jwk: [String: EmulatorJSON], alg: String) -> Bool {
        guard let members = members(jwk, alg: alg) else { return false }
        func bytes(_ name: String) -> [UInt8]? { members.first { $0.0 == name }.flatMap { Base64URL.decode($0.1) } }
        switch alg {
        case "EdDSA":
            guard let x = bytes("x"), x.count == 32, signature.count == Int(crypto_sign_BYTES) else { return false }
            return crypto_sign_verify_detached(signature, input, UInt64(input.count), x) == 0
        case "ES256":
            guard let x = bytes("x"), let y = bytes("y"), x.count == 32, y.count == 32,
                let key = OpenSSLKey.publicKey(der: spki(ecX: x, y: y)), let der = ECDSASignature.der(raw: signature, size: 32)
            else { return false }
            return key.verify(der, of: input, digest: 0, pss: false)
        default:
            guard let n = bytes("n"), let e = bytes("e"), n.count >= 256, let key = OpenSSLKey.publicKey(der: spki(n: n, e: e)) else {
                return false
            }
            return key.verify(signature, of: input, digest: 0, pss: alg == "PS256")
        }
    }

    // MARK: DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7, RFC 3279 §2.3.1, RFC 5480 §2)

    private static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        let count = content.count
        let length: [UInt8] =
            count < 0x80 ? [UInt8(count)] : count < 0x100 ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
        return [tag] + length + content
    }

    private static func integer(_ bytes: [UInt8]) -> [UInt8] {
        let trimmed = Array(bytes.drop(while: { $0 == 0 }))
        return element(0x02, (trimmed.first ?? 0x80) >= 0x80 ? [0] + trimmed : trimmed)
    }

    static func spki(ecX x: [UInt8], y: [UInt8]) -> [UInt8] {
        let algorithm = element(
            0x30, [0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01] + [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07])
        return element(0x30, algorithm + element(0x03, [0, 4] + x + y))
    }

    static func spki(n: [UInt8], e: [UInt8]) -> [UInt8] {
        let algorithm = element(0x30, [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00])
        return element(0x30, algorithm + element(0x03, [0] + element(0x30, integer(n) + integer(e))))
    }
}
