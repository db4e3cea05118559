import Testing

@testable import PingBase
@testable import PingCrypto
@testable import PingOAuth

/// What a logout's revocation came to, pure (`RevocationRules.findings`): the flow only words the findings.
@Suite("revocation findings (RFC 7009 §2.2, PingOne, PingFederate)")
struct RevocationFindingsTests {
    func claims(_ json: String) -> [String: JSONValue]? {
        RevocationRules.jwtClaims(
            Base64URL.encode(Array(#"{"alg":"RS256"}"#.utf8)) + "." + Base64URL.encode(Array(json.utf8)) + ".c2ln")
    }

    let both: [Revocation.TokenTypeHint] = [.refreshToken, .accessToken]

    @Test("logout-revoked: both accepted at another provider: revoked, in the order sent")
    func revoked() {
        let report = RevocationRules.findings(
            sent: both, outcomes: [(.refreshToken, .accepted), (.accessToken, .accepted)], accessTokenClaims: nil, provider: .other)
        #expect(report.findings == [.revoked([.refreshToken, .accessToken])])
        #expect(report.revoked == [.refreshToken: true, .accessToken: true])
        #expect(!report.findings.contains { $0.isProblem })
    }

    @Test("pingone-no-sid: PingOne's 200 for tokens without a session keeps the refresh token: a problem")
    func pingOneKeptRefreshToken() {
        let report = RevocationRules.findings(
            sent: both, outcomes: [(.refreshToken, .accepted), (.accessToken, .accepted)],
            accessTokenClaims: claims(#"{"aud":"https://api.example.com"}"#), provider: .pingOne)
        guard case .pingOneKeptRefreshToken(let reason) = report.findings.first else { Issue.record("\(report)"); return }
        #expect(reason.contains("no sid claim"))
        #expect(report.findings.count == 1 && report.findings[0].isProblem)
        #expect(report.revoked == [.refreshToken: false, .accessToken: false])
        let accessOnly = RevocationRules.findings(
            sent: [.accessToken], outcomes: [(.accessToken, .accepted)],
            accessTokenClaims: claims(#"{"aud":"https://api.pingone.com"}"#), provider: .pingOne)
        guard case .pingOneKeptAccessToken = accessOnly.findings.first, !accessOnly.findings[0].isProblem else {
            Issue.record("\(accessOnly)")
            return
        }
    }

    @Test("logout-revocation-refused: unsupported_token_type for the refresh token and a refusal are problems, for the access token a note")
    func refused() {
        let report = RevocationRules.findings(
            sent: both, outcomes: [(.refreshToken, .unsupportedTokenType), (.accessToken, .refused("HTTP 401: invalid_client"))],
            accessTokenClaims: nil, provider: .other)
        #expect(report.findings == [.refreshTokenUnsupported, .refused(.accessToken, reason: "HTTP 401: invalid_client")])
        #expect(report.findings.allSatisfy { $0.isProblem })
        let note = RevocationRules.findings(
            sent: both, outcomes: [(.refreshToken, .accepted), (.accessToken, .unsupportedTokenType)], accessTokenClaims: nil,
            provider: .other)
        #expect(note.findings == [.revoked([.refreshToken]), .accessTokenUnsupported])
        #expect(note.revoked == [.refreshToken: true, .accessToken: false])
    }

    @Test("pingfederate-jwt: a JWT access token at PingFederate may stay valid; the note says whether the grant ended")
    func pingFederateJWT() {
        let jwt = claims(#"{"exp":1}"#)
        let report = RevocationRules.findings(
            sent: both, outcomes: [(.refreshToken, .accepted), (.accessToken, .unsupportedTokenType)], accessTokenClaims: jwt,
            provider: .pingFederate)
        #expect(report.findings == [.revoked([.refreshToken]), .pingFederateJWT(grantEnded: true)])
        #expect(report.revoked == [.refreshToken: true, .accessToken: false])
        let opaque = RevocationRules.findings(
            sent: [.accessToken], outcomes: [(.accessToken, .accepted)], accessTokenClaims: nil, provider: .pingFederate)
        #expect(opaque.findings == [.revoked([.accessToken])])
        #expect(opaque.revoked == [.accessToken: true])
    }

    @Test("a token whose request never arrived is not revoked")
    func unsent() {
        let report = RevocationRules.findings(sent: both, outcomes: [(.accessToken, .accepted)], accessTokenClaims: nil, provider: .other)
        #expect(report.revoked == [.refreshToken: false, .accessToken: true])
    }
}
