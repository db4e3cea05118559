import EmulatorHTTP
import Foundation

/// A social identity provider configuration of AM's Social Identity Provider Service, as the Social
/// Provider Handler node uses it (https://docs.pingidentity.com/pingoneaic/am-authentication/authn-social-identity-provider.html;
/// `reference/am-social.md` §4): the external provider's endpoints, the client AM is there (AM is the
/// confidential client and exchanges the code itself), the Redirect URL the browser comes back to, and
/// the client type (BROWSER or NATIVE).
public struct SocialProviderSettings: Sendable, Hashable {
    /// The configuration's name: what a `SelectIdPCallback` lists and the answer names.
    public var name: String
    /// `uiConfig.buttonDisplayName`.
    public var displayName: String
    public var issuer: String
    public var authorizationEndpoint: String
    public var tokenEndpoint: String
    public var clientID: String
    public var clientSecret: String
    /// The Redirect URL: for a command-line client its loopback listener, e.g. `http://127.0.0.1:8765/callback`.
    public var redirectURI: String
    public var scope = "openid profile email"
    /// `BROWSER` (a `RedirectCallback`) or `NATIVE` (an `IdPCallback`).
    public var clientType = "BROWSER"

    public init(
        name: String, displayName: String, issuer: String, authorizationEndpoint: String, tokenEndpoint: String, clientID: String,
        clientSecret: String, redirectURI: String
    ) {
        self.name = name
        self.displayName = displayName
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURI = redirectURI
    }
}

/// What AM keeps in the journey while the browser is at the provider: its `state`, `nonce`, PKCE
/// verifier, and the tracking cookie it set.
struct SocialRedirectState: Sendable {
    var provider: String
    var state: String
    var nonce: String
    var verifier: String
    var trackingCookie: String
}

extension Emulator {
    /// The tracking cookie's name (the Handler's `trackingCookie: true`; the value is per redirect).
    public static let socialTrackingCookie = "authSocialTracking"

    /// The providers a Select Identity Provider node offers (`filter` nil: every configured one).
    func socialProviders(_ filter: [String]?) -> [SocialProviderSettings] {
        configuration.journeys.socialProviders.filter { filter?.contains($0.name) ?? true }
    }

    /// Before a step is shown: a Select Identity Provider node with a single provider and no local
    /// sign-in picks it without asking (SelectIdPNode); a Handler gets a fresh state, nonce and verifier.
    func prepareSocialNode(_ run: inout JourneyRun) {
        guard let node = run.pending.first else { return }
        switch node {
        case .selectIdP(let filter, let local):
            let providers = socialProviders(filter)
            if local == nil, providers.count == 1 { run.pending[0] = .socialHandler(provider: providers[0].name) }
        default: break
        }
        guard case .socialHandler(let name)? = run.pending.first, let provider = socialProvider(name) else { return }
        run.social = SocialRedirectState(
            provider: provider.name, state: Crypto.randomToken(24), nonce: Crypto.randomToken(24), verifier: Crypto.randomToken(32),
            trackingCookie: Crypto.randomToken(16))
    }

    /// A Handler's provider: the one chosen, else the only one configured.
    func socialProvider(_ name: String?) -> SocialProviderSettings? {
        let all = configuration.journeys.socialProviders
        return name.map { name in all.first { $0.name == name } } ?? (all.count == 1 ? all.first : nil)
    }

