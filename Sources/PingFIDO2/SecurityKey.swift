import PingBase
import PingCrypto
import PingWebAuthn

/// A FIDO2 security key plugged into this machine, as a WebAuthn authenticator (CTAP2 through libfido2).
///
/// Each ceremony opens the key, asks it once, and closes it. User verification is the key's own (a
/// fingerprint) when it has one configured, else its PIN when one is set and the step asks for
/// verification (or a discoverable credential, which CTAP 2.1 keys protect with it); the PIN is read
/// through the interaction, handed to libfido2 for that one call and wiped (`SecurityKeyPIN`).
public struct SecurityKey: WebAuthnAuthenticator {
    public var attachment: AuthenticatorAttachment { .crossPlatform }
    /// The hidraw device (or, in test builds, the Unix socket) the key is reached at.
    public let path: String
    let socket: Bool

    init(path: String, socket: Bool) {
        self.path = path
        self.socket = socket
    }

    /// The first security key plugged in, nil when there is none or libfido2 is not installed. In test
    /// builds, `PINGCLI_TEST_FIDO_SOCKET` names a software key's Unix socket instead (docs/testing.md).
    public static func connected(environment: Environment = .process) -> SecurityKey? {
        #if DEBUG
            if let socket = environment["PINGCLI_TEST_FIDO_SOCKET"], socket.hasPrefix("/") {
                return SecurityKey(path: socket, socket: true)
            }
        #endif
        return FIDODevice.firstPath().map { SecurityKey(path: $0, socket: false) }
    }

    /// Whether libfido2 itself is installed (Debian's libfido2-1): without it no key is ever found.
    public static var libraryAvailable: Bool { FIDODevice.libraryAvailable }

    #if DEBUG
        /// A key answering CTAPHID reports on the Unix socket `path` (the tests' software authenticator).
        public init(testSocket path: String) { self.init(path: path, socket: true) }
    #endif

    public func makeCredential(
        _ request: CredentialCreationRequest, interaction: any AuthenticatorInteraction
    ) throws(AuthenticatorFailure) -> CreatedCredential {
        let device = try open()
        let info = try Self.mapped { () throws(FIDOStatus) in try device.info() }
        guard let algorithm = Self.algorithm(request.algorithms, supported: info.algorithms) else { throw .notSupported }
        if request.residentKey && !info.residentKeys { throw .notSupported }
        let verification = try Self.verification(request.userVerification, residentKey: request.residentKey, info: info)
        let raw = try SecurityKeyPIN(device: device, interaction: interaction).run(verification) { (pin) throws(FIDOStatus) in
            try device.makeCredential(request, algorithm: algorithm.rawValue, pin: pin, builtInUV: verification == .builtIn)
        }
        return CreatedCredential(
            credentialId: raw.credentialId, attestationObject: try Self.attestationObject(raw), attachment: .crossPlatform)
    }

    public func getAssertion(
        _ request: AssertionRequest, interaction: any AuthenticatorInteraction
    ) throws(AuthenticatorFailure) -> Assertion {
        guard let first = try getAssertions(request, interaction: interaction).first else { throw .noCredential }
        return first
    }

    /// Every assertion the key gives: one per discoverable credential of the relying party when
    /// `allowCredentials` is empty (the key's most recent first), else one. `getAssertion` takes the first.
    public func getAssertions(
        _ request: AssertionRequest, interaction: any AuthenticatorInteraction
    ) throws(AuthenticatorFailure) -> [Assertion] {
        let device = try open()
        let info = try Self.mapped { () throws(FIDOStatus) in try device.info() }
        let verification = try Self.verification(request.userVerification, residentKey: false, info: info)
        let raws = try SecurityKeyPIN(device: device, interaction: interaction).run(verification) { (pin) throws(FIDOStatus) in
            try device.getAssertions(request, pin: pin, builtInUV: verification == .builtIn)
        }
        var assertions: [Assertion] = []
        for raw in raws {
            guard case .bytes(let authenticatorData)? = try? CBOR.decode(raw.authenticatorDataCBOR) else {
                throw .device(code: Int(FIDOStatus.malformed.code))
            }
            // CTAP2 §6.2: the key may leave the credential out when the allow list held exactly one.
            let id = raw.credentialId.isEmpty && request.allowCredentials.count == 1 ? request.allowCredentials[0] : raw.credentialId
            assertions.append(
                Assertion(
                    credentialId: id, authenticatorData: authenticatorData, signature: raw.signature,
                    userHandle: raw.userHandle.isEmpty ? nil : raw.userHandle, attachment: .crossPlatform))
        }
        return assertions
    }

    private func open() throws(AuthenticatorFailure) -> FIDODevice {
        do {
            return try FIDODevice(path: path, socket: socket)
        } catch {
            throw .absent
        }
    }

    /// The first of the step's algorithms (in its order) the key lists; a key that lists none has ES256.
    static func algorithm(_ asked: [COSEAlgorithm], supported: [Int64]) -> COSEAlgorithm? {
        asked.first { supported.isEmpty ? $0 == .es256 : supported.contains($0.rawValue) }
    }

    /// How the person is verified: the key's own verification, its PIN, or not at all.
    static func verification(
        _ asked: UserVerification, residentKey: Bool, info: FIDODevice.Info
    ) throws(AuthenticatorFailure) -> Verification {
        if asked != .discouraged && info.hasBuiltInUV { return .builtIn }
        if info.hasPIN && (asked != .discouraged || residentKey) { return .pin }
        if asked == .required { throw .notSupported }
        return .none
    }

    enum Verification: Equatable {
        case none, pin, builtIn
    }

    /// The attestation object (WebAuthn §6.5): `fmt`, `attStmt` as the key made it, `authData`.
    static func attestationObject(_ raw: RawCredential) throws(AuthenticatorFailure) -> [UInt8] {
        let statement: CBOR
        if raw.statement.isEmpty {
            statement = .map([])
        } else {
            guard let decoded = try? CBOR.decode(raw.statement), decoded.mapValue != nil else {
                throw .device(code: Int(FIDOStatus.malformed.code))
            }
            statement = decoded
        }
        guard !raw.format.isEmpty, !raw.authenticatorData.isEmpty else { throw .device(code: Int(FIDOStatus.malformed.code)) }
        return CBOR.map(["fmt": .text(raw.format), "attStmt": statement, "authData": .bytes(raw.authenticatorData)]).encoded()
    }

    static func mapped<T>(_ body: () throws(FIDOStatus) -> T) throws(AuthenticatorFailure) -> T {
        do {
            return try body()
        } catch {
            throw error.failure
        }
    }
}
