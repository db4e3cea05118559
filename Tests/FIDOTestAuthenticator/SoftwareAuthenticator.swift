import Foundation
import PingWebAuthn

/// A software FIDO2 authenticator for the tests (CTAP 2.1 §6): authenticatorGetInfo, MakeCredential
/// (ES256, packed self attestation, resident keys), GetAssertion and GetNextAssertion (allow list and
/// discoverable, a signature counter), ClientPIN (getRetries, getKeyAgreement, getPinToken and
/// getPinUvAuthTokenUsingPinWithPermissions, PIN/UV protocols one and two). User presence is given at
/// once (the tests' auto-touch) unless `Configuration.refuseTouch`. It talks CTAP2 messages
/// (`handle(_:)`); `CTAPHIDDevice` frames them as libfido2 expects from a HID key.
///
/// Never part of pingcli: compiled into the tests only.
public final class SoftwareAuthenticator: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// The PIN set on the key; nil: none (`clientPin: false`).
        public var pin: String?
        public var pinRetries = 8
        /// As listed in getInfo (libfido2 uses the highest it knows).
        public var pinProtocols: [Int] = [2, 1]
        /// CTAP 2.1 `pinUvAuthToken`: tokens with permissions (ClientPIN subcommand 9).
        public var permissions = true
        public var residentKeys = true
        /// Refuse user presence (the person does not touch the key): OPERATION_DENIED.
        public var refuseTouch = false
        /// COSE algorithms the key has, as getInfo lists them: ES256 (-7) and EdDSA (-8, Ed25519).
        public var algorithms: [Int64] = [-7]

        public init(pin: String? = nil) { self.pin = pin }
    }

    /// A credential the key holds (every one is kept, resident or not: a real key wraps non-resident
    /// ones into their id instead).
    public struct Credential: Sendable {
        public var id: [UInt8]
        public var rpId: String
        public var userId: [UInt8]
        public var userName: String
        public var resident: Bool
        /// -7 (ES256) or -8 (EdDSA).
        public var algorithm: Int64
        /// The P-256 scalar or the Ed25519 seed.
        var scalar: [UInt8]
        public var x: [UInt8]
        /// Empty for Ed25519.
        public var y: [UInt8]
    }

    /// What the key saw, for the tests' assertions.
    public struct Record: Sendable {
        /// CTAP2 commands received, in order.
        public var commands: [UInt8] = []
        /// PIN attempts (getPinToken or subcommand 9), right or wrong.
        public var pinAttempts = 0
        /// Touches given.
        public var touches = 0
        /// Whether the last MakeCredential / GetAssertion carried a pinUvAuthParam.
        public var lastHadPINAuth = false
    }

    let lock = NSLock()
    var configuration: Configuration
    var credentials: [Credential] = []
    var record = Record()
    var counter: UInt32 = 0
    var retries: Int
    var consecutiveWrong = 0
    var keyAgreement = TestCrypto.p256()
    var pinToken: [UInt8]?
    var tokenProtocol = 0
    var pending: [[UInt8]] = []
    public static let aaguid: [UInt8] = Array("pingcli-test-key".utf8)

    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        retries = configuration.pinRetries
    }

    public var held: [Credential] { lock.withLock { credentials } }
    public var seen: Record { lock.withLock { record } }
    public var pinRetriesLeft: Int { lock.withLock { retries } }

    /// Unplugging and plugging the key in: the count of wrong PINs in a row starts again, tokens go.
    public func replug() {
        lock.withLock {
            consecutiveWrong = 0
            pinToken = nil
            keyAgreement = TestCrypto.p256()
        }
    }

    /// One CTAP2 message (command byte, CBOR parameters) to its response (status byte, CBOR).
    public func handle(_ message: [UInt8]) -> [UInt8] {
        lock.withLock {
            guard let command = message.first else { return [Status.invalidLength] }
            record.commands.append(command)
            let parameters: CBOR
            if message.count > 1 {
                guard let decoded = try? CBOR.decode(Array(message.dropFirst())), decoded.mapValue != nil else {
                    return [Status.invalidCBOR]
                }
                parameters = decoded
            } else {
                parameters = .map([])
            }
            let result: Result<CBOR?, CTAPError>
            switch command {
            case 0x04: result = .success(info())
            case 0x01: result = makeCredential(parameters)
            case 0x02: result = getAssertion(parameters)
            case 0x08: result = nextAssertion()
            case 0x06: result = clientPIN(parameters)
            default: result = .failure(CTAPError(Status.invalidCommand))
            }
            switch result {
            case .success(let body): return [Status.ok] + (body?.encoded() ?? [])
            case .failure(let error): return [error.status]
            }
        }
    }

    func info() -> CBOR {
        var options: [CBORPair] = [
            CBORPair(.text("rk"), .bool(configuration.residentKeys)), CBORPair(.text("up"), .bool(true)),
            CBORPair(.text("plat"), .bool(false)), CBORPair(.text("clientPin"), .bool(configuration.pin != nil)),
        ]
        if configuration.permissions { options.append(CBORPair(.text("pinUvAuthToken"), .bool(true))) }
        return .map([
            1: .array([.text("FIDO_2_0")] + (configuration.permissions ? [.text("FIDO_2_1")] : [])),
            3: .bytes(Self.aaguid), 4: .map(options), 5: .int(1200),
            6: .array(configuration.pinProtocols.map { .int(Int64($0)) }),
            10: .array(configuration.algorithms.map { .map(["type": .text("public-key"), "alg": .int($0)]) }),
        ])
    }

    /// User presence: the tests' auto-touch.
    func touch() -> Result<Void, CTAPError> {
        guard !configuration.refuseTouch else { return .failure(CTAPError(Status.operationDenied)) }
        record.touches += 1
        return .success(())
    }
}

/// CTAP2 status codes (CTAP 2.1 §8.2).
enum Status {
    static let ok: UInt8 = 0x00
    static let invalidCommand: UInt8 = 0x01
    static let invalidParameter: UInt8 = 0x02
    static let invalidLength: UInt8 = 0x03
    static let invalidCBOR: UInt8 = 0x12
    static let missingParameter: UInt8 = 0x14
    static let credentialExcluded: UInt8 = 0x19
    static let unsupportedAlgorithm: UInt8 = 0x26
    static let operationDenied: UInt8 = 0x27
    static let unsupportedOption: UInt8 = 0x2B
    static let noCredentials: UInt8 = 0x2E
    static let notAllowed: UInt8 = 0x30
    static let pinInvalid: UInt8 = 0x31
    static let pinBlocked: UInt8 = 0x32
    static let pinAuthInvalid: UInt8 = 0x33
    static let pinAuthBlocked: UInt8 = 0x34
    static let pinNotSet: UInt8 = 0x35
    static let pinRequired: UInt8 = 0x36
}

struct CTAPError: Error {
    let status: UInt8
    init(_ status: UInt8) { self.status = status }
}
