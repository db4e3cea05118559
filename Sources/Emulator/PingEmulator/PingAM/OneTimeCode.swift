import COpenSSL
import EmulatorHTTP
import Foundation

/// RFC 6238 TOTP (HMAC-SHA-1, 6 digits, 30-second steps) as the OATH Token Verifier node checks it, so a
/// test can compute the code with `oathtool --totp -b SECRET --now=@TIME`.
enum OneTimeCode {
    static let digits = 6
    static let period = 30.0

    /// The code for `secret` (base32) at `time` (seconds since 1970); nil if the secret is not base32.
    static func totp(secret: String, at time: Double) -> String? {
        guard let key = base32Decode(secret), !key.isEmpty else { return nil }
        return hotp(key: key, counter: UInt64(max(0, time) / period))
    }

    /// RFC 4226 §5.3: HMAC-SHA-1 of the counter, dynamically truncated.
    static func hotp(key: [UInt8], counter: UInt64) -> String {
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64($0))) }
        var mac = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        guard HMAC(EVP_sha1(), key, Int32(key.count), message, message.count, &mac, &length) != nil, length == 20 else { return "" }
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary =
            (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        let code = binary % 1_000_000
        let text = String(code)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// Whether `code` is the TOTP for `secret` now or one step before (clock drift of one step, as the
    /// verifier node allows).
    static func verify(_ code: String, secret: String, at time: Double) -> Bool {
        guard code.count == digits, code.allSatisfy(\.isASCII), code.allSatisfy(\.isNumber) else { return false }
        return [time, time - period].contains { totp(secret: secret, at: $0) == code }
    }

    /// RFC 4648 §6 base32 (case-insensitive, padding and spaces ignored).
    static func base32Decode(_ text: String) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)
        var bits = 0
        var value = 0
        var out: [UInt8] = []
        for byte in text.uppercased().utf8 where byte != UInt8(ascii: "=") && byte != UInt8(ascii: " ") {
            guard let index = alphabet.firstIndex(of: byte) else { return nil }
            value = (value << 5) | index
            bits += 5
            if bits >= 8 {
                out.append(UInt8((value >> (bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return out
    }
}
