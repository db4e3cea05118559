import PingBase

/// What a revocation answered 200 actually did, where the provider documents a rule of its own.
///
/// RFC 7009 §2.2 has the server answer 200 also for a token it does not revoke, so the answer alone
/// cannot tell. Ping documents two such rules, and pingcli reads the token's own claims to apply them
/// rather than guessing from error texts:
///
/// - PingOne revokes only tokens for a custom resource that carry a session (`sid`): "Tokens issued for
///   the PingOne API resource may not be revoked", nor "custom resource tokens that do not have a sid
///   (session) claim, such as tokens issued for the client_credentials grant type"
///   (https://developer.pingidentity.com/pingone-api/auth/openid-connect-oauth-2/token-revocation.html).
/// - PingFederate revokes a JWT access token only when token revocation is enabled on its access token
///   manager; revoking the refresh token revokes the grant.
package enum RevocationRules {
    /// Whose rules apply, told from the endpoints discovery gave (a custom domain keeps the paths).
    package enum Provider: Equatable {
        case pingOne
        case pingFederate
        case other
    }

    package static func provider(issuer: String, revocationEndpoint: EndpointURL) -> Provider {
        let endpoint = revocationEndpoint.value
        if endpoint.hasSuffix("/as/revoke_token.oauth2") { return .pingFederate }
        if issuer.hasSuffix("/as"), endpoint == issuer + "/revoke" { return .pingOne }
        return .other
    }

    /// Why PingOne does not revoke tokens like this access token (nil: it does, or the token is opaque).
    package static func pingOneRefusal(accessTokenClaims claims: [String: JSONValue]) -> String? {
        let audiences: [String] =
            switch claims["aud"] {
            case .string(let value): [value]
            case .array(let values): values.compactMap(\.stringValue)
            default: []
            }
        let custom = audiences.filter { !isPingOneAPI($0) }
        if custom.isEmpty {
            let named = audiences.first.map { " (aud \(displaySafe($0, limit: 80)))" } ?? ""
            return "these tokens are for the PingOne API\(named), and PingOne revokes only tokens for a custom resource"
        }
        if claims["sid"]?.stringValue?.isEmpty ?? true {
            return
                "these tokens carry no session (no sid claim, as client-credentials tokens never do), and PingOne revokes only tokens that do"
        }
        return nil
    }

    /// `https://api.pingone.com` and its regional siblings.
    package static func isPingOneAPI(_ audience: String) -> Bool {
        ["com", "eu", "ca", "asia", "com.au", "sg"].contains { audience == "https://api.pingone." + $0 }
    }

    /// The claims of a JWT access token without checking its signature (only read to explain an
    /// outcome, never to decide what to trust); nil for an opaque token.
    package static func jwtClaims(_ token: String) -> [String: JSONValue]? {
        guard let (_, payload) = try? CompactJWS.decode(token) else { return nil }
        return JSONValue.parseObject(payload)
    }

    /// "until 2026-11-22 18:00:00 UTC" from the token response's lifetime or the JWT's `exp`.
    package static func until(expiresAt: Double?, claims: [String: JSONValue]?) -> String {
        guard let at = expiresAt ?? claims?["exp"]?.numberValue, at.isFinite else { return "until it expires" }
        return "until \(formatUTC(at))"
    }
}
