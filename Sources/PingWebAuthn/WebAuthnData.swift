import PingBase
import PingCrypto

/// COSE keys (RFC 9052 §7, RFC 9053 §7.1.1, RFC 8230 §4) as WebAuthn Level 2 §6.5.1 puts a credential's
/// public key into the attested credential data.
public enum COSEKey {
    /// EC2 on P-256 for ES256: `{1: 2, 3: -7, -1: 1, -2: x, -3: y}`.
    public static func es256(x: [UInt8], y: [UInt8]) -> CBOR {
        .map([1: .int(2), 3: .int(-7), -1: .int(1), -2: .bytes(x), -3: .bytes(y)])
    }

    /// RSA for RS256: `{1: 3, 3: -257, -1: n, -2: e}`.
    public static func rs256(n: [UInt8], e: [UInt8]) -> CBOR {
        .map([1: .int(3), 3: .int(-257), -1: .bytes(n), -2: .bytes(e)])
    }
}

/// Authenticator data (WebAuthn Level 2 §6.1): SHA-256 of the RP id, the flags, the signature counter
/// (big-endian) and, at registration, the attested credential data (§6.5.1).
public struct AuthenticatorData: Sendable, Equatable {
    /// Flag bits: UP (bit 0), UV (bit 2), AT (bit 6), ED (bit 7).
    public static let userPresent: UInt8 = 0x01
    public static let userVerified: UInt8 = 0x04
    public static let attestedData: UInt8 = 0x40
    public static let extensionData: UInt8 = 0x80

    /// The AAGUID, the credential id and its COSE public key.
    public struct AttestedCredential: Sendable, Equatable {
        public var aaguid: [UInt8]
        public var credentialID: [UInt8]
        public var publicKey: CBOR

        public init(aaguid: [UInt8] = [UInt8](repeating: 0, count: 16), credentialID: [UInt8], publicKey: CBOR) {
            self.aaguid = aaguid
            self.credentialID = credentialID
            self.publicKey = publicKey
        }
    }

    public var rpIDHash: [UInt8]
    public var flags: UInt8
    public var signCount: UInt32
    public var attested: AttestedCredential?

    public init(rpID: String, flags: UInt8, signCount: UInt32, attested: AttestedCredential? = nil) {
        self.rpIDHash = Sodium.sha256(Array(rpID.utf8))
        self.flags = attested == nil ? flags & ~Self.attestedData : flags | Self.attestedData
        self.signCount = signCount
        self.attested = attested
    }

    /// The bytes as the authenticator writes them.
    public var bytes: [UInt8] {
        var out = rpIDHash + [flags] + Self.bigEndian(UInt64(signCount), width: 4)
        if let attested {
            out += attested.aaguid + Self.bigEndian(UInt64(attested.credentialID.count), width: 2) + attested.credentialID
            out += attested.publicKey.encoded()
        }
        return out
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}

/// The attestation object (WebAuthn Level 2 §6.5.4): `{"fmt", "attStmt", "authData"}` in CTAP2's
/// canonical CBOR.
public enum AttestationObject {
    /// `none` (§8.7): an empty statement.
    public static func none(authenticatorData: [UInt8]) -> [UInt8] {
        CBOR.map(["fmt": .text("none"), "attStmt": .map([CBORPair]()), "authData": .bytes(authenticatorData)]).encoded()
    }

    /// `packed` self attestation (§8.2): no `x5c`; `sig` made by the credential's own key over
    /// `authenticatorData || clientDataHash`, `alg` the key's algorithm.
    public static func packedSelf(authenticatorData: [UInt8], algorithm: COSEAlgorithm, signature: [UInt8]) -> [UInt8] {
        CBOR.map([
            "fmt": .text("packed"), "attStmt": .map(["alg": .int(algorithm.rawValue), "sig": .bytes(signature)]),
            "authData": .bytes(authenticatorData),
        ]).encoded()
    }
}

/// The client data (WebAuthn Level 2 §5.8.1) pingcli writes as a browser would: its members in the
/// order §5.8.1.1 serialises them.
public enum ClientData {
    public enum Ceremony: String, Sendable {
        case create = "webauthn.create"
        case get = "webauthn.get"
    }

    /// `{"type":…,"challenge":<base64url, no padding>,"origin":…,"crossOrigin":false}` as UTF-8 bytes.
    public static func json(_ ceremony: Ceremony, challenge: [UInt8], origin: String) -> [UInt8] {
        var text = "{\"type\":"
        JSONValue.writeString(ceremony.rawValue, to: &text)
        text += ",\"challenge\":"
        JSONValue.writeString(Base64URL.encode(challenge), to: &text)
        text += ",\"origin\":"
        JSONValue.writeString(origin, to: &text)
        text += ",\"crossOrigin\":false}"
        return Array(text.utf8)
    }
}

/// Bytes as AM's `::` answer carries them: signed 8-bit integers joined by commas, no spaces, as
/// `new Int8Array(buffer).toString()` prints them.
public func signedByteList(_ bytes: [UInt8]) -> String {
    bytes.map { String(Int8(bitPattern: $0)) }.joined(separator: ",")
}
