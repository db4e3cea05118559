import PingBase

/// STS's error `Code`, for the ones whose next step differs
/// ([common errors](https://docs.aws.amazon.com/STS/latest/APIReference/CommonErrors.html) and those of
/// AssumeRoleWithWebIdentity).
public enum STSErrorCode: Sendable, Equatable {
    /// The role's trust policy does not let this token's `aud` / `sub` assume it (or the role is missing).
    case accessDenied
    /// The token's issuer is not a registered IAM identity provider, or its signature did not verify.
    case invalidIdentityToken
    /// The identity provider registration refused a claim (its audience list lacks the client id).
    case idpRejectedClaim
    /// The ID token expired before STS saw it.
    case expiredToken
    /// STS could not fetch the provider's keys (retryable).
    case idpCommunicationError
    /// Too many requests (retryable).
    case throttling
    /// Anything else, kept as STS wrote it (already checked to be letters, digits and dots).
    case other(String)

    public init(_ code: String) {
        switch code {
        case "AccessDenied", "AccessDeniedException": self = .accessDenied
        case "InvalidIdentityToken": self = .invalidIdentityToken
        case "IDPRejectedClaim": self = .idpRejectedClaim
        case "ExpiredTokenException", "ExpiredToken": self = .expiredToken
        case "IDPCommunicationError": self = .idpCommunicationError
        case "Throttling", "ThrottlingException", "RequestLimitExceeded", "TooManyRequestsException": self = .throttling
        default: self = .other(code)
        }
    }

    /// The code as STS names it.
    public var name: String {
        switch self {
        case .accessDenied: "AccessDenied"
        case .invalidIdentityToken: "InvalidIdentityToken"
        case .idpRejectedClaim: "IDPRejectedClaim"
        case .expiredToken: "ExpiredTokenException"
        case .idpCommunicationError: "IDPCommunicationError"
        case .throttling: "Throttling"
        case .other(let code): code
        }
    }

    /// Whether waiting and asking again may help.
    public var isRetryable: Bool { self == .throttling || self == .idpCommunicationError }
}

/// Why an STS answer gave no credentials.
public enum STSFailure: Error, Sendable, Equatable {
    /// STS answered with an error object; `message` is display-safe and holds no secret of ours.
    case refused(STSErrorCode, message: String, status: Int)
    /// An error status without an error object STS would send.
    case httpStatus(Int)
    /// A 200 whose body the gate refused (not XML, hostile XML, too large).
    case notXML(String)
    /// A 200 without one of the credentials' fields.
    case missingField(String)
    /// A field that fails its gate (an access key id with spaces, an `Expiration` that is no date).
    case malformedField(String)

    /// Whether waiting and asking again may help: throttling, the provider's keys unreachable, a 5xx.
    public var isRetryable: Bool {
        switch self {
        case .refused(let code, _, let status): code.isRetryable || status >= 500
        case .httpStatus(let status): status == 429 || status >= 500
        default: false
        }
    }

    public var rule: Rule {
        switch self {
        case .refused(.accessDenied, _, _): .stsAccessDenied
        case .refused(.invalidIdentityToken, _, _): .stsInvalidIdentityToken
        case .refused(.idpRejectedClaim, _, _): .stsIDPRejectedClaim
        case .refused(.expiredToken, _, _): .stsExpiredToken
        case .refused(.throttling, _, _), .refused(.idpCommunicationError, _, _): .stsThrottled
        case .refused(.other, _, _): .stsErrorResponse
        case .httpStatus: .stsHTTPError
        case .notXML: .stsResponseGate
        case .missingField: .stsResponseMissingField
        case .malformedField: .stsResponseMalformedField
        }
    }
}

extension AWSInputFailure {
    public var rule: Rule {
        switch self {
        case .roleARN: .awsRoleARN
        case .sessionName: .awsSessionName
        case .duration: .awsDuration
        case .region: .awsRegion
        case .endpoint: .awsEndpoint
        }
    }
}
