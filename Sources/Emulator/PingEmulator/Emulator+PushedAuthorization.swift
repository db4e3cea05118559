import EmulatorHTTP
import Foundation

extension Emulator {
    // MARK: Pushed authorization requests (RFC 9126)

    /// Seconds a pushed request's `request_uri` lives.
    static let pushedRequestLifetime = 60

    /// §2.1–2.3: the whole authorization request in the body, with client authentication; a single-use
    /// `request_uri` back.
    func pushedAuthorization(_ request: HTTPRequest) -> HTTPResponse {
        let (form, client): ([String: String], RegisteredClient)
        switch authenticatedPost(request, formRequired: true) {
        case .refused(let response): return response
        case .accepted(let f, let c): (form, client) = (f, c)
        }
        guard form["request_uri"] == nil else { return .oauthError("invalid_request", "request_uri must not be pushed") }
        var params = form
        params["client_id"] = client.clientID
        params["client_secret"] = nil
        switch validateAuthorize(params) {
        case .errorPage(let message): return .oauthError("invalid_request", message)
        case .redirectError(_, _, let error, let description): return .oauthError(error, description)
        case .valid(let authorizeRequest):
            let requestURI = "urn:ietf:params:oauth:request_uri:" + Crypto.randomToken(24)
            let expiresAt = now() + Double(Self.pushedRequestLifetime)
            state.withLock { $0.pushed[requestURI] = (authorizeRequest, expiresAt) }
            return .json(
                ["request_uri": .string(requestURI), "expires_in": .number(Double(Self.pushedRequestLifetime))], status: 201)
        }
    }

    /// §4: the pushed request a `request_uri` names, used up by this lookup.
    func resolvePushed(_ requestURI: String, clientID: String?) -> AuthorizeValidation {
        let now = self.now()
        guard let pushed = state.withLock({ $0.pushed.removeValue(forKey: requestURI) }), now < pushed.expiresAt else {
            return .errorPage("The request_uri is unknown, expired or already used.")
        }
        guard pushed.request.client.clientID == clientID else {
            return .errorPage("The request_uri was pushed by another client.")
        }
        return .valid(pushed.request)
    }
}
