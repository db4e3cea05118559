import PingBase

/// What a logout's revocation came to ([RFC 7009 §2.2](https://www.rfc-editor.org/rfc/rfc7009#section-2.2)),
/// read from the server's answers and the provider's documented rules (`RevocationRules`). Pure: the
/// flow sends the requests and words each finding; a problem leaves a token live at the server (exit 1),
/// a note is only said.
package enum RevocationFinding: Sendable, Equatable {
    /// The server took these tokens, in the order they were sent, and no documented rule keeps them alive.
    case revoked([Revocation.TokenTypeHint])
    /// PingOne answered 200 for tokens its rule keeps it from revoking (`reason`); the refresh token
    /// was among them, so it stays valid: a problem.
    case pingOneKeptRefreshToken(reason: String)
    /// The same for the access token only: a note.
    case pingOneKeptAccessToken(reason: String)
    /// `unsupported_token_type` for the refresh token: the server does not revoke them (a problem).
    case refreshTokenUnsupported
    /// `unsupported_token_type` for the access token: a note.
    case accessTokenUnsupported
    /// Any other refusal, with why: a problem.
    case refused(Revocation.TokenTypeHint, reason: String)
    /// A JWT access token at PingFederate, which revokes one only when its access token manager has
    /// revocation enabled (a client cannot see that): a note. `grantEnded`: the refresh token was
    /// revoked, so the grant cannot be renewed.
    case pingFederateJWT(grantEnded: Bool)

    /// Whether the finding leaves a token live at the server that the user should know of (exit 1).
    package var isProblem: Bool {
        switch self {
        case .pingOneKeptRefreshToken, .refreshTokenUnsupported, .refused: true
        case .revoked, .pingOneKeptAccessToken, .accessTokenUnsupported, .pingFederateJWT: false
        }
    }
}

/// The findings of one logout's revocation, in the order they are reported, and which tokens are gone.
package struct RevocationReport: Sendable, Equatable {
    package var findings: [RevocationFinding]
    /// Each token sent, whether it is revoked: the server took it and its documented rule does not keep
    /// it alive.
    package var revoked: [Revocation.TokenTypeHint: Bool]
}

extension RevocationRules {
    /// The findings for the answers to the tokens `sent` (an answer missing: the request never arrived),
    /// with the access token's JWT claims (nil: opaque) and whose rules apply.
    package static func findings(
        sent: [Revocation.TokenTypeHint], outcomes: [(Revocation.TokenTypeHint, Revocation.Outcome)],
        accessTokenClaims claims: [String: JSONValue]?, provider: Provider
    ) -> RevocationReport {
        var findings: [RevocationFinding] = []
        let accepted = outcomes.filter { $0.1 == .accepted }.map(\.0)
        let accessOutcome = outcomes.first { $0.0 == .accessToken }?.1
        let pingFederateJWT =
            provider == .pingFederate && claims != nil && (accessOutcome == .accepted || accessOutcome == .unsupportedTokenType)
        let pingOneReason = provider == .pingOne && !accepted.isEmpty ? claims.flatMap(pingOneRefusal) : nil
        if let reason = pingOneReason {
            findings.append(
                accepted.contains(.refreshToken) ? .pingOneKeptRefreshToken(reason: reason) : .pingOneKeptAccessToken(reason: reason))
        } else if !accepted.isEmpty {
            findings.append(.revoked(accepted))
        }
        for (kind, outcome) in outcomes {
            switch (kind, outcome) {
            case (_, .accepted): break
            case (.refreshToken, .unsupportedTokenType): findings.append(.refreshTokenUnsupported)
            case (.accessToken, .unsupportedTokenType) where !pingFederateJWT: findings.append(.accessTokenUnsupported)
            case (.accessToken, .unsupportedTokenType): break  // the PingFederate note explains it
            case (_, .refused(let reason)): findings.append(.refused(kind, reason: reason))
            }
        }
        var revoked: [Revocation.TokenTypeHint: Bool] = [:]
        for kind in sent {
            let outcome = outcomes.first { $0.0 == kind }?.1
            revoked[kind] = outcome == .accepted && pingOneReason == nil && !(pingFederateJWT && kind == .accessToken)
        }
        if pingFederateJWT { findings.append(.pingFederateJWT(grantEnded: accepted.contains(.refreshToken))) }
        return RevocationReport(findings: findings, revoked: revoked)
    }
}
