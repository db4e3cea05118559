import EmulatorHTTP
import Foundation

/// What an access token is for: its scopes and, when a resource or audience was named, its `aud`.
struct Target {
    var scopes: [String]
    /// nil: the audience the scopes give (`accessTokenAudience(scopes:)`).
    var audience: EmulatorJSON?
}

extension Emulator {
    // MARK: Resource indicators (RFC 8707) and token exchange (RFC 8693)

    public static let tokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// RFC 8693 §3: the token type identifier of an OAuth access token.
    public static let accessTokenTypeIdentifier = "urn:ietf:params:oauth:token-type:access_token"
    /// Scopes of OpenID Connect itself: they belong to no custom resource and go with any.
    static let openIDScopes: Set<String> = ["openid", "profile", "email", "address", "phone", "offline_access"]

    /// The scopes and `aud` of an access token for `resource` (RFC 8707 §2), as PingOne issues them: one
    /// resource per token (`invalid_target` for a second or an unknown one), whose audience becomes `aud`;
    /// requested scopes must belong to it (or to OpenID Connect), else `invalid_scope`; without requested
    /// scopes, the grant's scopes of that resource. Without a resource, PingOne still refuses requested
    /// scopes of two custom resources in one token.
    func target(resource: String?, requested: Bool, scopes: [String]) -> GrantCheck<Target> {
        guard let resource else {
            let owners = Set(scopes.flatMap { scope in configuration.resources.filter { $0.scopes.contains(scope) }.map(\.audience) })
            if requested && vendor.refusesScopesOfSeveralResources && owners.count > 1 {
                return .error("invalid_scope", "may not request scopes for multiple resources")
            }
            return .ok(Target(scopes: scopes, audience: nil))
        }
        guard resource.count <= 2048, let components = URLComponents(string: resource), components.scheme != nil,
            components.host != nil, components.fragment == nil
        else {
            return .error("invalid_target", "resource must be an absolute URI without a fragment (RFC 8707 §2)")
        }
        guard let owner = configuration.resources.first(where: { $0.audience == resource }) else {
            return .error("invalid_target", "resource \(resource) is not a resource of this environment")
        }
        let narrowed: [String]
        if requested {
            if let foreign = scopes.first(where: { !owner.scopes.contains($0) && !Self.openIDScopes.contains($0) }) {
                return .error("invalid_scope", "scope \(foreign) does not belong to resource \(resource)")
            }
            narrowed = scopes
        } else {
            narrowed = scopes.filter(owner.scopes.contains)
            guard !narrowed.isEmpty else { return .error("invalid_scope", "the grant holds no scope of resource \(resource)") }
        }
        let audience = vendor.resourceAudience(resource)
        return .ok(Target(scopes: narrowed, audience: audience))
    }

    /// The requested scopes when they lie within `granted` (RFC 6749 §6: a refresh or exchange may
    /// narrow, never widen), `granted` when none were requested, else `invalid_scope`.
    func narrowed(_ requested: String?, within granted: [String]) -> GrantCheck<[String]> {
        guard let requested else { return .ok(granted) }
        let list = requested.scopeList
        guard list.allSatisfy(granted.contains) else { return .error("invalid_scope", "requested scope exceeds the original grant") }
        return .ok(list)
    }

    /// RFC 8693 §2: an access token of this client (`subject_token`) exchanged for one with fewer scopes,
    /// for an `audience` (a resource's audience or name) or a `resource`. No refresh token, no ID token.
    func tokenExchangeGrant(form: [String: String], client: RegisteredClient, jkt: String?) -> HTTPResponse {
        guard let subject = form["subject_token"], !subject.isEmpty, let type = form["subject_token_type"] else {
            return .oauthError("invalid_request", "subject_token and subject_token_type are required")
        }
        guard type == Self.accessTokenTypeIdentifier else {
            return .oauthError("invalid_request", "subject_token_type must be \(Self.accessTokenTypeIdentifier)")
        }
        if let requested = form["requested_token_type"], requested != Self.accessTokenTypeIdentifier {
            return .oauthError("invalid_request", "only access tokens are issued")
        }
        guard let record = state.withLock({ $0.tokens[subject] }), !record.isRefresh, !record.revoked, now() < record.expiresAt,
            record.grant.clientID == client.clientID
        else {
            return .oauthError("invalid_grant", "subject_token is not an active access token of this client")
        }
        if let bound = record.jkt, bound != jkt {
            return .oauthError("invalid_dpop_proof", "the subject token is bound to another DPoP key")
        }
        let scopes: [String]
        switch narrowed(form["scope"], within: record.scopes) {
        case .error(let error, let description): return .oauthError(error, description)
        case .ok(let list): scopes = list
        }
        var resource = form["resource"]
        if let audience = form["audience"] {
            guard let match = configuration.resources.first(where: { $0.audience == audience || $0.name == audience }) else {
                return .oauthError("invalid_target", "audience \(audience) is not a resource of this environment")
            }
            if let resource, resource != match.audience {
                return .oauthError("invalid_target", "audience and resource name different resources")
            }
            resource = match.audience
        }
        switch target(resource: resource, requested: form["scope"] != nil, scopes: scopes) {
        case .error(let error, let description): return .oauthError(error, description)
        case .ok(let target):
            var body = issueTokens(
                grant: record.grant, scopes: target.scopes, nonce: nil, refresh: false, idToken: false, jkt: jkt,
                audience: target.audience
            ).body
            body["issued_token_type"] = .string(Self.accessTokenTypeIdentifier)
            return .json(.object(body))
        }
    }
}
