import Testing

@testable import PingAM
@testable import PingBase
@testable import PingCrypto
@testable import PingOAuth
@testable import PingPlatform
@testable import PingState

/// The lower layers throw typed failures with their facts; the line the user reads, with its next step,
/// is made once in PingFlowCore (`OAuthAdvice.swift`, `TransportAdvice.swift`, `StoreAdvice.swift`,
/// `ClientKey.swift`). These tables pin each of those lines word for word (status and rule too), so a
/// failure that moves between layers keeps what the user sees.
@Suite("failure wording: typed below, worded once at the top")
struct FailureWordingTests {
    @Test(
        "issuer-gate: each refused --issuer is worded once, a usage error",
        arguments: [
            (IssuerURL.Failure.scheme("ftp"), "--issuer must be an https URL, not ftp: use https://…", Rule.issuerGate),
            (
                .queryOrFragment, "--issuer must not have a query or fragment (OpenID Discovery §2): remove everything from ? or #",
                .issuerGate
            ),
            (
                .notAURL("auth.pingone.com", .malformed("no scheme")),
                "--issuer \"auth.pingone.com\" is not a URL pingcli can use (\(URLPolicyError.malformed("no scheme").message)): give the issuer, like https://auth.pingone.com/<environment-id>/as",
                .issuerNotAUrl
            ),
            (
                .discoveryURL(issuer: "https://auth.pingone.com/env/as"),
                "--issuer is the discovery document's URL: use --issuer https://auth.pingone.com/env/as", .issuerIsDiscoveryUrl
            ),
            (
                .plainHTTP(suggestion: "https://auth.example.com:8443/as"),
                "--issuer must use https (plain http is allowed only for 127.0.0.1, [::1] and localhost): use https://auth.example.com:8443/as",
                .issuerHttpNonLoopback
            ),
            (
                .pingOneEnvironment("https://auth.pingone.eu/env", issuer: "https://auth.pingone.eu/env/as"),
                "https://auth.pingone.eu/env is a PingOne environment, not its issuer: use --issuer https://auth.pingone.eu/env/as",
                .issuerPingoneWithoutAs
            ),
        ])
    func issuer(_ failure: IssuerURL.Failure, _ line: String, _ rule: Rule) {
        #expect(failure.cliError == PingCLIError(.usage, line, rule: rule))
    }

