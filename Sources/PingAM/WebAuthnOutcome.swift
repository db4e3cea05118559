import PingBase
import PingCrypto
import PingWebAuthn

/// What goes into the `webAuthnOutcome` hidden value (`reference/am-webauthn.md` §3): the legacy `::`
/// string every AM version reads (byte arrays as signed 8-bit lists, the credential id in base64url),
/// wrapped in `{"authenticatorAttachment", "legacyData"}` when the step offers `supportsJsonResponse`;
/// a failure as `ERROR::<Name>:<message>` or `unsupported`, which the tree branches on.
public enum WebAuthnOutcome: Sendable, Equatable {
    case registration(
        clientDataJSON: [UInt8], attestationObject: [UInt8], credentialID: [UInt8], deviceName: String?,
        attachment: AuthenticatorAttachment)
    case assertion(
        clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], credentialID: [UInt8], userHandle: [UInt8]?,
        attachment: AuthenticatorAttachment)
    /// A DOMException's name (`NotAllowedError`, `InvalidStateError`, …) and a message.
    case error(name: String, message: String)
    /// The client cannot do WebAuthn: the node's Unsupported outcome.
    case unsupported

    /// The hidden value's text; `json` when the step offers `supportsJsonResponse`.
    public func value(json: Bool) -> String {
        switch self {
        case .unsupported: return "unsupported"
        case .error(let name, let message):
            // AM splits the answer at "::": neither part may hold one.
            return "ERROR::" + name.replacingText("::", with: ":") + ":" + message.replacingText("::", with: ":")
        case .registration(_, _, _, _, let attachment), .assertion(_, _, _, _, _, let attachment):
            guard json else { return legacy }
            var text = "{\"authenticatorAttachment\":"
            JSONValue.writeString(attachment.rawValue, to: &text)
            text += ",\"legacyData\":"
            JSONValue.writeString(legacy, to: &text)
            return text + "}"
        }
    }

    /// The `::` string.
    var legacy: String {
        switch self {
        case .registration(let clientData, let attestation, let id, let name, _):
            let parts = [String(decoding: clientData, as: UTF8.self), signedByteList(attestation), Base64URL.encode(id)]
            let device = name.map { $0.replacingText("::", with: ":") }.flatMap { $0.isEmpty ? nil : $0 }
            return (parts + (device.map { [$0] } ?? [])).joined(separator: "::")
        case .assertion(let clientData, let authenticatorData, let signature, let id, let userHandle, _):
            let parts = [
                String(decoding: clientData, as: UTF8.self), signedByteList(authenticatorData), signedByteList(signature),
                Base64URL.encode(id),
            ]
            // The user handle's bytes as text, one character per byte (as the SDKs send it).
            let handle = userHandle.map { String(String.UnicodeScalarView($0.map { Unicode.Scalar($0) })) }
            return (parts + (handle.map { [$0] } ?? [])).joined(separator: "::")
        case .error, .unsupported: return value(json: false)
        }
    }
}
