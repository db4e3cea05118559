import PingBase

/// The recovery codes a WebAuthn Registration node generated, as AM's Recovery Code Display node writes
/// them into its script (`reference/am-webauthn.md` §6; the JavaScript SDK's `FRRecoveryCodes` reads the
/// same): each code a quoted line `"CODE\n"`, the credential's name between `<em>` and `</em>`.
public struct RecoveryCodes: Sendable, Equatable {
    public var codes: [String]
    public var deviceName: String

    /// The codes of a display script; nil for any other script.
    public static func read(_ script: String) -> RecoveryCodes? {
        guard script.containsText("Recovery Codes") else { return nil }
        let bytes = Array(script.utf8)
        var codes: [String] = []
        var index = 0
        while index < bytes.count, codes.count < 64 {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "\"") else { continue }
            let word = bytes[(index + 1)...].prefix { $0.isASCIILetter || $0.isASCIIDigit }
            let end = index + 1 + word.count
            guard (4...64).contains(word.count), end + 1 < bytes.count, bytes[end] == UInt8(ascii: "\\"),
                bytes[end + 1] == UInt8(ascii: "n")
            else { continue }
            codes.append(String(decoding: word, as: UTF8.self))
        }
        guard !codes.isEmpty else { return nil }
        var name = "New Security Key"
        if let open = script.firstRange(ofText: "<em>"), let close = script[open.upperBound...].firstRange(ofText: "</em>") {
            name = String(script[open.upperBound..<close.lowerBound])
        }
        return RecoveryCodes(codes: codes, deviceName: displaySafe(name, limit: 100))
    }
}
