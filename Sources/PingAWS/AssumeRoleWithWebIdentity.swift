import PingBase
import PingHTTP

/// STS [AssumeRoleWithWebIdentity](https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRoleWithWebIdentity.html):
/// an OpenID Connect ID token exchanged for temporary credentials of a role whose trust policy names the
/// token's issuer. A form POST of the Query API (version 2011-06-15), unsigned: the ID token is the
/// caller's only credential, so it goes to `endpoint` only (`STSEndpoint`, https or loopback http).
public struct AssumeRoleWithWebIdentity: Sendable {
    public static let apiVersion = "2011-06-15"
    /// STS's bounds on `DurationSeconds`: 15 minutes to 12 hours (the role's maximum may be lower).
    public static let durations: ClosedRange<Int> = 900...43_200

    public let role: RoleARN
    public let sessionName: RoleSessionName
    /// Nil: STS's default (one hour).
    public let duration: Int?

    public init(role: RoleARN, sessionName: RoleSessionName, duration: Int?) {
        self.role = role
        self.sessionName = sessionName
        self.duration = duration
    }

    /// The request carrying `idToken` (a bearer secret: in the body only, never in the URL).
    public func request(endpoint: EndpointURL, idToken: String) -> HTTPRequest {
        var pairs: [FormEncoding.Pair] = [
            ("Action", "AssumeRoleWithWebIdentity"), ("Version", Self.apiVersion), ("RoleArn", role.value),
            ("RoleSessionName", sessionName.value), ("WebIdentityToken", idToken),
        ]
        if let duration { pairs.append(("DurationSeconds", String(duration))) }
        return HTTPRequest(
            method: .post, url: endpoint.value,
            headers: [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"), ("Accept", "text/xml")],
            body: Array(FormEncoding.encode(pairs).utf8))
    }

    /// What STS answered: the credentials from a 200, or the failure, typed by STS's error `Code`. The
    /// body goes through `STSXML`, the one gate.
    public static func process(_ response: HTTPResponse) throws(STSFailure) -> AWSCredentials {
        if let type = response.contentType, !isXML(type) {
            throw response.status == 200 ? .notXML("it is \(displaySafe(type, limit: 60)), not XML") : .httpStatus(response.status)
        }
        let xml: STSXML
        do {
            xml = try STSXML(response.body)
        } catch {
            switch error {
            case .tooLarge: throw .notXML("it is over \(STSXML.maximumBytes / 1024) KiB")
            case .refused(let reason): throw response.status == 200 ? .notXML(reason) : .httpStatus(response.status)
            }
        }
        guard response.status == 200 else { throw error(xml, status: response.status) }
        let prefix = "AssumeRoleWithWebIdentityResponse/AssumeRoleWithWebIdentityResult/"
        func field(_ name: String) throws(STSFailure) -> String {
            guard let value = xml[prefix + "Credentials/" + name] else { throw .missingField(name) }
            return value
        }
        let expirationText = try field("Expiration")
        guard let expiration = parseRFC3339(expirationText) else { throw .malformedField("Expiration") }
        let (accessKeyID, secretAccessKey, sessionToken) = (
            try field("AccessKeyId"), try field("SecretAccessKey"), try field("SessionToken")
        )
        do {
            return try AWSCredentials(
                accessKeyID: accessKeyID, secretAccessKey: secretAccessKey, sessionToken: sessionToken, expiration: expiration)
        } catch {
            guard case .malformed(let name) = error else { throw .malformedField("Credentials") }
            throw .malformedField(name)
        }
    }

    /// STS's `ErrorResponse/Error` (`Type`, `Code`, `Message`), or the bare status when it has none.
    static func error(_ xml: STSXML, status: Int) -> STSFailure {
        guard let code = xml["ErrorResponse/Error/Code"], !code.isEmpty, code.utf8.count <= 64,
            code.utf8.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: ".") })
        else { return .httpStatus(status) }
        let message = displaySafe(xml["ErrorResponse/Error/Message"] ?? "", limit: 300)
        return .refused(STSErrorCode(code), message: message, status: status)
    }

    static func isXML(_ contentType: String) -> Bool {
        let essence = contentType.splitText(separator: ";", omittingEmptySubsequences: false)[0].trimmingWhitespace.lowercased()
        return essence == "text/xml" || essence == "application/xml"
    }
}

/// An IAM role's ARN, `arn:PARTITION:iam::ACCOUNT:role/PATH/NAME`
/// ([IAM identifiers](https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html)).
public struct RoleARN: Sendable, Equatable, CustomStringConvertible {
    public let value: String
    public var description: String { value }

    public init(_ text: String) throws(AWSInputFailure) {
        let parts = text.splitText(separator: ":", omittingEmptySubsequences: false)
        guard text.utf8.count >= 20, text.utf8.count <= 2048, parts.count == 6, parts[0] == "arn",
            parts[1].startsWithText("aws"), parts[1].utf8.allSatisfy({ $0.isASCIILetter || $0 == UInt8(ascii: "-") }),
            parts[2] == "iam", parts[3].isEmpty, parts[4].utf8.count == 12, parts[4].utf8.allSatisfy(\.isASCIIDigit),
            parts[5].startsWithText("role/"), parts[5].utf8.count > 5, parts[5].utf8.last != UInt8(ascii: "/"),
            parts[5].utf8.allSatisfy({ RoleSessionName.isNameByte($0) || $0 == UInt8(ascii: "/") })
        else { throw .roleARN }
        value = text
    }
}

/// `RoleSessionName`: 2 to 64 of `[\w+=,.@-]`; it shows in CloudTrail and in the assumed role's ARN.
public struct RoleSessionName: Sendable, Equatable, CustomStringConvertible {
    public let value: String
    public var description: String { value }

    public init(_ text: String) throws(AWSInputFailure) {
        guard (2...64).contains(text.utf8.count), text.utf8.allSatisfy(Self.isNameByte) else { throw .sessionName }
        value = text
    }

    /// A session name made from a person's name (the ID token's `preferred_username`, `email`, …): every
    /// other character dropped or replaced, cut to 64; nil when fewer than 2 characters are left.
    public static func sanitised(_ text: String) -> RoleSessionName? {
        var bytes: [UInt8] = []
        for byte in text.utf8 where bytes.count < 64 {
            if isNameByte(byte) {
                bytes.append(byte)
            } else if byte == UInt8(ascii: " "), bytes.last != UInt8(ascii: "-") {
                bytes.append(UInt8(ascii: "-"))
            }
        }
        return try? RoleSessionName(String(decoding: bytes, as: UTF8.self))
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        byte.isASCIILetter || byte.isASCIIDigit || Array("_+=,.@-".utf8).contains(byte)
    }
}

/// An AWS input refused at its gate, before anything is sent.
public enum AWSInputFailure: Error, Sendable, Equatable {
    case roleARN
    case sessionName
    case duration
    case region
    case endpoint(name: String, URLPolicyError)
}
