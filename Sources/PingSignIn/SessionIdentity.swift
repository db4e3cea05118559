import PingBase
import PingFlowCore
import PingHTTP
import PingOAuth
import PingSession

/// Who signed in when the grant brought no ID token. OpenID Connect defines ID tokens for its own flows;
/// RFC 8628's device grant defines none, and providers differ. When `openid` was granted, the UserInfo
/// endpoint ([OIDC Core §5.3](https://openid.net/specs/openid-connect-core-1_0.html#UserInfo)) names the
/// person: its `sub` becomes the profile's subject, which a later ID token (from a refresh) must match.
package struct SessionIdentity: Sendable {
    package var subject: String
    package var displayName: String?

    /// nil when `openid` was not granted (there is nobody to name) or the provider has no UserInfo
    /// endpoint (a note says so); a refused or malformed answer fails the login, before anything is saved.
    package static func fromUserInfo(
        _ tokens: TokenSet, metadata: ProviderMetadata, signIn: SignIn, context: SessionContext
    ) throws(PingCLIError) -> SessionIdentity? {
        // RFC 6749 §5.1: a response without `scope` granted what was asked.
        let granted = tokens.scope.map { $0.split(separator: " ").map(String.init) } ?? signIn.scopes
        guard granted.contains("openid") else { return nil }
        guard let endpoint = metadata.userinfoEndpoint else {
            context.console.err(
                "pingcli: the provider sent no ID token and has no userinfo_endpoint, so pingcli cannot tell who signed in")
            return nil
        }
        // A DPoP-bound token goes with a proof (RFC 9449 §7).
        let response = try context.transports.transport(caFile: signIn.caFile, tls: signIn.tls.settings, dpop: tokens.dpopKey).send(
            UserInfo.request(endpoint: endpoint, tokens: tokens), doing: "login (the userinfo request for the subject)",
            endpoint: "userinfo", url: endpoint.value)
        let claims: [String: JSONValue]
        do {
            claims = try UserInfo.process(response, expectedSubject: nil)
        } catch {
            throw .failure(
                "login failed: the provider sent no ID token, and asked who signed in, \(error.message): check the client's userinfo settings at the provider, then run pingcli login again",
                rule: error.rule)
        }
        // OIDC Core §2: a sub is at most 255 ASCII characters.
        guard let subject = claims["sub"]?.stringValue, subject.utf8.count <= 255 else {
            throw .failure(
                "login failed: the userinfo response has no usable sub claim (at most 255 characters, OIDC Core §2)",
                rule: .userinfoMissingSub)
        }
        let name = ["name", "preferred_username", "email"].lazy.compactMap { claims[$0]?.stringValue }.first
        return SessionIdentity(subject: subject, displayName: displaySafe(name ?? subject, limit: 80))
    }
}
