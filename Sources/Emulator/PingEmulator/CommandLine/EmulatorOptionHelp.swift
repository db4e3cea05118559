extension EmulatorOption {
    typealias Spec = (value: String?, section: Section, help: [String])

    /// Each option's value name, section and help: the one table the help is made from.
    static let specs: [EmulatorOption: Spec] = [
        .port: ("N", .general, ["listen on 127.0.0.1:N (default 0 = ephemeral)"]),
        .layout: ("pingone|pingfederate|pingam", .general, []),
        .envID: ("ID", .general, ["PingOne environment id"]),
        .clientID: ("ID", .general, ["registered public client (repeatable; replaces the default)"]),
        .clientSecret: ("SECRET", .general, ["make the --client-id clients confidential with this secret"]),
        .accessTokenTTL: ("SECONDS", .general, ["access token lifetime (default 3600)"]),
        .signIn: ("approve|form", .general, ["approve immediately or show a sign-in form (default approve)"]),
        .realm: ("NAME", .general, ["PingAM realm (layout pingam; default alpha)"]),
        .clientSecretFile: ("PATH", .general, ["the clients are confidential, with the secret in PATH (first line)"]),
        .publicClientsMayNotRevoke: (nil, .general, ["revocation refuses public clients (as Glewlwyd and canaille do)"]),
        .deviceInterval: ("SECONDS", .general, ["device-flow polling interval advertised (default 5)"]),
        .deviceApproval: (nil, .general, ["device codes wait for POST /__emulator/device/approve (user_code=)"]),
        .par: (
            "off|offered|required", .general,
            [
                "pushed authorization requests (default: offered for pingone, as",
                "PingOne lists its PAR endpoint; off for pingfederate and pingam)",
            ]
        ),
        .noDiscovery: (nil, .general, ["serve no .well-known/openid-configuration (404), as a gateway"]),
        .deviceGrantWithoutIDToken: (nil, .general, ["answer the device grant without an ID token (RFC 8628 defines none)"]),
        .acr: ("VALUE", .general, ["the acr every ID token asserts (default: the first acr_values", "requested, none when none was)"]),
        .authTimeAge: ("SECONDS", .general, ["auth_time is this long before the sign-in (an old SSO session)"]),
        .exactPorts: (nil, .general, ["redirect URIs must match exactly, port included"]),
        .postLogoutURI: (
            "URI", .general,
            [
                "a registered sign-off (post-logout redirect) URI (repeatable; replaces",
                "the defaults; PingOne and PingFederate match them exactly)",
            ]
        ),
        .signingAlg: ("RS256|PS256|EdDSA", .administrator, ["ID and access token signatures (default RS256)"]),
        .accessTokenTyp: ("JWT|at+jwt", .administrator, ["the access tokens' typ header (default JWT; PingOne at+jwt from 2027)"]),
        .issInAuthorizationResponse: ("on|off", .administrator, ["RFC 9207 iss (default: off for pingfederate, on otherwise)"]),
        .resource: (
            "AUDIENCE=SCOPE[,SCOPE…]", .administrator,
            ["a PingOne custom resource (repeatable; replaces the default", "https://api.example.com=revoke)"]
        ),
        .refreshTokenTTL: ("SECONDS", .administrator, ["each refresh token's lifetime (PingOne refreshTokenDuration, 2592000)"]),
        .refreshTokenRollingDuration: (
            "SECONDS|none", .administrator,
            ["a grant's refresh tokens stop working this long after sign-in", "(PingOne refreshTokenRollingDuration, default 15552000)"]
        ),
        .refreshTokenGrace: (
            "SECONDS", .administrator,
            ["an exchanged refresh token still works this long, 0-86400", "(PingOne refreshTokenRollingGracePeriodDuration, default 0)"]
        ),
        .accessTokenRevocation: (
            nil, .administrator,
            ["PingFederate: JWT access tokens can be revoked directly", "(\"Enable Token Revocation\" on the access token manager)"]
        ),
        .accessGrantGUIDClaim: (
            nil, .administrator,
            ["PingFederate: revoking a refresh token also rejects its JWT access", "tokens (\"Access Grant GUID Claim Name\" set)"]
        ),
        .noPingFederateCookie: (nil, .administrator, ["PingFederate: every sign-off asks the person to confirm"]),
        .tlsCert: ("PEM", .tls, ["the server certificate (chain) of both ports (with --tls-key)"]),
        .tlsKey: ("PEM", .tls, ["the server certificate's key (with --tls-cert)"]),
        .tlsClientCA: ("PEM", .tls, ["the CA that issues tls_client_auth certificates"]),
        .tlsClientAuth: ("ID=DN", .tls, ["a client that authenticates with tls_client_auth, subject DN (RFC 4514)", "(repeatable)"]),
        .selfSignedTLSClientAuth: (
            "ID=PEM", .tls, ["a client that authenticates with this self-signed certificate (repeatable)"]
        ),
        .dpopAlgs: (
            "ALG,…|none", .tls, ["dpop_signing_alg_values_supported (default ES256,PS256,RS256,EdDSA;", "none: unannounced)"]
        ),
        .dpopRequired: (nil, .tls, ["the token endpoint refuses requests without a DPoP proof"]),
        .dpopNonce: (nil, .tls, ["DPoP proofs must carry the server's nonce (DPoP-Nonce)"]),
        .dpopProofLifetime: ("SECONDS", .tls, ["how old a proof's iat may be (default 120)"]),
        .noDPoPReplayPrevention: (nil, .tls, ["a proof's jti may be used again"]),
        .trees: (
            "FILE", .journeys,
            [
                "trees (and users' TOTP secrets) read from a JSON file, added to the",
                "built-in Login, Second Factor, Notice, Email Link and Profile Checks",
            ]
        ),
        .cookieName: (
            "NAME|random", .journeys,
            [
                "the session cookie's name /json/serverinfo/* announces (default",
                "iPlanetDirectoryPro; random: 15 hex digits, as Advanced Identity Cloud)",
            ]
        ),
        .shortIssuer: (
            nil, .journeys,
            [
                "the issuer is /am/oauth2/REALM (the alias form) instead of",
                "/am/oauth2/realms/root/realms/REALM; both forms answer either way",
            ]
        ),
        .totpSecret: ("USER=BASE32", .journeys, ["USER's TOTP secret (repeatable; demo's is JBSWY3DPEHPK3PXP)"]),
        .pushApproveAfter: (
            "N", .journeys,
            [
                "a push wait approves itself on the Nth poll (default: it waits for",
                "POST /__emulator/journeys/push with decision=approve|deny)",
            ]
        ),
        .authIDTTL: ("SECONDS", .journeys, ["the authentication session's lifetime (authId; default 300)"]),
        .suspendedTTL: ("SECONDS", .journeys, ["how long a suspendedId resumes its journey (default 300)"]),
        .sessionTTL: ("SECONDS", .journeys, ["the SSO session's lifetime (tokenId; default 7200)"]),
        .noImpliedConsent: (
            nil, .journeys, ["/authorize with a session shows a consent page; the client must post", "csrf and decision=allow"]
        ),
        .readyFile: ("PATH", .process, ["write the issuer to PATH (atomically) once listening"]),
        .help: (nil, .process, ["show this help"]),
    ]

    /// The help, made from the table: each option with its value, its help aligned at one column
    /// (on the next line when the option is too long), the sections under their headings.
    public static var usage: String {
        var lines = ["usage: ping-emulator [options]"]
        for section in Section.allCases {
            if let heading = section.heading { lines.append(heading) }
            for option in allCases where option.section == section {
                let left = "  " + option.rawValue + (option.valueName.map { " " + $0 } ?? "")
                let pad = String(repeating: " ", count: 30)
                var help = option.help
                if left.count < 30, let first = help.first {
                    lines.append(left + String(repeating: " ", count: 30 - left.count) + first)
                    help.removeFirst()
                } else {
                    lines.append(left)
                }
                lines += help.map { pad + $0 }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
