import Foundation

extension Emulator {
    // MARK: Revocation and introspection

    func revoke(_ request: HTTPRequest) -> HTTPResponse {
        let (form, client): ([String: String], RegisteredClient)
        switch authenticatedPost(request, formRequired: false) {
        case .refused(let response): return response
        case .accepted(let f, let c): (form, client) = (f, c)
        }
        if client.clientSecret == nil && !configuration.publicClientsMayRevoke {
            return .oauthError(
                "invalid_client", "public clients may not revoke tokens", status: 401,
                headers: [("WWW-Authenticate", "Basic realm=\"emulator\"")])
        }
        guard let token = form["token"], !token.isEmpty else {
            return .oauthError("invalid_request", "token is required")
        }
        // token_type_hint is only a hint: both kinds are looked up in the same table.
        return state.withLock { s -> HTTPResponse in
            guard let record = s.tokens[token] else { return HTTPResponse(status: 200) }  // RFC 7009 §2.2
            guard record.grant.clientID == client.clientID else {
                return .oauthError("unauthorized_client", "the token was issued to another client")
            }
            if client.requiresRevokeScope && !record.grant.scopes.contains("revoke") {
                return .oauthError("invalid_scope", "The client does not have the revoke scope")
            }
            s.tokens[token]?.revoked = true
            if record.isRefresh {
                // RFC 7009 §2.1: revoking a refresh token also invalidates the grant's access tokens.
                for (t, r) in s.tokens where r.grant.id == record.grant.id { s.tokens[t]?.revoked = true }
            }
            return HTTPResponse(status: 200)
        }
    }

    func introspectEndpoint(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "POST" else { return methodNotAllowed() }
        let form = request.form
        if case .failed(let response) = authenticateClient(request, form: form) { return response }
        guard let token = form["token"], !token.isEmpty else {
            return .oauthError("invalid_request", "token is required")
        }
        return .json(introspectionJSON(token))
    }

    func introspectionJSON(_ token: String) -> JSONValue {
        let result = introspect(token)
        guard result.active else { return ["active": false] }
        var body: [String: JSONValue] = ["active": true]
        body["scope"] = result.scope.map { .string($0) }
        body["client_id"] = result.clientID.map { .string($0) }
        body["sub"] = result.sub.map { .string($0) }
        body["exp"] = result.exp.map { .number(Double($0)) }
        body["iat"] = result.iat.map { .number(Double($0)) }
        body["token_type"] = result.tokenType.map { .string($0) }
        return .object(body)
    }
}
