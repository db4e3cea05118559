import PingBase
import PingCrypto
import PingOAuth

/// The algorithms a bound device key signs with: RS512 as Ping's Android SDK does, ES256 as the Secure
/// Enclave (and TPMs without SHA-512) do.
package enum DeviceKeyAlgorithm: String, Sendable, Equatable, CaseIterable {
    case es256 = "ES256"
    case rs512 = "RS512"
}

/// How a bound key is unlocked, as a Device Binding node asks (`authenticationType`). pingcli has no
/// biometric sensor: the biometric types fall back to an application PIN.
package enum DeviceAuthenticationType: String, Sendable, Equatable, CaseIterable {
    case none = "NONE"
    case applicationPIN = "APPLICATION_PIN"
    case biometricOnly = "BIOMETRIC_ONLY"
    case biometricAllowFallback = "BIOMETRIC_ALLOW_FALLBACK"

    /// Whether the key is kept under a PIN (every type but `NONE`).
    package var needsPIN: Bool { self != .none }
}

/// What signs for a bound device: a software key here, a TPM key later. `publicMembers` are the public
/// JWK's required members (RFC 7638 §3.2), in lexicographic order.
package protocol DeviceSigner {
    var algorithm: DeviceKeyAlgorithm { get }
    var publicMembers: [(name: String, value: String)] { get }
    /// The JWS signature over `input` (ECDSA as R || S, RFC 7518 §3.4); nil when the key cannot sign.
    func sign(_ input: [UInt8]) -> [UInt8]?
}

/// A device key held in software (through libcrypto): used where no TPM is reachable, its private DER
/// kept only encrypted under the cache key.
package struct SoftwareDeviceKey: DeviceSigner, Sendable, CustomStringConvertible {
    package let algorithm: DeviceKeyAlgorithm
    /// SEC 1 (EC) or PKCS#1 (RSA) DER, as `LibCrypto.PrivateKey` reads it back.
    package let privateKey: [UInt8]
    package let publicMembers: [(name: String, value: String)]

    package var description: String { "software device key (\(algorithm.rawValue))" }

    /// A new key pair: P-256 for ES256, RSA 2048 for RS512; nil when libcrypto is missing.
    package static func generate(_ algorithm: DeviceKeyAlgorithm) -> SoftwareDeviceKey? {
        guard var pair = try? LibCrypto.generateKey(rsa: algorithm == .rs512) else { return nil }
        defer { Sodium.wipe(&pair.privateKey) }
        guard let members = DPoPKey.publicMembers(spki: pair.publicKey, rsa: algorithm == .rs512) else { return nil }
        return SoftwareDeviceKey(algorithm: algorithm, privateKey: pair.privateKey, publicMembers: members)
    }

    /// A stored key, to sign with (its public members are in AM already).
    package init(algorithm: DeviceKeyAlgorithm, privateKey: [UInt8]) {
        self.init(algorithm: algorithm, privateKey: privateKey, publicMembers: [])
    }

    private init(algorithm: DeviceKeyAlgorithm, privateKey: [UInt8], publicMembers: [(name: String, value: String)]) {
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.publicMembers = publicMembers
    }

    package func sign(_ input: [UInt8]) -> [UInt8]? {
        var der = privateKey  // a copy: PrivateKey wipes what it read
        guard let key = try? LibCrypto.PrivateKey(der: &der),
            let signature = key.sign(input, digest: algorithm == .es256 ? .sha256 : .sha512, pss: false)
        else { return nil }
        return algorithm == .es256 ? DER.rawECDSASignature(der: signature, coordinateSize: 32) : signature
    }
}

/// The two JWSs of Ping's device binding (`../shared/reference/am-journeys.md`, "Device binding"): the
/// bind answer, with the public key in its header, and the signing-verifier answer, with `alg` and `kid`
/// only. Claims: `sub` (the user id), `iss` (the client's identifier), `iat`, `nbf`, `exp` (now +
/// timeout), `challenge`; the bind adds `platform`.
package enum DeviceJWS {
    /// The claim names a custom claim may not take.
    package static let reservedClaims: Set<String> = ["sub", "iss", "iat", "nbf", "exp", "challenge", "platform"]

    package enum Failure: Error, Sendable, Equatable {
        /// A custom claim with a reserved name (the SDKs' `InvalidCustomClaims`).
        case reservedClaim(String)
        case cannotSign
    }

    /// The bind answer: header `alg`, `kid`, `jwk` (the public key, `use` `sig`).
    package static func bind(
        key: some DeviceSigner, kid: String, userID: String, issuer: String, challenge: String, now: Double, timeout: Double,
        platform: String
    ) throws(Failure) -> String {
        let jwkMembers = key.publicMembers + [("alg", key.algorithm.rawValue), ("kid", kid), ("use", "sig")]
        let jwk = JSONValue.object(Dictionary(uniqueKeysWithValues: jwkMembers.map { ($0.name, JSONValue.string($0.value)) }))
        let header: JSONValue = .object(["alg": .string(key.algorithm.rawValue), "kid": .string(kid), "jwk": jwk])
        var claims = standardClaims(userID: userID, issuer: issuer, challenge: challenge, now: now, timeout: timeout)
        claims["platform"] = .string(platform)
        return try signed(header: header, claims: claims, key: key)
    }

    /// The signing-verifier answer: header `alg` and `kid` only; `custom` claims added, never over a
    /// reserved name.
    package static func sign(
        key: some DeviceSigner, kid: String, userID: String, issuer: String, challenge: String, now: Double, timeout: Double,
        custom: [String: JSONValue] = [:]
    ) throws(Failure) -> String {
        if let reserved = custom.keys.sorted().first(where: reservedClaims.contains) { throw .reservedClaim(reserved) }
        let header: JSONValue = .object(["alg": .string(key.algorithm.rawValue), "kid": .string(kid)])
        var claims = standardClaims(userID: userID, issuer: issuer, challenge: challenge, now: now, timeout: timeout)
        for (name, value) in custom { claims[name] = value }
        return try signed(header: header, claims: claims, key: key)
    }

    package static func standardClaims(
        userID: String, issuer: String, challenge: String, now: Double, timeout: Double
    ) -> [String: JSONValue] {
        let issued = now.rounded(.down)
        return [
            "sub": .string(userID), "iss": .string(issuer), "challenge": .string(challenge), "iat": .number(issued), "nbf": .number(issued),
            "exp": .number(issued + max(1, timeout.rounded(.up))),
        ]
    }

    package static func signed(header: JSONValue, claims: [String: JSONValue], key: some DeviceSigner) throws(Failure) -> String {
        let input =
            Base64URL.encode(Array(header.rendered(pretty: false).utf8)) + "."
            + Base64URL.encode(Array(JSONValue.object(claims).rendered(pretty: false).utf8))
        guard let signature = key.sign(Array(input.utf8)) else { throw .cannotSign }
        return input + "." + Base64URL.encode(signature)
    }
}
