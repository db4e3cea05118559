import PingBase
import PingHTTP

/// A public key from a provider's JWK Set ([RFC 7517 §4](https://www.rfc-editor.org/rfc/rfc7517#section-4)),
/// its parameters checked at the gate (`JWKSet.process`).
public struct JWK: Sendable, Equatable {
    public enum Material: Sendable, Equatable {
        /// RFC 7518 §6.3.1: modulus and exponent, big-endian.
        case rsa(modulus: [UInt8], exponent: [UInt8])
        /// RFC 7518 §6.2.1: an uncompressed point on `curve`.
        case ec(curve: ECCurve, x: [UInt8], y: [UInt8])
        /// RFC 8037 §2: an Ed25519 public key.
        case ed25519([UInt8])
    }

    public var kid: String?
    /// `use` (§4.2) and `key_ops` (§4.3), when the provider restricts the key.
    public var use: String?
    public var keyOperations: [String]?
    /// `alg` (§4.4): the one algorithm this key is meant for, when the provider says so.
    public var algorithm: String?
    public var material: Material

    public var keyType: String {
        switch material {
        case .rsa: "RSA"
        case .ec: "EC"
        case .ed25519: "OKP"
        }
    }

    /// Whether the key may verify `alg` signatures: its type and curve fit, and its `use`, `key_ops`
    /// and `alg`, where present, allow it (RFC 7517 §4.2–§4.4).
    package func fits(_ alg: JWSAlgorithm) -> Bool {
        if let use, use != "sig" { return false }
        if let keyOperations, !keyOperations.contains("verify") { return false }
        if let algorithm, algorithm != alg.rawValue { return false }
        switch (material, alg.family) {
        case (.rsa, .rsa): return true
        case (.ec(let curve, _, _), .ec(let wanted)): return curve == wanted
        case (.ed25519, .okp): return true
        default: return false
        }
    }
}

/// A JWK Set ([RFC 7517 §5](https://www.rfc-editor.org/rfc/rfc7517#section-5)) from the provider's
/// `jwks_uri`, through its gate.
public struct JWKSet: Sendable, Equatable {
    public var keys: [JWK]

    /// The largest JWK Set believed: a provider publishes a handful of keys, not hundreds of kilobytes.
    public static let maximumBytes = 256 * 1024

    /// Refusals of the JWK Set gate, one per rule.
    public enum Failure: Error, Sendable, Equatable {
        case httpStatus(Int)
        case notJSONMediaType(String?)
        case tooLarge
        case notAKeySet
        case duplicateKeyID(String)

        public var message: String {
            switch self {
            case .httpStatus(let status): "the provider's jwks_uri answered HTTP \(status)"
            case .notJSONMediaType(let type):
                "the provider's JWK Set is not declared JSON (Content-Type \(displaySafe(type ?? "missing", limit: 60)))"
            case .tooLarge: "jwks-too-large: the provider's JWK Set is larger than 256 KiB"
            case .notAKeySet: "the provider's JWK Set is not a JSON object with a keys array (RFC 7517 §5)"
            case .duplicateKeyID(let kid):
                "jwks-duplicate-kid: the provider's JWK Set has two \(displaySafe(kid, limit: 60)) keys of one type (RFC 7517 §4.5)"
            }
        }
    }

    public init(keys: [JWK]) { self.keys = keys }

    /// Checks a `jwks_uri` response: HTTP 200, a JSON media type, at most 256 KiB, an object with `keys`.
    public static func process(_ response: HTTPResponse) throws(Failure) -> JWKSet {
        guard response.status == 200 else { throw .httpStatus(response.status) }
        guard response.body.count <= maximumBytes else { throw .tooLarge }
        guard response.hasJSONMediaType else { throw .notJSONMediaType(response.contentType) }
        return try parse(response.body)
    }

    /// Reads the keys pingcli can use. Keys of other types, private keys, symmetric keys and keys with
    /// malformed parameters are left out, as RFC 7517 §5 says; two usable keys with one `kid` and one
    /// type make the set ambiguous and refused.
    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JWKSet {
        guard bytes.count <= maximumBytes else { throw .tooLarge }
        guard let object = JSONValue.parseObject(bytes), let entries = object["keys"]?.arrayValue else { throw .notAKeySet }
        var keys: [JWK] = []
        for entry in entries {
            guard let fields = entry.objectValue, let key = JWK(fields) else { continue }
            if let kid = key.kid, keys.contains(where: { $0.kid == kid && $0.keyType == key.keyType }) {
                throw .duplicateKeyID(kid)
            }
            keys.append(key)
        }
        return JWKSet(keys: keys)
    }
}

extension JWK {
    /// One key's parameters (RFC 7518 §6, RFC 8037 §2); nil for a key pingcli cannot or must not use.
    package init?(_ fields: [String: JSONValue]) {
        // A private or symmetric key has no place in a published set (RFC 7517 §5, RFC 7518 §6.3.2).
        guard fields["d"] == nil, fields["k"] == nil, let kty = fields["kty"]?.stringValue else { return nil }
        func bytes(_ name: String) -> [UInt8]? {
            guard let text = fields[name]?.stringValue, text.utf8.count <= 2048 else { return nil }
            return Base64URL.decode(Substring(text))
        }
        func optionalString(_ name: String) -> String?? {
            switch fields[name] {
            case nil: return .some(nil)
            case .string(let text)? where text.utf8.count <= 256: return .some(text)
            default: return nil
            }
        }
        switch kty {
        case "RSA":
            guard let n = bytes("n"), let e = bytes("e"), !n.isEmpty, !e.isEmpty, e.count <= 8 else { return nil }
            material = .rsa(modulus: n, exponent: e)
        case "EC":
            guard let curve = fields["crv"]?.stringValue.flatMap(ECCurve.init(rawValue:)), let x = bytes("x"), let y = bytes("y"),
                x.count == curve.coordinateSize, y.count == curve.coordinateSize
            else { return nil }
            material = .ec(curve: curve, x: x, y: y)
        case "OKP":
            guard fields["crv"]?.stringValue == "Ed25519", let x = bytes("x"), x.count == 32 else { return nil }
            material = .ed25519(x)
        default: return nil
        }
        guard let kid = optionalString("kid"), let use = optionalString("use"), let alg = optionalString("alg") else { return nil }
        self.kid = kid
        self.use = use
        self.algorithm = alg
        switch fields["key_ops"] {
        case nil: keyOperations = nil
        case .array(let values)? where values.allSatisfy({ $0.stringValue != nil }): keyOperations = values.compactMap(\.stringValue)
        default: return nil
        }
    }
}
