import PingBase
import PingFlowCore
import PingHTTP
import PingOAuth
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli userinfo`: the claims about the signed-in user, with the same refresh rules as `token`.
package struct UserInfoFlow {
    package let profile: ProfileName
    package let context: SessionContext
    package let minimumTTL: Double

    package func run() throws(PingCLIError) -> [String: JSONValue] {
        let provider = TokenProvider(profile: profile, context: context)
        var fresh = try provider.fresh(minimumTTL: minimumTTL)
        if let warning = fresh.warning { context.console.err("pingcli: warning: \(warning)") }
        guard let endpoint = fresh.profile.metadata.userinfoEndpoint else {
            throw .failure("the provider of profile \"\(profile)\" has no userinfo_endpoint: nothing to ask", rule: .userinfoNoEndpoint)
        }
        let subject = fresh.tokens.idToken.flatMap { try? IDTokenClaims.decode($0.value) }?.subject ?? fresh.profile.subject
        let transport = context.transports.transport(caFile: fresh.profile.caFile, tls: fresh.profile.clientTLS, dpop: fresh.tokens.dpopKey)
        var refreshed = false
        while true {
            let response = try transport.send(
                UserInfo.request(endpoint: endpoint, tokens: fresh.tokens), doing: "userinfo", endpoint: "userinfo", url: endpoint.value)
            do {
                return try UserInfo.process(response, expectedSubject: subject)
            } catch .invalidToken(let challenge) {
                // The server no longer takes this token (revoked, or its clock differs): refresh once and retry.
                guard !refreshed else {
                    throw .loginRequired(
                        "userinfo failed: \(UserInfoError.invalidToken(challenge).message) even after a refresh: run pingcli login --profile \(profile)",
                        rule: .userinfo401Twice)
                }
                refreshed = true
                fresh = try provider.fresh(minimumTTL: minimumTTL, forceRefresh: true)
            } catch {
                // RFC 6750 §3.1: a scope problem is not cured by a refresh (it brings the same scope).
                let granted = (fresh.tokens.scope ?? fresh.profile.scopes.joined(separator: " ")).split(separator: " ").map(String.init)
                let scopeProblem: Bool
                switch error {
                case .insufficientScope: scopeProblem = true
                case .httpStatus(403, _): scopeProblem = !granted.contains("openid")
                default: scopeProblem = false
                }
                if scopeProblem && !granted.contains("openid") {
                    let scopes = (["openid"] + granted).joined(separator: " ")
                    throw .loginRequired(
                        "profile \"\(profile)\" was signed in without the openid scope, so the userinfo endpoint does not answer for it (\(error.message)): run pingcli login --profile \(profile) --scope \"\(scopes)\"",
                        rule: .userinfoWithoutOpenid)
                }
                throw .failure(
                    "userinfo failed: \(error.message)\(scopeProblem ? ": sign in with the scopes it needs (pingcli login --profile \(profile) --scope …)" : "")",
                    rule: error.rule)
            }
        }
    }

    package init(profile: ProfileName, context: SessionContext, minimumTTL: Double) {
        self.profile = profile
        self.context = context
        self.minimumTTL = minimumTTL
    }
}
