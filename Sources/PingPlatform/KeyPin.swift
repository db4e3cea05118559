import PingBase
import PingCrypto

/// Why a `--pin` value was refused at its gate.
public enum KeyPinError: GateFailure, Sendable, Equatable {
    case notSHA256
    case notBase64
    case wrongLength(Int)

    public var message: String {
        switch self {
        case .notSHA256: "does not start with sha256//"
        case .notBase64: "is not padded standard base64 after sha256//"
        case .wrongLength(let count): "holds \(count) bytes, not the 32 of a SHA-256"
        }
    }
}

/// A pinned server key: `sha256//` and the base64 SHA-256 of the server's SubjectPublicKeyInfo, the
/// form libcurl's `CURLOPT_PINNEDPUBLICKEY` takes and the Ping SDKs pin. Exactly that form: one hash,
/// 32 bytes, padded standard base64 (44 characters), nothing else (libcurl would also read a file
/// path or `;`-joined lists, which a saved profile must not smuggle in).
public struct KeyPin: Sendable, Equatable, CheckedString {
    public let value: String

    public init(checking text: String) throws(KeyPinError) {
        let prefix = "sha256//"
        guard text.hasPrefix(prefix) else { throw .notSHA256 }
        let encoded = text.dropFirst(prefix.count)
        guard encoded.utf8.count == 44, let digest = Sodium.decodeBase64(encoded) else {
            if let digest = Sodium.decodeBase64(encoded) { throw .wrongLength(digest.count) }
            throw .notBase64
        }
        guard digest.count == 32 else { throw .wrongLength(digest.count) }
        value = text
    }

    /// The value of `CURLOPT_PINNEDPUBLICKEY` for several pins: any one of them matching is enough.
    package static func curlValue(_ pins: [KeyPin]) -> String { pins.map(\.value).joined(separator: ";") }
}
