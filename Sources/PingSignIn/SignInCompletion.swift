import PingAM
import PingBase
import PingFlowCore
import PingOAuth
import PingPlatform
import PingSession
import PingState

/// What every person's sign-in ends with, whatever brought the tokens (the browser's code or a device
/// code): the ID token validated ([OIDC Core §3.1.3.7](https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation)),
/// the client secret put beside the tokens, then the profile and the tokens saved under the profile's
/// lock. Built once the provider is known, and shared by `LoginFlow` and `DeviceLoginFlow`.
package struct SignInCompletion {
    package let signIn: SignIn
    package let metadata: ProviderMetadata
    package let methods: (token: ClientAuthMethod?, revocation: ClientAuthMethod?)
    package let context: SessionContext
    package let key: CommandKey
    /// nil for the authorization code grant; `.deviceCode` for RFC 8628, so a later login uses it again.
    package var grantType: Profile.GrantType? = nil

    package init(
        signIn: SignIn, metadata: ProviderMetadata, methods: (token: ClientAuthMethod?, revocation: ClientAuthMethod?),
        context: SessionContext, key: CommandKey, grantType: Profile.GrantType? = nil
    ) {
        self.signIn = signIn
        self.metadata = metadata
        self.methods = methods
        self.context = context
        self.key = key
        self.grantType = grantType
    }

    /// Tokens that passed validation, and whom they are for: the ID token's claims, or, when the grant
    /// brought no ID token, the person the UserInfo endpoint names.
    package struct SignedIn {
        package var tokens: TokenSet
        package var claims: IDTokenClaims?
        package var person: SessionIdentity? = nil
        /// The provider's keys the ID token's signature was checked with, cached with the profile.
        package var keys: FetchedJWKS? = nil
        /// What a journey's sign-in keeps in its profile.
        package var journey: JourneyRecord? = nil

        package var displayName: String? { claims?.displayName ?? person?.displayName }
    }

    /// Validates, then saves.
    package func finish(_ received: TokenSet, nonce: String?) throws(PingCLIError) {
        try save(try validate(received, nonce: nonce))
    }

    /// The ID token validated against the provider's keys (its signature first), the client, `nonce`
    /// (nil where none was sent) and the step-up requirements; the client secret goes with the tokens. The authorization code flow
    /// with `openid` must bring an ID token (OIDC Core §3.1.3.3); grants OpenID Connect does not define
    /// (RFC 8628's device grant) may come without one, and the UserInfo endpoint then names the person.
    package func validate(_ received: TokenSet, nonce: String?) throws(PingCLIError) -> SignedIn {
        var tokens = received
        tokens.clientSecret = signIn.clientSecret
        guard let idToken = tokens.idToken else {
            if grantType == nil && signIn.scopes.contains("openid") {
                throw .failure("login failed: \(TokenEndpointError.missingIDToken.message)", rule: TokenEndpointError.missingIDToken.rule)
            }
            // The browser login without openid names nobody; the device grant asks the UserInfo endpoint.
            let person =
                grantType == nil ? nil : try SessionIdentity.fromUserInfo(tokens, metadata: metadata, signIn: signIn, context: context)
            return SignedIn(tokens: tokens, claims: nil, person: person)
        }
        let keys = try IDTokenKeys.verifyAtLogin(
            idToken, metadata: metadata, clientSecret: signIn.clientSecret?.value,
            transport: context.transports.transport(caFile: signIn.caFile, tls: signIn.tls.settings), now: context.clock())
        let claims = try IDTokenValidation.validateIDToken(
            idToken, issuer: metadata.issuer, clientID: signIn.clientID, nonce: nonce, now: context.clock(),
            requirements: signIn.requirements, doing: "login")
        return SignedIn(tokens: tokens, claims: claims, keys: keys)
    }

    /// The profile and the tokens saved under the profile's lock; a new login resets the refresh backoff.
    package func save(_ signedIn: SignedIn) throws(PingCLIError) {
        let profile = settings(
            subject: signedIn.person?.subject, dpop: signedIn.tokens.dpopKey?.algorithm.rawValue, journey: signedIn.journey)
        try CertificateBinding.check(signedIn.tokens.accessToken.value, certificate: signIn.tls.certificate, doing: "login")
        // The first session on this machine: say where its key is, whether or not this login made it (a
        // first login that failed may have made it silently).
        let first = !context.store.profileNames().contains { FileSystem.exists(context.store.paths.tokensFile($0)) }
        let replaced = try context.saveSession(
            profile, tokens: signedIn.tokens, as: signIn.profile, key: key, keys: signedIn.keys, replacing: signIn.replacing)
        let who = signedIn.displayName.map { " as \($0)" } ?? ""
        // A key made by this login: where it went and why, in one line (never a silent fallback to a file).
        if let notice = key.notice ?? (first ? Self.keyStoreLine(context.store.keySource) : nil) { context.console.err(notice) }
        context.console.err("Logged in to \(displaySafe(metadata.issuer))\(who) (profile \"\(signIn.profile)\").")
        replaced?.revoke(in: context)
    }
}

