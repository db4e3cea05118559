import PingAM
import PingBase
import PingHTTP
import PingOAuth
import PingPlatform
import PingState

/// No orphan AM session: a journey that succeeded hands out a session (a bearer secret valid at AM)
/// before its code is exchanged and its ID token checked. When those fail, no tokens are kept and the
/// session would stay valid at AM with nobody holding it, so it is ended there
/// (`sessions?_action=logout`) and the failure's line says whether that worked.
extension SessionExchange {
    package func endOrphan(_ session: SSOToken, transport: any HTTPTransport, after failure: PingCLIError) -> PingCLIError {
        var failure = failure
        let request = AMServerInfo.logoutRequest(realm, cookieName: cookieName, session: session)
        let ended = (try? transport.send(request)).map { AMServerInfo.logoutSucceeded($0) } ?? false
        failure.message +=
            ended
            ? " (the AM session the journey opened was ended at AM)"
            : " (the AM session the journey opened could not be ended: it stays valid at AM until it expires)"
        return failure
    }
}