    /// The callbacks of a social node shown now.
    func socialCallbacks(_ node: JourneyNode, run: JourneyRun) -> [EmulatorJSON] {
        switch node {
        case .selectIdP(let filter, let local):
            var providers: [EmulatorJSON] = socialProviders(filter).map {
                ["provider": .string($0.name), "uiConfig": ["buttonDisplayName": .string($0.displayName), "iconClass": "fa-sign-in"]]
            }
            if local != nil { providers.append(["provider": "localAuthentication"]) }
            return [
                AMCallback.make(
                    "SelectIdPCallback", position: 0, output: [("providers", .array(providers)), ("value", "")], input: [("", "")])
            ]
        case .socialHandler(let name):
            guard let provider = socialProvider(name), let social = run.social else { return [] }
            if provider.clientType == "NATIVE" {
                return [
                    AMCallback.make(
                        "IdPCallback", position: 0,
                        output: [
                            ("provider", .string(provider.name)), ("clientId", .string(provider.clientID)),
                            ("redirectUri", .string(provider.redirectURI)),
                            ("scopes", .array(provider.scope.split(separator: " ").map { .string(String($0)) })),
                            ("nonce", .string(social.nonce)), ("acrValues", []), ("request", ""), ("requestUri", ""),
                        ],
                        input: [("token", ""), ("token_type", "")])
                ]
            }
            let url = FormEncoding.append(
                [
                    ("client_id", provider.clientID), ("response_type", "code"), ("scope", provider.scope),
                    ("redirect_uri", provider.redirectURI), ("state", social.state), ("nonce", social.nonce),
                    ("code_challenge", Crypto.pkceChallenge(forVerifier: social.verifier)), ("code_challenge_method", "S256"),
                ], to: provider.authorizationEndpoint)
            return [
                AMCallback.make(
                    "RedirectCallback", position: 0,
                    output: [("redirectUrl", .string(url)), ("redirectMethod", "GET"), ("trackingCookie", true)])
            ]
        default: return []
        }
    }

    /// The tracking cookie a Handler's redirect step sets.
    func socialHeaders(_ run: JourneyRun) -> [(String, String)] {
        guard case .socialHandler? = run.pending.first, let social = run.social else { return [] }
        return [("Set-Cookie", "\(Self.socialTrackingCookie)=\(social.trackingCookie); Path=/; HttpOnly; SameSite=Lax")]
    }

    /// What a posted social step does; nil for the other nodes. The Handler reads the journey's return
    /// from the request's query (`code`, `state`), never from the body (SocialProviderHandlerNode).
    func evaluateSocialNode(_ node: JourneyNode, _ inputs: [String: EmulatorJSON], _ request: HTTPRequest, run: JourneyRun) -> NodeOutcome?
    {
        switch node {
        case .selectIdP(let filter, let local):
            let chosen = inputs[AMCallback.inputName(0, "")]?.stringValue ?? ""
            if chosen == "localAuthentication", let local { return .advance(user: nil, then: local) }
            guard socialProviders(filter).contains(where: { $0.name == chosen }) else { return .fail }
            return .advance(user: nil, then: [.socialHandler(provider: chosen)])
        case .socialHandler(let name):
            guard let provider = socialProvider(name), let social = run.social else { return .fail }
            if provider.clientType == "NATIVE" { return .fail }
            // No code: not a return from the provider; the node sends a fresh redirect.
            guard let code = request.query["code"] else { return .again(failedPolicies: []) }
            guard request.query["state"] == social.state, carriesTrackingCookie(request, social) else { return .fail }
            guard let subject = exchange(code, provider, social) else { return .fail }
            let alias = "\(provider.name)-\(subject)"
            guard let username = configuration.journeys.socialLinks[alias],
                let user = configuration.users.first(where: { $0.username == username })
            else { return .fail }  // NO_ACCOUNT: this emulator provisions no one
            return .advance(user: user, then: [])
        default: return nil
        }
    }

    private func carriesTrackingCookie(_ request: HTTPRequest, _ social: SocialRedirectState) -> Bool {
        guard configuration.journeys.requireSocialTrackingCookie else { return true }
        let cookies = (request.header("cookie") ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        return cookies.contains("\(Self.socialTrackingCookie)=\(social.trackingCookie)")
    }

    /// AM's own code exchange at the provider (client_secret_post, PKCE), and the ID token's `iss`,
    /// `aud` and `nonce` checked: the subject, or nil.
    private func exchange(_ code: String, _ provider: SocialProviderSettings, _ social: SocialRedirectState) -> String? {
        let answer = HTTPClient.postForm(
            provider.tokenEndpoint,
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", provider.redirectURI),
                ("code_verifier", social.verifier), ("client_id", provider.clientID), ("client_secret", provider.clientSecret),
            ])
        guard let answer, answer.status == 200, let body = EmulatorJSON.parse(Data(answer.body)),
            let idToken = body["id_token"]?.stringValue
        else { return nil }
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])), let claims = EmulatorJSON.parse(Data(payload)),
            claims["iss"]?.stringValue == provider.issuer, claims["nonce"]?.stringValue == social.nonce,
            claims["aud"]?.stringValue == provider.clientID || claims["aud"]?.arrayValue?.contains(.string(provider.clientID)) == true
        else { return nil }
        return claims["sub"]?.stringValue
    }
}