extension SignInCompletion {
    /// The profile's settings as this sign-in was asked for (what `login --profile NAME` uses again);
    /// `subject` and `dpop` come from the tokens when there are some, `journey` from a journey that ended
    /// (before it ends, what the sign-in was given).
    package func settings(subject: String? = nil, dpop: String? = nil, journey: JourneyRecord? = nil) -> Profile {
        var profile = Profile(
            issuer: metadata.issuer, clientID: signIn.clientID, scopes: signIn.scopes, metadata: metadata,
            caFile: signIn.caFile, tokenEndpointAuthMethod: methods.token, revocationEndpointAuthMethod: methods.revocation,
            grantType: grantType, port: signIn.port == 0 ? nil : signIn.port, logoutPort: signIn.logoutPort,
            gitHosts: signIn.gitHosts, maxAge: signIn.requirements.maxAge, acrValues: signIn.requirements.acrValues,
            subject: subject, dpop: dpop, apiBase: signIn.apiBase?.value)
        profile.clientTLS = signIn.tls.settings
        profile.clientKey = signIn.clientKey
        profile.record(signIn.endpoints, metadata: metadata)
        // The tree and where its session goes; never its answers.
        if let journey {
            profile.journey = journey.tree
            profile.amCookieName = journey.cookieName.value
            profile.authenticateEndpoint = journey.authenticateEndpoint?.value
            profile.otp = journey.otpAccount
            profile.idp = signIn.journey?.identityProvider
            profile.webAuthnOrigin = journey.webAuthnOrigin
        } else if let journey = signIn.journey {
            profile.journey = journey.tree?.name ?? journey.savedTree
            profile.amCookieName = journey.cookieName?.value
            profile.authenticateEndpoint = journey.authenticateEndpoint?.value
            profile.otp = journey.otpAccount
            profile.idp = journey.identityProvider
            profile.webAuthnOrigin = journey.webAuthnOrigin
        }
        return profile
    }

    /// Where the key of an existing store is, for the first session's announcement.
    package static func keyStoreLine(_ source: KeySource) -> String {
        let place = KeyPlace(source)
        switch place.kind {
        case .file: return "The cache key is the file \(place.location) (pingcli key migrate --to keyring moves it into a keyring)"
        case .keyring: return "The cache key is an item in the Secret Service, with a copy in the kernel session keyring"
        case .command: return "The cache key comes from PINGCLI_KEY_COMMAND"
        }
    }
}

/// What a journey's sign-in learned that its profile keeps: the tree, where its AM session goes (the
/// cookie's name, the authenticate endpoint) and the OTP account it used; never its answers.
package struct JourneyRecord: Sendable {
    package var tree: String?
    package var cookieName: AMCookieName
    package var authenticateEndpoint: EndpointURL?
    package var otpAccount: String?
    package var webAuthnOrigin: String? = nil

    package init(tree: String?, cookieName: AMCookieName, authenticateEndpoint: EndpointURL?, otpAccount: String?) {
        self.tree = tree
        self.cookieName = cookieName
        self.authenticateEndpoint = authenticateEndpoint
        self.otpAccount = otpAccount
    }
}
