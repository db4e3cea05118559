/// Every option of the `ping-emulator` executable, named once: the parser, the help and the tests all
/// read this table, as pingcli's own commands read theirs (an option is a case, never a string looked up).
public enum EmulatorOption: String, CaseIterable, Sendable {
    case port = "--port"
    case layout = "--layout"
    case envID = "--env-id"
    case clientID = "--client-id"
    case clientSecret = "--client-secret"
    case accessTokenTTL = "--access-token-ttl"
    case signIn = "--sign-in"
    case realm = "--realm"
    case clientSecretFile = "--client-secret-file"
    case publicClientsMayNotRevoke = "--public-clients-may-not-revoke"
    case deviceInterval = "--device-interval"
    case deviceApproval = "--device-approval"
    case par = "--par"
    case noDiscovery = "--no-discovery"
    case deviceGrantWithoutIDToken = "--device-grant-without-id-token"
    case acr = "--acr"
    case authTimeAge = "--auth-time-age"
    case exactPorts = "--exact-ports"
    case postLogoutURI = "--post-logout-uri"
    case signingAlg = "--signing-alg"
    case accessTokenTyp = "--access-token-typ"
    case issInAuthorizationResponse = "--iss-in-authorization-response"
    case resource = "--resource"
    case refreshTokenTTL = "--refresh-token-ttl"
    case refreshTokenRollingDuration = "--refresh-token-rolling-duration"
    case refreshTokenGrace = "--refresh-token-grace"
    case accessTokenRevocation = "--access-token-revocation"
    case accessGrantGUIDClaim = "--access-grant-guid-claim"
    case noPingFederateCookie = "--no-pingfederate-cookie"
    case tlsCert = "--tls-cert"
    case tlsKey = "--tls-key"
    case tlsClientCA = "--tls-client-ca"
    case tlsClientAuth = "--tls-client-auth"
    case selfSignedTLSClientAuth = "--self-signed-tls-client-auth"
    case dpopAlgs = "--dpop-algs"
    case dpopRequired = "--dpop-required"
    case dpopNonce = "--dpop-nonce"
    case dpopProofLifetime = "--dpop-proof-lifetime"
    case noDPoPReplayPrevention = "--no-dpop-replay-prevention"
    case trees = "--trees"
    case cookieName = "--cookie-name"
    case shortIssuer = "--short-issuer"
    case totpSecret = "--totp-secret"
    case pushApproveAfter = "--push-approve-after"
    case authIDTTL = "--auth-id-ttl"
    case suspendedTTL = "--suspended-ttl"
    case sessionTTL = "--session-ttl"
    case noImpliedConsent = "--no-implied-consent"
    case readyFile = "--ready-file"
    case help = "--help"

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
