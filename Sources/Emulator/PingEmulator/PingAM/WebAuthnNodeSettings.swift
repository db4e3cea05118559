import Foundation

/// A WebAuthn Registration or Authentication node's settings, as an AM administrator sets them
/// (`reference/am-webauthn.md` §7): the form ("Return challenge as JavaScript"), the AM version whose
/// metadata shape is sent (`8.0`: `_action` and `supportsJsonResponse`; `7.1`: `_action`; `7.0`: neither),
/// relying party id, origin domains (empty: the request's `Origin` header is trusted), attachment, user
/// verification, accepted algorithms, attestation preference, "Username to/from device", recovery codes,
/// and the nodes its Client Error and Unsupported outcomes lead to (none: the journey fails).
public struct WebAuthnNodeSettings: Sendable, Hashable, Decodable {
    public var script = false
    public var version = "8.0"
    public var rpID: String? = nil
    public var origins: [String] = []
    public var attachment: String? = nil
    public var userVerification = "preferred"
    public var algorithms: [Int] = [-7, -257]
    public var attestation = "none"
    public var residentKey = false
    public var recoveryCodes = false
    public var onError: [JourneyNode] = []

    public init(
        script: Bool = false, version: String = "8.0", rpID: String? = nil, origins: [String] = [], attachment: String? = nil,
        userVerification: String = "preferred", attestation: String = "none", residentKey: Bool = false, recoveryCodes: Bool = false,
        onError: [JourneyNode] = []
    ) {
        self.script = script
        self.version = version
        self.rpID = rpID
        self.origins = origins
        self.attachment = attachment
        self.userVerification = userVerification
        self.attestation = attestation
        self.residentKey = residentKey
        self.recoveryCodes = recoveryCodes
        self.onError = onError
    }

    private enum Key: String, CodingKey {
        case script, version, rpID, origins, attachment, userVerification, algorithms, attestation, residentKey, recoveryCodes, onError
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        script = try c.decodeIfPresent(Bool.self, forKey: .script) ?? false
        version = try c.decodeIfPresent(String.self, forKey: .version) ?? "8.0"
        rpID = try c.decodeIfPresent(String.self, forKey: .rpID)
        origins = try c.decodeIfPresent([String].self, forKey: .origins) ?? []
        attachment = try c.decodeIfPresent(String.self, forKey: .attachment)
        userVerification = try c.decodeIfPresent(String.self, forKey: .userVerification) ?? "preferred"
        algorithms = try c.decodeIfPresent([Int].self, forKey: .algorithms) ?? [-7, -257]
        attestation = try c.decodeIfPresent(String.self, forKey: .attestation) ?? "none"
        residentKey = try c.decodeIfPresent(Bool.self, forKey: .residentKey) ?? false
        recoveryCodes = try c.decodeIfPresent(Bool.self, forKey: .recoveryCodes) ?? false
        onError = try c.decodeIfPresent([JourneyNode].self, forKey: .onError) ?? []
    }
}

/// A credential a WebAuthn Registration node registered: whose, its P-256 key (as AM keeps it, from the
/// COSE key), the last counter seen, its name, the RP id it was made for.
struct WebAuthnCredential: Sendable {
    let credentialID: [UInt8]
    let uuid: String
    let userSub: String
    let x: [UInt8]
    let y: [UInt8]
    var signCount: UInt32
    let deviceName: String
    let rpID: String
    let created: Double
}

/// A registered credential as tests see it (`webAuthnCredentials`).
public struct WebAuthnCredentialRecord: Sendable, Codable, Hashable {
    public var credentialID: String
    public var uuid: String
    public var username: String
    public var signCount: UInt32
    public var deviceName: String
    public var rpID: String
}
