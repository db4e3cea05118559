import PingAM
import PingBase
import PingHTTP
import PingOAuth
import PingState

/// A journey's AM session, as the profile knows it: where it may be sent (AM's realm, its cookie's name).
package struct AMSessionTarget {
    package var realm: AMRealm
    package var cookieName: AMCookieName

    /// The realm and cookie name a journey's profile saved; nil for any other profile.
    package init?(_ profile: Profile) {
        guard let name = profile.amCookieName.flatMap(AMCookieName.init), let issuer = try? EndpointURL(profile.issuer) else { return nil }
        let endpoint = profile.authenticateEndpoint.flatMap { try? EndpointPolicy.check($0, issuer: issuer) }
        guard let realm = try? AMRealm(issuer: issuer, authenticateEndpoint: endpoint) else { return nil }
        self.realm = realm
        self.cookieName = name
    }
}

/// The code for an AM session at the realm's authorize endpoint, as a journey's sign-in and the
/// session's reuse (when the refresh token is gone) both get it: only at AM's origin, the header form
/// first, the consent form's answer where AM shows a consent page.
package struct SessionCode {
    package var realm: AMRealm
    package var cookieName: AMCookieName
    package var metadata: ProviderMetadata
    /// Where the code is sent: never opened (no listener), only read from the redirect. It must be one
    /// registered for the client; with `--port`, the same one as the browser login's.
    package var redirectURI: String

    package init(realm: AMRealm, cookieName: AMCookieName, metadata: ProviderMetadata, redirectURI: String) {
        self.realm = realm
        self.cookieName = cookieName
        self.metadata = metadata
        self.redirectURI = redirectURI
    }

    package static func redirectURI(port: UInt16?) -> String { "http://127.0.0.1\(port.map { $0 == 0 ? "" : ":\($0)" } ?? "")/callback" }

    /// Why no code came: the session refused or the redirect broken (`authorization`), or the session
    /// would have gone to another origin than AM's.
    package enum Failure: Error {
        case authorization(SessionAuthorizationError)
        case otherOrigin(PingCLIError)
    }

    package func code(session: SSOToken, request: AuthorizationRequest, transport: any HTTPTransport) throws(Failure) -> String {
        let endpoint = metadata.authorizationEndpoint
        guard endpoint.origin == realm.origin else {
            throw .otherOrigin(
                .failure(
                    "the provider's authorization endpoint (\(endpoint.origin)) is not at AM's origin (\(realm.origin)), and the session is sent nowhere else: check --issuer and --authenticate-endpoint",
                    rule: .journeySessionOrigin))
        }
        do {
            do {
                return try authorize(
                    SessionAuthorization.headerRequest(request, endpoint: endpoint, cookieName: cookieName, session: session), request,
                    transport)
            } catch .consentRequired {
                return try authorize(
                    SessionAuthorization.consentRequest(request, endpoint: endpoint, cookieName: cookieName, session: session), request,
                    transport)
            }
        } catch {
            throw .authorization(error)
        }
    }

    private func authorize(
        _ httpRequest: HTTPRequest, _ request: AuthorizationRequest, _ transport: any HTTPTransport
    ) throws(SessionAuthorizationError) -> String {
        let response: HTTPResponse
        do {
            response = try transport.send(httpRequest)
        } catch {
            throw .httpStatus(0)
        }
        return try SessionAuthorization.process(
            response, redirectURI: redirectURI, expectedState: request.state, issuer: metadata.issuer,
            issParameterRequired: metadata.authorizationResponseIssParameterSupported == true)
    }

    /// `failure` worded for the person; `doing` begins it ("login failed").
    package static func failure(_ failure: Failure, doing: String) -> PingCLIError {
        switch failure {
        case .otherOrigin(let refused): return refused
        case .authorization(.authorization(let rule)): return .failure("\(doing): \(rule.message)", rule: rule.rule)
        case .authorization(let error) where error == .sessionNotAccepted:
            return .loginRequired("\(doing): \(error.message): run pingcli login again", rule: error.rule)
        case .authorization(let error) where error == .httpStatus(0):
            return .unreachable("\(doing): AM's authorize endpoint could not be reached: check the network and try again", rule: error.rule)
        case .authorization(let error): return .failure("\(doing): \(error.message)", rule: error.rule)
        }
    }
}
