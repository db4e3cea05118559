import Testing

@testable import PingHTTP
@testable import PingOAuth

/// Step-up rules (OIDC Core §2, §3.1.2.1, §3.1.3.7 items 12–13, §12.2) on decoded claims, and the
/// `WWW-Authenticate` auth-params (RFC 6750 §3) that tell a scope problem from a rejected token.
@Suite("step-up: auth_time, acr; WWW-Authenticate")
struct StepUpRuleTests {
    let now = 1_800_000_000.0

    func claims(_ extra: String) throws -> IDTokenClaims {
        try IDTokenClaims.decode(
            jwt("{\"iss\":\"https://i.example\",\"sub\":\"s\",\"aud\":\"c\",\"exp\":\(Int(now) + 600),\"iat\":\(Int(now))\(extra)}"))
    }

    @Test("step-up-max-age: auth_time within max_age plus 60 s passes; older, missing or in the future does not")
    func maxAge() throws {
        let sixty = AuthenticationRequirements(maxAge: 60)
        try claims(",\"auth_time\":\(Int(now) - 100)").checkAuthentication(sixty, now: now)  // 40 s over: leeway
        #expect(throws: StepUpError.authenticationTooOld(age: 121, maxAge: 60)) {
            try claims(",\"auth_time\":\(Int(now) - 121)").checkAuthentication(sixty, now: now)
        }
        #expect(throws: StepUpError.authTimeMissing(maxAge: 60)) { try claims("").checkAuthentication(sixty, now: now) }
        #expect(throws: StepUpError.authTimeMissing(maxAge: 60)) {
            try claims(",\"auth_time\":\"yesterday\"").checkAuthentication(sixty, now: now)
        }
        #expect(throws: StepUpError.authTimeInFuture) {
            try claims(",\"auth_time\":\(Int(now) + 61)").checkAuthentication(sixty, now: now)
        }
        // Without max_age, auth_time is neither required nor checked.
        try claims("").checkAuthentication(AuthenticationRequirements(), now: now)
        try claims(",\"auth_time\":1").checkAuthentication(AuthenticationRequirements(), now: now)
    }

    @Test("step-up-acr: the acr must be one of the requested values; a missing one is refused at sign-in, not on refresh")
    func acr() throws {
        let strong = AuthenticationRequirements(acrValues: ["urn:strong", "urn:mfa"])
        try claims(",\"acr\":\"urn:mfa\"").checkAuthentication(strong, now: now)
        #expect(throws: StepUpError.acrNotRequested(received: "urn:weak", requested: ["urn:strong", "urn:mfa"])) {
            try claims(",\"acr\":\"urn:weak\"").checkAuthentication(strong, now: now)
        }
        #expect(throws: StepUpError.acrMissing(requested: ["urn:strong", "urn:mfa"])) {
            try claims("").checkAuthentication(strong, now: now)
        }
        try claims("").checkAuthentication(strong, now: now, refreshing: true)
        #expect(throws: StepUpError.acrNotRequested(received: "urn:weak", requested: ["urn:strong", "urn:mfa"])) {
            try claims(",\"acr\":\"urn:weak\"").checkAuthentication(strong, now: now, refreshing: true)
        }
        let message = StepUpError.acrNotRequested(received: "urn:weak\u{1B}[2J", requested: ["urn:strong"]).message
        #expect(message.contains("\"urn:weak [2J\"") && message.contains("(urn:strong)"))
    }

    @Test("step-up-refresh: a refreshed ID token keeps auth_time (not earlier than the sign-in's), however old the sign-in")
    func refresh() throws {
        let sixty = AuthenticationRequirements(maxAge: 60)
        let signIn = now - 86400
        try claims(",\"auth_time\":\(Int(signIn))").checkAuthentication(sixty, now: now, refreshing: true, originalAuthTime: signIn)
        try claims(",\"auth_time\":\(Int(now) - 5)").checkAuthentication(sixty, now: now, refreshing: true, originalAuthTime: signIn)
        #expect(throws: StepUpError.authTimeMovedBack) {
            try claims(",\"auth_time\":\(Int(signIn) - 1)").checkAuthentication(sixty, now: now, refreshing: true, originalAuthTime: signIn)
        }
        #expect(throws: StepUpError.authTimeMissing(maxAge: 60)) {
            try claims("").checkAuthentication(sixty, now: now, refreshing: true, originalAuthTime: signIn)
        }
    }

    @Test(
        "bearer-challenge: error is read from its auth-param, quoted or not, never from inside another value",
        arguments: [
            ("Bearer error=\"insufficient_scope\", scope=\"openid\"", "insufficient_scope"),
            ("Bearer realm=\"x\",error=insufficient_scope", "insufficient_scope"),
            ("Bearer ERROR = \"invalid_token\"", "invalid_token"),
            ("Bearer realm=\"a, error=insufficient_scope\", error=\"invalid_token\"", "invalid_token"),
            ("Bearer error_description=\"error=insufficient_scope\"", nil),
            ("Bearer realm=\"say \\\"error=x\\\"\"", nil),
            ("Bearer", nil), ("", nil), ("Bearer error=", ""),
        ] as [(String, String?)])
    func bearerChallenge(header: String, error: String?) {
        #expect(BearerChallenge.parameter("error", in: header) == error)
    }

    @Test(
        "userinfo-insufficient-scope: a 403, or a 401 with error=insufficient_scope, is a scope problem; a 401 otherwise a rejected token")
    func userinfoScope() {
        func outcome(_ status: Int, _ challenge: String?, body: String = "{}") -> UserInfoError? {
            var headers = ["content-type": "application/json"]
            if let challenge { headers["www-authenticate"] = challenge }
            do {
                _ = try UserInfo.process(HTTPResponse(status: status, headers: headers, body: Array(body.utf8)), expectedSubject: nil)
                return nil
            } catch { return error }
        }
        let scope = "Bearer error=\"insufficient_scope\""
        #expect(outcome(401, scope) == .insufficientScope(scope))
        #expect(outcome(403, scope) == .insufficientScope(scope))
        #expect(outcome(403, nil, body: "{\"error\":\"insufficient_scope\"}") == .insufficientScope(nil))
        #expect(outcome(401, "Bearer error=\"invalid_token\"") == .invalidToken("Bearer error=\"invalid_token\""))
        #expect(outcome(403, nil) == .httpStatus(403, contentType: "application/json"))
    }
}
