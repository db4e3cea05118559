#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli userinfo`: the claims about the signed-in user, with the same refresh rules as `token`.
struct UserInfoFlow {
    let profile: ProfileName
    let context: FlowContext
    let minimumTTL: Double

    func run() throws(PingCLIError) -> [String: JSONValue] {
        let provider = TokenProvider(profile: profile, context: context)
        var fresh = try provider.fresh(minimumTTL: minimumTTL)
        if let warning = fresh.warning { context.console.err("pingcli: warning: \(warning)") }
        guard let endpoint = fresh.profile.metadata.userinfoEndpoint else {
            throw .failure("the provider of profile \"\(profile)\" has no userinfo_endpoint: nothing to ask")
        }
        let subject = fresh.tokens.idToken.flatMap { try? IDTokenClaims.decode($0.value) }?.subject
        let transport = context.transport(caFile: fresh.profile.caFile)
        var refreshed = false
        while true {
            let response: HTTPResponse
            do {
                response = try transport.send(UserInfo.request(endpoint: endpoint, accessToken: fresh.tokens.accessToken))
            } catch {
                throw error.asCLIError(doing: "userinfo")
            }
            do {
                return try UserInfo.process(response, expectedSubject: subject)
            } catch .invalidToken(let challenge) {
                // The server no longer takes this token (revoked, or its clock differs): refresh once and retry.
                guard !refreshed else {
                    throw .loginRequired(
                        "userinfo failed: \(UserInfoError.invalidToken(challenge).message) even after a refresh: run pingcli login --profile \(profile)"
                    )
                }
                refreshed = true
                fresh = try provider.fresh(minimumTTL: minimumTTL, forceRefresh: true)
            } catch {
                throw .failure("userinfo failed: \(error.message)")
            }
        }
    }
}
