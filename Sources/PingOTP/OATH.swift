import PingCrypto

/// One-time codes: HOTP (RFC 4226) and TOTP (RFC 6238), the HMAC through libcrypto (`LibCrypto.hmac`;
/// libsodium has no HMAC-SHA-1, which is OATH's default).
package enum OATH {
    /// The HMAC's hash, by the names `otpauth://` URIs use (`algorithm=SHA1`).
    package enum Algorithm: String, Sendable, Equatable, CaseIterable {
        case sha1 = "SHA1"
        case sha256 = "SHA256"
        case sha512 = "SHA512"

        package var digest: LibCrypto.Digest {
            switch self {
            case .sha1: .sha1
            case .sha256: .sha256
            case .sha512: .sha512
            }
        }
    }

    /// The digits a code may have: RFC 4226 requires at least 6; more than 8 no authenticator shows.
    package static let digitRange = 6...8

    /// The HOTP value of `counter` (RFC 4226 §5.3): HMAC of the counter as 8 big-endian bytes, dynamic
    /// truncation, the low `digits` decimal digits with leading zeros.
    package static func hotp(secret: [UInt8], counter: UInt64, algorithm: Algorithm, digits: Int) throws(LibCrypto.Failure) -> String {
        precondition(digitRange.contains(digits), "digits are checked by the URI gate")
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64($0))) }
        var mac = try LibCrypto.hmac(algorithm.digest, key: secret, message: message)
        defer { Sodium.wipe(&mac) }
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary =
            UInt32(mac[offset] & 0x7F) << 24 | UInt32(mac[offset + 1]) << 16 | UInt32(mac[offset + 2]) << 8 | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The TOTP time step of `time` (RFC 6238 §4.2, T0 = 0): whole periods since the epoch.
    package static func timeStep(_ time: Double, period: UInt32) -> UInt64 {
        time <= 0 ? 0 : UInt64(time / Double(period))
    }

    /// The TOTP value at `time` (seconds since the epoch) and when it stops being valid.
    package static func totp(
        secret: [UInt8], time: Double, period: UInt32, algorithm: Algorithm, digits: Int
    ) throws(LibCrypto.Failure) -> (code: String, validFrom: UInt64, validUntil: UInt64) {
        let step = timeStep(time, period: period)
        let code = try hotp(secret: secret, counter: step, algorithm: algorithm, digits: digits)
        return (code, step * UInt64(period), (step + 1) * UInt64(period))
    }
}
