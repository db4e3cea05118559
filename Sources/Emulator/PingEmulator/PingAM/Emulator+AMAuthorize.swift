import EmulatorHTTP
import Foundation

/// PingAM's `/authorize` with an SSO session instead of a browser sign-in, in the two documented forms:
/// `GET` with the session in a header named after the cookie (the client has implied consent; the Ping
/// SDKs' way), and `POST` with `Cookie: {cookieName}={tokenId}`, the request's fields, `csrf={tokenId}`
/// and `decision=allow` (the consent form's answer)
/// (https://docs.pingidentity.com/pingoneaic/am-oauth2/oauth2-authz-grant-pkce.html).
extension Emulator {
    func authorizeWithSession(_ request: HTTPRequest, params: [String: String], token: String) -> HTTPResponse {
        guard let session = activeSession(token) else { return loginRedirect(params) }
        let authorizeRequest: AuthorizeRequest
        switch checkedAuthorizeRequest(params) {
        case .refused(let response): return response
        case .valid(let checked): authorizeRequest = checked
        }
        if request.method == "POST" {
            guard params["csrf"] == token else {
                return .oauthError("invalid_request", "csrf must be the session's token")
            }
            switch params["decision"] {
            case "allow":
                return issueCode(for: authorizeRequest, user: session.user, authTime: Int(session.authTime))
            case .some:
                return redirectError(
                    uri: authorizeRequest.redirectURI, state: authorizeRequest.state, error: "access_denied",
                    description: "Resource Owner did not authorize the request")
            case nil: break
            }
        }
        guard authorizeRequest.client.impliedConsent else { return consentPage(authorizeRequest, params: params, token: token) }
        return issueCode(for: authorizeRequest, user: session.user, authTime: Int(session.authTime))
    }

    /// Without a valid session PingAM sends the browser to its login page, with the request to come back to.
    private func loginRedirect(_ params: [String: String]) -> HTTPResponse {
        let back = FormEncoding.append(params.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, to: url(for: .authorize) ?? "")
        return .redirect(
            baseURL + "/am/XUI/?realm=%2F" + FormEncoding.percentEncode(configuration.realm) + "&goto="
                + FormEncoding.percentEncode(back) + "#login/")
    }

    /// The consent page of a client without implied consent: a form that posts `decision` and `csrf` back.
    private func consentPage(_ request: AuthorizeRequest, params: [String: String], token: String) -> HTTPResponse {
        let hidden = params.filter { $0.key != "csrf" && $0.key != "decision" }.sorted { $0.key < $1.key }.map {
            "<input type=\"hidden\" name=\"\(HTML.escape($0.key))\" value=\"\(HTML.escape($0.value))\">"
        }
        let body = """
            <h1>\(HTML.escape(request.client.clientID)) requests access</h1>
            <p>Scopes: \(HTML.escape(request.scopes.joined(separator: " ")))</p>
            <form id="emulator-consent" method="post" action="\(HTML.escape(url(for: .authorize) ?? ""))">
            \(hidden.joined(separator: "\n"))
            <input type="hidden" name="csrf" value="\(HTML.escape(token))">
            <button type="submit" name="decision" value="allow">Allow</button>
            <button type="submit" name="decision" value="deny">Deny</button>
            </form>
            """
        return .html(HTML.page(title: "Consent", body: body))
    }
}
