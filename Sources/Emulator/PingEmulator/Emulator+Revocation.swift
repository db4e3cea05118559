import EmulatorHTTP
import Foundation

extension Emulator {
    // MARK: Revocation and introspection

    /// The PingOne API's audience: the `aud` of tokens that carry only OpenID Connect scopes.
    public static let pingOneAPIAudience = PingOneLayout.apiAudience

    /// The `aud` of an access token with `scopes`, as the layout gives it.
    func accessTokenAudience(scopes: [String]) -> EmulatorJSON {
        vendor.accessTokenAudience(scopes: scopes, issuer: issuer, resources: configuration.resources)
    }

    /// Whether the revocation endpoint revokes this token when its client asks (the layout's rule).
    func isRevocable(_ record: TokenRecord) -> Bool {
        vendor.isRevocable(record, audience: accessTokenAudience(scopes: record.scopes), configuration)
    }

    /// RFC 7009. A token the rules above keep is answered like an unknown one, 200 with an empty body
    /// (RFC 7009 §2.2: "invalid tokens do not cause an error response"); neither PingOne nor PingFederate
    /// documents an error for it, and it keeps working at userinfo and introspection.
    func revoke(_ request: HTTPRequest) -> HTTPResponse {
        let (form, client): ([String: String], RegisteredClient)
        switch authenticatedPost(request, formRequired: false) {
        case .refused(let response): return response
        case .accepted(let f, let c): (form, client) = (f, c)
        }
        if !client.isConfidential && !configuration.publicClientsMayRevoke {
            return .oauthError(
                "invalid_client", "public clients may not revoke tokens", status: 401,
                headers: [("WWW-Authenticate", "Basic realm=\"emulator\"")])
        }
        guard let token = form["token"], !token.isEmpty else {
            return .oauthError("invalid_request", "token is required")
        }
        // A proof, when sent, must be valid; a DPoP-bound token is revoked only with a proof by its key.
        var proofKey: String? = nil
        switch checkDPoP(request, accessToken: nil) {
        case .absent: break
        case .invalid(let error, let description): return dpopRefusal(error, description)
        case .valid(let jkt): proofKey = jkt
        }
        if let bound = state.withLock({ $0.tokens[token]?.jkt }), bound != proofKey {
            return dpopRefusal("invalid_dpop_proof", "the token is bound to a DPoP key: a proof by that key is required")
        }
        // token_type_hint is only a hint: both kinds are looked up in the same table.
        return state.withLock { s -> HTTPResponse in
            guard let record = s.tokens[token] else { return HTTPResponse(status: 200) }  // RFC 7009 §2.2
            guard record.grant.clientID == client.clientID else {
                return .oauthError("unauthorized_client", "the token was issued to another client")
            }
            guard isRevocable(record) else { return HTTPResponse(status: 200) }
            s.tokens[token]?.revoked = true
            if record.isRefresh {
                // RFC 7009 §2.1: revoking a refresh token ends the grant (the access tokens too, where the layout says).
                let accessTokensToo = vendor.revokesAccessTokensWithGrant(configuration)
                for (t, r) in s.tokens where r.grant.id == record.grant.id && (r.isRefresh || accessTokensToo) {
                    s.tokens[t]?.revoked = true
                }
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

    func introspectionJSON(_ token: String) -> EmulatorJSON {
        let result = introspect(token)
        guard result.active else { return ["active": false] }
        var body: [String: EmulatorJSON] = ["active": true]
        body["scope"] = result.scope.map { .string($0) }
        body["client_id"] = result.clientID.map { .string($0) }
        body["sub"] = result.sub.map { .string($0) }
        body["exp"] = result.exp.map { .number(Double($0)) }
        body["iat"] = result.iat.map { .number(Double($0)) }
        body["token_type"] = result.tokenType.map { .string($0) }
        body["aud"] = result.audience
        return .object(body)
    }
}