    @Test("override-endpoint-policy: a refused endpoint option is worded once, naming the option, a usage error")
    func endpointOverride() {
        #expect(
            EndpointOverrides.Failure.refused(.token, "http://a.example/t", .insecure).cliError
                == PingCLIError(
                    .usage,
                    "--token-endpoint http://a.example/t was refused: \(URLPolicyError.insecure.message): give the provider's token_endpoint as an https URL",
                    rule: .overrideEndpointPolicy))
    }

    @Test("the issuer's words are those of the typed case it throws")
    func issuerThrown() {
        do throws(IssuerURL.Failure) {
            _ = try IssuerURL("http://auth.example.com:8443/as")
            Issue.record("plain http to a remote host was accepted")
        } catch {
            #expect(error == .plainHTTP(suggestion: "https://auth.example.com:8443/as"))
        }
    }

    @Test(
        "target-gates: each refused token target is worded once, a usage error",
        arguments: [
            (
                TokenTarget.Failure.scope("a\"b"),
                "--scope \"a\"b\" is not a list of scope tokens (RFC 6749 §3.3): give names separated by spaces, such as --scope \"openid profile\"",
                Rule.targetScopeGrammar
            ),
            (
                .resource("orders"),
                "--resource \"orders\" is not an absolute URI without a fragment (RFC 8707 §2): give the API's identifier, such as --resource https://api.example.com",
                .targetResourceURI
            ),
            (
                .audience("a b"),
                "--audience \"a b\" is not a name of 1-2048 visible ASCII characters: give the target service's name or URI",
                .targetAudienceGrammar
            ),
        ])
    func target(_ failure: TokenTarget.Failure, _ line: String, _ rule: Rule) {
        #expect(failure.cliError == PingCLIError(.usage, line, rule: rule))
    }

    @Test("api-url-gate: a relative URL without an API base, and a refused URL, are usage errors worded once")
    func apiURL() {
        #expect(throws: APIURL.Failure.relativeWithoutBase("/users")) { try APIURL.resolve("/users", base: nil) }
        #expect(throws: APIURL.Failure.refused("http://api.example.com/users", .insecure)) {
            try APIURL.resolve("/users", base: "http://api.example.com")
        }
        #expect(
            throws: PingCLIError.usage(
                "/users is not an absolute URL and the profile has no API base: give https://… or log in with --api-base URL",
                rule: .apiURLGate)
        ) {
            try APIURL.target("/users", base: nil)
        }
        #expect(
            throws: PingCLIError.usage(
                "cannot send a token to http://api.example.com/users: \(URLPolicyError.insecure.message)", rule: .apiURLGate)
        ) {
            try APIURL.target("/users", base: "http://api.example.com")
        }
    }

    @Test("mtls-binding: a token bound to a certificate the client does not hold is worded once, with what to give")
    func certificateBinding() {
        #expect(
            CertificateBinding.Failure.noCertificate(doing: "login").message
                == "login failed: the access token is bound to a client certificate (cnf x5t#S256) but pingcli sent none: give --client-cert and --client-key"
        )
        #expect(
            CertificateBinding.Failure.otherCertificate(doing: "token", bound: "AAA", client: "BBB").message
                == "token failed: the access token is bound to another certificate (cnf x5t#S256 AAA, the client's is BBB): check the provider's mutual TLS settings"
        )
    }

    @Test(
        "dpop-algorithm-choice: each DPoP refusal is worded once, a usage error",
        arguments: [
            (
                DPoPRequest.Failure.notAccepted(.edDSA, advertised: ["ES256"]),
                "the provider does not accept EdDSA DPoP proofs (dpop_signing_alg_values_supported: ES256): choose one of those",
                Rule.dpopAlgorithmChoice
            ),
            (
                .unannounced,
                "the provider's discovery document has no dpop_signing_alg_values_supported, so it does not announce DPoP (RFC 9449 §5.1): if it supports DPoP anyway, name the algorithm, e.g. --dpop EdDSA",
                .dpopUnannounced
            ),
            (
                .noneImplemented(advertised: ["ES384"]),
                "the provider accepts DPoP proofs signed with ES384 only, and this build of pingcli signs them with ES256, EdDSA, PS256, RS256 only: log in without --dpop",
                .dpopAlgorithmChoice
            ),
        ])
    func dpop(_ failure: DPoPRequest.Failure, _ line: String, _ rule: Rule) {
        #expect(failure.message == line && failure.rule == rule)
        #expect(throws: PingCLIError(.usage, line, rule: rule)) {
            switch failure {
            case .notAccepted(let algorithm, let advertised): _ = try DPoPRequest.algorithm(algorithm).resolve(advertised: advertised)
            case .unannounced: _ = try DPoPRequest.providerChoice.resolve(advertised: nil)
            case .noneImplemented(let advertised): _ = try DPoPRequest.providerChoice.resolve(advertised: advertised)
            }
        }
    }

    @Test("client-auth-unsupported: no secret method, no mutual-TLS method: typed below, worded once")
    func clientAuth() {
        let metadata = ProviderMetadata(issuer: "https://i", authorizationEndpoint: "https://i/a", tokenEndpoint: "https://i/t")
        var listing = metadata
        listing.tokenEndpointAuthMethodsSupported = ["private_key_jwt"]
        #expect(throws: ClientAuthFailure.noSecretMethod(listed: ["private_key_jwt"])) {
            try listing.authMethods(secret: try ClientSecret(checking: "s"))
        }
        #expect(
            ClientAuthFailure.noSecretMethod(listed: ["private_key_jwt"]).message
                == "the provider's token endpoint accepts none of client_secret_basic, client_secret_post (it lists private_key_jwt): use a client that authenticates with a secret, or leave the secret out for a public client"
        )
        #expect(
            ClientAuthFailure.noMutualTLSMethod(listed: []).message
                == "the provider's token endpoint accepts neither tls_client_auth nor self_signed_tls_client_auth (it lists none): leave out --client-cert, or enable mutual TLS for the client"
        )
        #expect(ClientAuthFailure.noMutualTLSMethod(listed: []).rule == .clientAuthUnsupported)
    }

    @Test("journey-not-am, journey-realm-path: the realm failures are worded once, naming --authenticate-endpoint")
    func realm() {
        #expect(
            AMRealmError.notAM.message
                == "the issuer is not a PingAM or Advanced Identity Cloud realm (…/oauth2/realms/root/realms/REALM), so it has no journeys: leave out --journey, or give --authenticate-endpoint URL"
        )
        #expect(
            AMRealmError.realmPath.message
                == "the issuer's path after /oauth2 is not a realm (realms/root/realms/REALM or a realm alias): give --authenticate-endpoint URL"
        )
    }

    @Test("dpop-token-type, id-token-no-jwks: the token endpoint's and the signature's advice is worded at the top")
    func protocolAdvice() {
        #expect(
            TokenEndpointError.notDPoPBound("Bearer").message
                == "the token response's token_type is Bearer, not DPoP, although the request carried a DPoP proof: the provider did not bind the token to the key (enable DPoP for this client at the provider, or log in without --dpop)"
        )
        #expect(
            TokenEndpointError.unexpectedDPoP.message
                == "the token response's token_type is DPoP although the request carried no DPoP proof: log in with --dpop")
        #expect(
            SignatureError.noJWKSURI.message
                == "id-token-no-jwks: the provider's configuration has no jwks_uri, so the ID token's signature cannot be checked: give login --jwks-uri URL (the provider's JWK Set)"
        )
    }

    @Test(
        "keyring failures: each Secret Service failure is a typed store failure, worded once, exit 1",
        arguments: [
            (
                SecretService.Failure.unavailable("no bus"),
                "cannot read the cache key from the Secret Service: no keyring answers on the session bus (no bus): start or unlock your desktop keyring (gnome-keyring-daemon, KWallet, KeePassXC), then try again",
                Rule.keyringUnavailable
            ),
            (
                .locked,
                "cannot read the cache key from the Secret Service: the keyring is locked and was not unlocked (the prompt was refused or could not be shown): unlock it (log in to the desktop, or gnome-keyring-daemon --unlock), then try again; nothing was removed",
                .keyringLocked
            ),
            (
                .notInstalled,
                "cannot read the cache key from the Secret Service: libsecret is not installed: install libsecret-1-0 (apt install libsecret-1-0), or set PINGCLI_KEY_STORE=file",
                .libsecretMissing
            ),
            (
                .failed("boom"), "cannot read the cache key from the Secret Service: boom: check your keyring, then try again",
                .keyringFailed
            ),
        ])
    func keyring(_ failure: SecretService.Failure, _ line: String, _ rule: Rule) {
        #expect(StoreFailure.secretService(failure, doing: "read the cache key from").cliError == PingCLIError(.failure, line, rule: rule))
    }

    @Test("key-migrate-keyring-delete: the item kept after a move names the Secret Service's failure, worded once")
    func migrateItemKept() {
        let failure = StoreFailure.migrateItemKept(keyFile: "/k", itemID: "ab", failure: .failed("boom"))
        #expect(
            failure.cliError
                == PingCLIError(
                    .failure,
                    "the cache key is now the file /k, but its Secret Service item could not be deleted (cannot delete it from the Secret Service: boom: check your keyring, then try again): delete it with secret-tool clear application pingcli pingcli-key-id ab",
                    rule: .keyMigrateKeyringDelete))
    }

    @Test("refresh-backoff: the recorded failure is raised again with the time left, worded at the top")
    func refreshBackoff() {
        let failure = RefreshFailure(
            failedAt: 100, retryAfter: 120, attempts: 1, status: ExitStatus.unreachable.rawValue, message: "refresh failed: x",
            obtainedAt: 0, transient: true)
        #expect(
            failure.error(now: 110.5)
                == PingCLIError(
                    .unreachable, "refresh failed: x (pingcli tries again in 10 s; a new login tries at once)", rule: .refreshBackoff))
    }

    @Test("private-key-jwt-file-gate: a missing client key file is typed below and worded once, naming --client-key-file")
    func clientKeyMissing() {
        let options = ClientKeyOptions(path: "/nonexistent/pingcli-test-key.pem")
        let metadata = ProviderMetadata(issuer: "https://i", authorizationEndpoint: "https://i/a", tokenEndpoint: "https://i/t")
        #expect(throws: ClientKeyOptions.Failure.missing(path: options.path)) { try options.assertion(metadata: metadata, clock: { 0 }) }
        #expect(
            throws: PingCLIError.usage(
                "the client key file /nonexistent/pingcli-test-key.pem does not exist: give --client-key-file the PEM private key of the client",
                rule: .privateKeyJWTFileGate)
        ) { try options.load(metadata: metadata, clock: { 0 }) }
        #expect(
            ClientKeyOptions.Failure.unusable(path: "/k.pem", .encrypted).cliError
                == PingCLIError(
                    .failure, "the client key file /k.pem cannot sign client assertions: \(ClientAssertionKey.Failure.encrypted.message)",
                    rule: .privateKeyJWTEncrypted))
    }

    @Test("OAuth error codes: each RFC code is its case both ways; any other stays as sent")
    func oauthErrorCodes() {
        let codes: [(String, OAuthErrorCode)] = [
            ("invalid_scope", .invalidScope), ("invalid_target", .invalidTarget), ("invalid_grant", .invalidGrant),
            ("access_denied", .accessDenied), ("unsupported_token_type", .unsupportedTokenType), ("use_dpop_nonce", .useDPoPNonce),
        ]
        for (text, code) in codes {
            #expect(OAuthErrorCode(text) == code && code.rawValue == text)
        }
        #expect(OAuthErrorCode("Invalid_Scope") == .other("Invalid_Scope"), "codes are case-sensitive (RFC 6749 §5.2)")
        #expect(OAuthErrorResponse(error: "x_custom").code == .other("x_custom"))
        #expect(OAuthErrorCode.other("x_custom").rawValue == "x_custom")
    }
}
