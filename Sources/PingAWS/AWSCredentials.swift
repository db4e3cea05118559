import PingBase

#if canImport(Glibc)
    import Glibc
#endif

/// Temporary AWS credentials as STS hands them out (`Credentials` of
/// [AssumeRoleWithWebIdentity](https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRoleWithWebIdentity.html)):
/// each field through its gate, the expiry as seconds since 1970. The secret key and the session token are
/// bearer secrets: never in an error, a log or `--verbose`.
public struct AWSCredentials: Sendable, Equatable {
    public let accessKeyID: String
    public let secretAccessKey: String
    public let sessionToken: String
    public let expiration: Double

    /// Which field a gate refused, by its STS name; the value is never quoted.
    public enum Failure: Error, Sendable, Equatable {
        case malformed(field: String)
    }

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String, expiration: Double) throws(Failure) {
        // AccessKeyId: [\w]* of 16 to 128 (the API reference); AWS's own are upper-case letters and digits.
        guard (16...128).contains(accessKeyID.utf8.count), accessKeyID.utf8.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit }) else {
            throw .malformed(field: "AccessKeyId")
        }
        guard Self.isBase64ish(secretAccessKey, maximum: 256) else { throw .malformed(field: "SecretAccessKey") }
        guard Self.isBase64ish(sessionToken, maximum: 16 * 1024) else { throw .malformed(field: "SessionToken") }
        guard expiration.isFinite, expiration > 0, expiration <= latestDisplayableTime else { throw .malformed(field: "Expiration") }
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }

    /// Base64's alphabet (and `-`, `_`), 16 bytes at least: what AWS's secrets and session tokens are made of.
    static func isBase64ish(_ text: String, maximum: Int) -> Bool {
        (16...maximum).contains(text.utf8.count)
            && text.utf8.allSatisfy {
                $0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "=")
                    || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            }
    }

    /// Whether these credentials still live more than `margin` seconds at `now`.
    public func isFresh(now: Double, margin: Double) -> Bool { expiration - now > margin }
}
