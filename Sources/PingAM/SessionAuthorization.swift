import PingBase
import PingHTTP
import PingOAuth

/// An AM session turned into an authorization code at the realm's authorize endpoint, without a browser:
/// the same request a browser login sends (PKCE S256, `state`, `nonce`), the session beside it, and
/// the code read from the redirect's `Location` without following it. Two forms, as AM's clients use
/// them: the session in a header named after the cookie (`GET`, for a client with implied consent),
/// and the session as the cookie with `csrf` = the session and `decision=allow` (`POST`, the consent
/// form's answer, where implied consent is off).
public enum SessionAuthorization {
    /// `GET {authorize}?…` with `{cookieName}: {tokenId}`.
    public static func headerRequest(
        _ request: AuthorizationRequest, endpoint: EndpointURL, cookieName: AMCookieName, session: SSOToken
    ) -> HTTPRequest {
        HTTPRequest(
            method: .get, url: request.url(authorizationEndpoint: endpoint),
            headers: [(cookieName.value, session.value), ("Accept-API-Version", "resource=2.1, protocol=1.0")])
    }

    /// `POST {authorize}` with `Cookie: {cookieName}={tokenId}` and the request's parameters plus
    /// `csrf={tokenId}&decision=allow` in the form.
    public static func consentRequest(
        _ request: AuthorizationRequest, endpoint: EndpointURL, cookieName: AMCookieName, session: SSOToken
    ) -> HTTPRequest {
        .form(
            endpoint.value, request.parameters + [("csrf", session.value), ("decision", "allow")],
            headers: [("Cookie", cookieName.value + "=" + session.value)])
    }

    /// The code from a redirect to `redirectURI`, its query checked as a browser's callback is (`iss`,
    /// `state`, `error`, `code`). A page instead of a redirect is a consent page (`consentRequired`); a
    /// redirect elsewhere is AM sending a browser to its sign-in page: it did not accept the session.
    public static func process(
        _ response: HTTPResponse, redirectURI: String, expectedState: String, issuer: String, issParameterRequired: Bool
    ) throws(SessionAuthorizationError) -> String {
        guard [301, 302, 303, 307].contains(response.status) else {
            if response.status == 200 { throw .consentRequired }
            throw .httpStatus(response.status)
        }
        guard let location = response.headers["location"] else { throw .noLocation }
        let (target, query) = split(location)
        guard target == redirectURI else { throw .sessionNotAccepted }
        guard let query, let parameters = FormEncoding.decode(query) else { throw .authorization(.stateMissing) }
        do {
            return try validateAuthorizationResponse(
                parameters, expectedState: expectedState, issuer: issuer, issParameterRequired: issParameterRequired)
        } catch {
            throw .authorization(error)
        }
    }

    /// The address without its query and fragment, and the query (the code comes in the query: the
    /// default response mode of the code flow).
    private static func split(_ location: String) -> (String, String?) {
        let withoutFragment = location.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : nil)
    }
}

/// Why no code came back for the session.
public enum SessionAuthorizationError: Error, Sendable, Equatable {
    /// A 200 page: AM asks for consent (the client has no implied consent): the consent form may do.
    case consentRequired
    /// A redirect somewhere other than the redirect URI: AM sent us to sign in, the session is not valid.
    case sessionNotAccepted
    case noLocation
    case httpStatus(Int)
    /// The redirect's parameters broke a rule, or carried an OAuth error.
    case authorization(AuthorizationResponseError)

    public var message: String {
        switch self {
        case .consentRequired:
            "AM asked for consent instead of issuing a code: give the OAuth client implied consent in AM (docs/ping-setup.md)"
        case .sessionNotAccepted: "AM did not accept the session at its authorize endpoint (it has ended or expired)"
        case .noLocation: "AM's authorize endpoint redirected without a Location"
        case .httpStatus(let status): "AM's authorize endpoint answered HTTP \(status) instead of redirecting with a code"
        case .authorization(.errorResponse(let error, _)): "AM's authorize endpoint refused: \(error.summary)"
        case .authorization(let error): "AM's redirect with the code broke a rule (\(error.rule))"
        }
    }

    public var rule: Rule {
        switch self {
        case .consentRequired: .journeyConsentRequired
        case .sessionNotAccepted: .journeySessionNotAccepted
        case .noLocation, .httpStatus: .journeyAuthorizeStatus
        case .authorization(let error): error.rule
        }
    }
}
