/// Every option of the `ping-emulator` executable, named once: the parser, the help and the tests all
/// read this table, as pingcli's own commands read theirs (an option is a case, never a string looked up).
public enum EmulatorOption: String, CaseIterable, Sendable {
    // The sign-in, the clients and the tokens.
    case port = "--port", layout = "--layout", envID = "--env-id", clientID = "--client-id", clientSecret = "--client-secret"
    case accessTokenTTL = "--access-token-ttl", signIn = "--sign-in", realm = "--realm", clientSecretFile = "--client-secret-file"
    case publicClientsMayNotRevoke = "--public-clients-may-not-revoke", deviceInterval = "--device-interval"
    case deviceApproval = "--device-approval", par = "--par", noDiscovery = "--no-discovery"
    case deviceGrantWithoutIDToken = "--device-grant-without-id-token", acr = "--acr", authTimeAge = "--auth-time-age"
    case exactPorts = "--exact-ports", postLogoutURI = "--post-logout-uri"
    // What an administrator can change.
    case signingAlg = "--signing-alg", accessTokenTyp = "--access-token-typ"
    case issInAuthorizationResponse = "--iss-in-authorization-response", resource = "--resource"
    case refreshTokenTTL = "--refresh-token-ttl", refreshTokenRollingDuration = "--refresh-token-rolling-duration"
    case refreshTokenGrace = "--refresh-token-grace", accessTokenRevocation = "--access-token-revocation"
    case accessGrantGUIDClaim = "--access-grant-guid-claim", noPingFederateCookie = "--no-pingfederate-cookie"
    // TLS, mutual TLS and DPoP.
    case tlsCert = "--tls-cert", tlsKey = "--tls-key", tlsClientCA = "--tls-client-ca", tlsClientAuth = "--tls-client-auth"
    case selfSignedTLSClientAuth = "--self-signed-tls-client-auth", dpopAlgs = "--dpop-algs", dpopRequired = "--dpop-required"
    case dpopNonce = "--dpop-nonce", dpopProofLifetime = "--dpop-proof-lifetime"
    case noDPoPReplayPrevention = "--no-dpop-replay-prevention"
    // PingAM's journeys.
    case trees = "--trees", cookieName = "--cookie-name", shortIssuer = "--short-issuer", totpSecret = "--totp-secret"
    case pushApproveAfter = "--push-approve-after", authIDTTL = "--auth-id-ttl", suspendedTTL = "--suspended-ttl"
    case sessionTTL = "--session-ttl", noImpliedConsent = "--no-implied-consent"
    // The process.
    case readyFile = "--ready-file", help = "--help"

    /// Where the help lists an option.
    public enum Section: CaseIterable, Sendable {
        case general, administrator, tls, journeys, process

        var heading: String? {
            switch self {
            case .general, .process: nil
            case .administrator: "settings an administrator can change (docs/testing.md names the Ping page behind each):"
            case .tls: "TLS and mutual TLS (RFC 8705; the issuer becomes https, a second port serves mtls_endpoint_aliases):"
            case .journeys: "PingAM journeys (layout pingam; Sources/Emulator/README.md has the tree file's format):"
            }
        }
    }

    /// The option's value as the help names it; nil for a switch.
    public var valueName: String? { Self.specs[self]?.value }
    public var section: Section { Self.specs[self]?.section ?? .general }
    /// The help's lines for the option.
    public var help: [String] { Self.specs[self]?.help ?? [] }

    /// The options that only turn one setting of the configuration on or off: the setting, and its value.
    static var switches: [EmulatorOption: (setting: WritableKeyPath<EmulatorConfiguration, Bool>, value: Bool)] {
        [
            .publicClientsMayNotRevoke: (\.publicClientsMayRevoke, false),
            .deviceApproval: (\.deviceRequiresApproval, true),
            .exactPorts: (\.exactRedirectPorts, true),
            .noDiscovery: (\.servesDiscovery, false),
            .deviceGrantWithoutIDToken: (\.deviceGrantIDToken, false),
            .accessTokenRevocation: (\.accessTokenRevocation, true),
            .accessGrantGUIDClaim: (\.accessGrantGUIDClaim, true),
            .noPingFederateCookie: (\.pingFederateCookie, false),
            .dpopRequired: (\.dpop.required, true),
            .dpopNonce: (\.dpop.nonces, true),
            .noDPoPReplayPrevention: (\.dpop.replayPrevention, false),
            .shortIssuer: (\.journeys.shortIssuer, true),
        ]
    }
}
