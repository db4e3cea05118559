import PingAWS
import PingBase
import PingOAuth
import PingPlatform

/// Where the AWS failures get their words, once: PingAWS throws `STSFailure` and `AWSInputFailure` with
/// the facts (STS's code and message, the field, the variable); the line says what to do next. The ID
/// token, the secret key and the session token appear in none of them; the token's `iss`, `aud` and
/// `sub` may, since they are what the IAM setup must name.
package enum AWSAdvice {
    package static func input(_ failure: AWSInputFailure) -> PingCLIError {
        switch failure {
        case .roleARN:
            return .usage("--role-arn must be an IAM role's ARN: arn:aws:iam::ACCOUNT:role/NAME", rule: failure.rule)
        case .sessionName:
            return .usage("--session-name must be 2 to 64 of letters, digits and _+=,.@-", rule: failure.rule)
        case .duration:
            return .usage(
                "--duration must be whole seconds from \(AssumeRoleWithWebIdentity.durations.lowerBound) to \(AssumeRoleWithWebIdentity.durations.upperBound) (STS's bounds; the role's maximum may be lower)",
                rule: failure.rule)
        case .region:
            return .usage(
                "the AWS region must be a region name such as us-east-1 (--region, AWS_REGION or AWS_DEFAULT_REGION)", rule: failure.rule)
        case .endpoint(let name, let reason):
            return .usage(
                "\(name) was refused: \(reason.message); the ID token goes there, so it must be https (plain http only on this machine's loopback address)",
                rule: failure.rule)
        }
    }

    package static func noSessionName(_ profile: ProfileName) -> PingCLIError {
        .usage(
            "the ID token of profile \"\(profile)\" names no one in letters STS accepts: give --session-name NAME (2 to 64 of letters, digits and _+=,.@-)",
            rule: .awsSessionName)
    }

    /// STS's refusal, with the next step for the IAM setup it points at.
    package static func stsError(_ failure: STSFailure, role: RoleARN, profile: ProfileName, claims: IDTokenClaims?) -> PingCLIError {
        let said: String
        if case .refused(let code, let message, _) = failure {
            said = "\(code.name)\(message.isEmpty ? "" : ": \(message)")"
        } else {
            said = ""
        }
        let issuer = claims.map { displaySafe($0.issuer, limit: 200) } ?? "the profile's issuer"
        let audience = claims.map { displaySafe($0.audiences.joined(separator: " "), limit: 200) } ?? "the client id"
        let subject = claims.map { displaySafe($0.subject, limit: 120) } ?? "?"
        let host = issuer.splitText(separator: "://").last.map(String.init) ?? issuer
        switch failure {
        case .refused(.accessDenied, _, _):
            return .failure(
                "AWS STS refused role \(role) for profile \"\(profile)\" (\(said)): the role's trust policy must allow sts:AssumeRoleWithWebIdentity from the provider \(host) for aud \"\(audience)\" and sub \"\(subject)\" (docs/ping-setup.md)",
                rule: failure.rule)
        case .refused(.invalidIdentityToken, _, _), .refused(.idpRejectedClaim, _, _):
            return .failure(
                "AWS STS did not accept profile \"\(profile)\"'s ID token (\(said)): register \(issuer) in IAM as an OpenID Connect identity provider (its URL exactly the issuer) with \"\(audience)\" among its audiences (docs/ping-setup.md)",
                rule: failure.rule)
        case .refused(.expiredToken, _, _):
            return .loginRequired(
                "AWS STS found profile \"\(profile)\"'s ID token expired (\(said)): check this machine's clock, then run pingcli login --profile \(profile)",
                rule: failure.rule)
        case .refused(let code, _, let status) where code.isRetryable || status >= 500:
            return .unreachable(
                "AWS STS is busy (\(said)) and still was after \(AWSRetries.attempts) tries: try again later", rule: failure.rule)
        case .refused:
            return .failure(
                "AWS STS refused role \(role) for profile \"\(profile)\" (\(said)): check the role ARN and --duration against the role",
                rule: failure.rule)
        case .httpStatus(let status) where status == 429 || status >= 500:
            return .unreachable("AWS STS answered HTTP \(status) \(AWSRetries.attempts) times: try again later", rule: failure.rule)
        case .httpStatus(let status):
            return .failure(
                "AWS STS answered HTTP \(status) without an STS error: check AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL and the region",
                rule: failure.rule)
        case .notXML(let reason):
            return .failure(
                "AWS STS's answer was refused: \(reason): check AWS_ENDPOINT_URL_STS and AWS_ENDPOINT_URL (is it STS?)", rule: failure.rule)
        case .missingField(let field):
            return .failure(
                "AWS STS's answer has no \(field): check AWS_ENDPOINT_URL_STS and AWS_ENDPOINT_URL (is it STS?)", rule: failure.rule)
        case .malformedField(let field):
            return .failure(
                "AWS STS's answer holds a malformed \(field): check AWS_ENDPOINT_URL_STS and AWS_ENDPOINT_URL (is it STS?)",
                rule: failure.rule)
        }
    }
}

/// How often STS is asked when it throttles or fails transiently.
package enum AWSRetries {
    package static let attempts = AWSCredentialsFlow.retryDelays.count + 1
}
