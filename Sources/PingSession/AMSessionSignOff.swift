import PingAM
import PingBase
import PingFlowCore
import PingOAuth
import PingPlatform
import PingState

extension LogoutFlow {
    /// Ends a journey's AM session at AM (`sessions?_action=logout`), before its cache is removed; nil
    /// when it ended (or had already), else the problem (the session then stays valid until it expires).
    package func endAMSession(_ tokens: TokenSet?, profile: Profile) -> PingCLIError? {
        guard let session = tokens?.amSession else { return nil }
        guard let target = AMSessionTarget(profile) else {
            return .failure(
                "the AM session could not be ended: the profile does not say where its AM is; it stays valid until it expires",
                rule: .logoutAMSession)
        }
        let transport = context.transports.transport(caFile: profile.caFile, tls: profile.clientTLS, timeout: 30)
        let request = AMServerInfo.logoutRequest(target.realm, cookieName: target.cookieName, session: session)
        do {
            let response = try transport.send(request)
            guard AMServerInfo.logoutSucceeded(response) else {
                return .failure(
                    "AM did not end the session (HTTP \(response.status)); it stays valid until it expires", rule: .logoutAMSession)
            }
            context.console.err("Ended the AM session at \(target.realm.origin).")
            return nil
        } catch {
            return .failure(
                "the AM session could not be ended (\(error.asCLIError(doing: "ending the AM session").message)); it stays valid until it expires",
                rule: .logoutAMSession)
        }
    }
}

extension LogoutFlow {
    /// A journey's profile whose cache could not be read: its AM session was in it, so it was not ended.
    package func unreadAMSession(_ profile: Profile, name: ProfileName) -> String? {
        guard profile.amCookieName != nil || profile.journey != nil else { return nil }
        return
            "pingcli: profile \"\(name)\" signed in through a journey, and its AM session was in the cache that could not be read: it was not ended and stays valid at AM until it expires"
    }
}
