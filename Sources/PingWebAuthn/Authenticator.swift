/// What a WebAuthn step asks of an authenticator and what it gives back, as W3C WebAuthn Level 2 §5 and
/// CTAP2 §6.1–6.2 name them: the one interface this machine's TPM and a FIDO2 security key both implement,
/// so the journey's WebAuthn answerer does not know which one it talks to.
public enum COSEAlgorithm: Int64, Sendable, CaseIterable {
    case es256 = -7
    case eddsa = -8
    case rs256 = -257
}

/// `userVerification` of the step (WebAuthn §5.8.6).
public enum UserVerification: String, Sendable {
    case required, preferred, discouraged
}

/// `authenticatorAttachment` (WebAuthn §5.4.5).
public enum AuthenticatorAttachment: String, Sendable {
    case platform
    case crossPlatform = "cross-platform"
}

/// The relying party of a ceremony: `id` is a host name (never a URL), already checked against the origin.
public struct RelyingParty: Sendable, Equatable {
    public var id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// The user account a credential is created for. `id` is the user handle's bytes (for AM: the ASCII of the
/// `userId` text it sent).
public struct WebAuthnUser: Sendable, Equatable {
    public var id: [UInt8]
    public var name: String
    public var displayName: String

    public init(id: [UInt8], name: String, displayName: String) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }
}

/// authenticatorMakeCredential's input (CTAP2 §6.1).
public struct CredentialCreationRequest: Sendable {
    /// SHA-256 of the exact clientDataJSON bytes sent in the answer.
    public var clientDataHash: [UInt8]
    public var relyingParty: RelyingParty
    public var user: WebAuthnUser
    /// The step's `pubKeyCredParams`, in its order of preference.
    public var algorithms: [COSEAlgorithm]
    /// Credential ids the relying party already holds for this user: an authenticator holding one refuses.
    public var excludeCredentials: [[UInt8]]
    /// A discoverable (resident) credential, for usernameless sign-in.
    public var residentKey: Bool
    public var userVerification: UserVerification

    public init(
        clientDataHash: [UInt8], relyingParty: RelyingParty, user: WebAuthnUser, algorithms: [COSEAlgorithm],
        excludeCredentials: [[UInt8]], residentKey: Bool, userVerification: UserVerification
    ) {
        self.clientDataHash = clientDataHash
        self.relyingParty = relyingParty
        self.user = user
        self.algorithms = algorithms
        self.excludeCredentials = excludeCredentials
        self.residentKey = residentKey
        self.userVerification = userVerification
    }
}

/// authenticatorMakeCredential's output: the attestation object as CBOR bytes (`fmt`, `attStmt`,
/// `authData`), ready for the answer.
public struct CreatedCredential: Sendable, Equatable {
    public var credentialId: [UInt8]
    public var attestationObject: [UInt8]
    public var attachment: AuthenticatorAttachment

    public init(credentialId: [UInt8], attestationObject: [UInt8], attachment: AuthenticatorAttachment) {
        self.credentialId = credentialId
        self.attestationObject = attestationObject
        self.attachment = attachment
    }
}

/// authenticatorGetAssertion's input (CTAP2 §6.2). An empty `allowCredentials` asks for a discoverable
/// credential of `rpId` (usernameless sign-in).
public struct AssertionRequest: Sendable {
    public var clientDataHash: [UInt8]
    public var rpId: String
    public var allowCredentials: [[UInt8]]
    public var userVerification: UserVerification

    public init(clientDataHash: [UInt8], rpId: String, allowCredentials: [[UInt8]], userVerification: UserVerification) {
        self.clientDataHash = clientDataHash
        self.rpId = rpId
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
    }
}

/// authenticatorGetAssertion's output. `signature` is over `authenticatorData || clientDataHash` (ES256 as
/// ASN.1 DER); `userHandle` is present for a discoverable credential.
public struct Assertion: Sendable, Equatable {
    public var credentialId: [UInt8]
    public var authenticatorData: [UInt8]
    public var signature: [UInt8]
    public var userHandle: [UInt8]?
    public var attachment: AuthenticatorAttachment

    public init(
        credentialId: [UInt8], authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]?,
        attachment: AuthenticatorAttachment
    ) {
        self.credentialId = credentialId
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
        self.attachment = attachment
    }
}

/// Why an authenticator gave no credential or assertion: typed facts, worded by the journey and mapped to
/// the DOMException names AM's tree branches on (`ERROR::NotAllowedError:…`).
public enum AuthenticatorFailure: Error, Sendable, Equatable {
    /// The person declined (no touch, no PIN, Ctrl-C) or the authenticator timed out: `NotAllowedError`.
    case notAllowed
    /// The authenticator already holds a credential in `excludeCredentials`: `InvalidStateError`.
    case excluded
    /// None of the step's algorithms, or a required feature (resident key, user verification) missing:
    /// `NotSupportedError`.
    case notSupported
    /// No credential for this relying party (or none of `allowCredentials`): `NotAllowedError`.
    case noCredential
    /// No authenticator of this kind present (no key plugged, no TPM).
    case absent
    /// A wrong PIN; `retries` as the authenticator reports them when it does.
    case wrongPIN(retries: Int?)
    /// The PIN is blocked (or trying once more would block it).
    case pinBlocked
    /// Too many wrong PINs in a row: the key takes no PIN until it is unplugged and plugged in again. Its
    /// retries are not used up, so this is not `pinBlocked` (which a person may answer by resetting the key).
    case pinAuthBlocked
    /// Any other failure of the device or its library, with its status code.
    case device(code: Int)
}

/// What an authenticator may need from the person in front of it, asked by the journey's prompter.
public protocol AuthenticatorInteraction {
    /// Tells the person to touch the key (once per ceremony, before waiting).
    func touchRequested()
    /// The PIN, read without echo; nil when the person declines. `retries` as the authenticator reports them.
    /// `confirm` asks it twice (setting a new PIN).
    func pin(retries: Int?, confirm: Bool) -> [UInt8]?
}

/// An authenticator: this machine's TPM, or a FIDO2 security key.
public protocol WebAuthnAuthenticator {
    var attachment: AuthenticatorAttachment { get }
    func makeCredential(
        _ request: CredentialCreationRequest, interaction: any AuthenticatorInteraction
    ) throws(AuthenticatorFailure) -> CreatedCredential
    func getAssertion(
        _ request: AssertionRequest, interaction: any AuthenticatorInteraction
    ) throws(AuthenticatorFailure) -> Assertion
}
