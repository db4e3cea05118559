import PingAM
import PingBase
import PingOAuth

// Where the protocol layer's failures get their words. PingOAuth throws typed failures with the facts
// (which input, which list the provider sent, which certificate); the line the user reads, with its
// next step ("give --client-cert and --client-key", "log in without --dpop"), is made here, once, as
// the store's is in `StoreAdvice.swift` and the transport's in `TransportAdvice.swift`.

extension IssuerURL.Failure {
    /// `--issuer` refused: a usage error (exit 2).
    package var cliError: PingCLIError { .usage(message, rule: rule) }

    package var message: String {
        switch self {
        case .scheme(let scheme): "--issuer must be an https URL, not \(displaySafe(scheme, limit: 20)): use https://…"
        case .queryOrFragment: "--issuer must not have a query or fragment (OpenID Discovery §2): remove everything from ? or #"
        case .notAURL(let text, let error):
            "--issuer \"\(displaySafe(text, limit: 120))\" is not a URL pingcli can use (\(error.message)): give the issuer, like https://auth.pingone.com/<environment-id>/as"
        case .discoveryURL(let issuer): "--issuer is the discovery document's URL: use --issuer \(issuer)"
        case .plainHTTP(let suggestion):
            "--issuer must use https (plain http is allowed only for 127.0.0.1, [::1] and localhost): use \(suggestion)"
        case .pingOneEnvironment(let given, let issuer): "\(given) is a PingOne environment, not its issuer: use --issuer \(issuer)"
        }
    }
}

extension EndpointOverrides.Failure {
    /// `login --token-endpoint URL` (or another endpoint option) refused: a usage error (exit 2).
    package var cliError: PingCLIError {
        switch self {
        case .refused(let field, let text, let error):
            .usage(
                "--\(field.option) \(displaySafe(text, limit: 200)) was refused: \(error.message): give the provider's \(field.rawValue) as an https URL",
                rule: rule)
        }
    }
}

extension TokenTarget.Failure {
    /// `token --scope`, `--resource` or `--audience` refused: a usage error (exit 2).
    package var cliError: PingCLIError { .usage(message, rule: rule) }

    package var message: String {
        switch self {
        case .scope(let scope):
            "--scope \"\(displaySafe(scope, limit: 60))\" is not a list of scope tokens (RFC 6749 §3.3): give names separated by spaces, such as --scope \"openid profile\""
        case .resource(let resource):
            "--resource \"\(displaySafe(resource, limit: 60))\" is not an absolute URI without a fragment (RFC 8707 §2): give the API's identifier, such as --resource https://api.example.com"
        case .audience(let audience):
            "--audience \"\(displaySafe(audience, limit: 60))\" is not a name of 1-\(TokenTarget.maximumLength) visible ASCII characters: give the target service's name or URI"
        }
    }
}

extension APIURL {
    /// `resolve`, its failure worded (a usage error, exit 2).
    package static func target(_ text: String, base: String?) throws(PingCLIError) -> EndpointURL {
        do { return try resolve(text, base: base) } catch { throw .usage(error.message, rule: error.rule) }
    }
}

extension APIURL.Failure {
    package var message: String {
        switch self {
        case .relativeWithoutBase(let text):
            "\(displaySafe(text, limit: 200)) is not an absolute URL and the profile has no API base: give https://… or log in with --api-base URL"
        case .refused(let url, let error): "cannot send a token to \(displaySafe(url, limit: 200)): \(error.message)"
        }
    }
}

extension CertificateBinding {
    /// `verify`, its failure worded.
    package static func check(_ accessToken: String, certificate: ClientCertificate?, doing what: String) throws(PingCLIError) {
        do { try verify(accessToken, certificate: certificate, doing: what) } catch { throw .failure(error.message, rule: error.rule) }
    }
}

extension CertificateBinding.Failure {
    package var message: String {
        switch self {
        case .noCertificate(let what):
            "\(what) failed: the access token is bound to a client certificate (cnf x5t#S256) but pingcli sent none: give --client-cert and --client-key"
        case .otherCertificate(let what, let bound, let client):
            "\(what) failed: the access token is bound to another certificate (cnf x5t#S256 \(bound), the client's is \(client)): check the provider's mutual TLS settings"
        }
    }
}

extension DPoPRequest {
    /// `choose`, its failure worded (a usage error, exit 2).
    package func resolve(advertised: [String]?) throws(PingCLIError) -> DPoPAlgorithm {
        do { return try choose(advertised: advertised) } catch { throw .usage(error.message, rule: error.rule) }
    }
}

extension DPoPRequest.Failure {
    package var message: String {
        switch self {
        case .notAccepted(let algorithm, let advertised):
            "the provider does not accept \(algorithm.rawValue) DPoP proofs (dpop_signing_alg_values_supported: \(Self.list(advertised))): choose one of those"
        case .unannounced:
            "the provider's discovery document has no dpop_signing_alg_values_supported, so it does not announce DPoP (RFC 9449 §5.1): if it supports DPoP anyway, name the algorithm, e.g. --dpop EdDSA"
        case .noneImplemented(let advertised):
            "the provider accepts DPoP proofs signed with \(Self.list(advertised)) only, and this build of pingcli signs them with \(DPoPAlgorithm.implemented.map(\.rawValue).joined(separator: ", ")) only: log in without --dpop"
        }
    }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.prefix(8).map { displaySafe($0, limit: 20) }.joined(separator: ", ")
    }
}

extension ProviderMetadata {
    /// `authMethods`, its failure worded.
    package func clientAuthMethods(
        secret: ClientSecret?, certificate: ClientCertificate? = nil
    ) throws(PingCLIError) -> (token: ClientAuthMethod?, revocation: ClientAuthMethod?) {
        do { return try authMethods(secret: secret, certificate: certificate) } catch { throw .failure(error.message, rule: error.rule) }
    }
}

extension ClientAuthFailure {
    package var message: String {
        switch self {
        case .noSecretMethod(let listed):
            "the provider's token endpoint accepts none of client_secret_basic, client_secret_post (it lists \(Self.shown(listed))): use a client that authenticates with a secret, or leave the secret out for a public client"
        case .noMutualTLSMethod(let listed):
            "the provider's token endpoint accepts neither tls_client_auth nor self_signed_tls_client_auth (it lists \(Self.shown(listed))): leave out --client-cert, or enable mutual TLS for the client"
        }
    }

    private static func shown(_ listed: [String]) -> String {
        let text = displaySafe(listed.joined(separator: ", "), limit: 120)
        return text.isEmpty ? "none" : text
    }
}

extension AMRealmError {
    package var message: String {
        switch self {
        case .notAM:
            "the issuer is not a PingAM or Advanced Identity Cloud realm (…/oauth2/realms/root/realms/REALM), so it has no journeys: leave out --journey, or give --authenticate-endpoint URL"
        case .realmPath:
            "the issuer's path after /oauth2 is not a realm (realms/root/realms/REALM or a realm alias): give --authenticate-endpoint URL"
        }
    }
}

extension SignatureError {
    package var message: String {
        switch self {
        case .malformedHeader: "id-token-header: the ID token's JWS header is not a JSON object with an alg (RFC 7515 §4.1.1)"
        case .algorithmNone: "id-token-alg-none: the ID token is unsigned (alg none), and pingcli never accepts that"
        case .unsupportedAlgorithm(let alg):
            "id-token-alg-unsupported: the ID token is signed with \(displaySafe(alg, limit: 40)), which pingcli does not verify"
        case .algorithmNotListed(let alg, let listed):
            "id-token-alg-not-listed: the ID token is signed with \(alg), but the provider's id_token_signing_alg_values_supported lists \(displaySafe(listed.joined(separator: ", "), limit: 100))"
        case .hmacWithoutSecret(let alg):
            "id-token-hmac-without-secret: the ID token is signed with \(alg), which needs a client secret, and this client has none"
        case .criticalHeader: "id-token-crit: the ID token's header has crit extensions pingcli does not understand (RFC 7515 §4.1.11)"
        case .missingSignature: "id-token-signature-missing: the ID token has no signature"
        case .unknownKeyID(let kid):
            "id-token-unknown-kid: the ID token's kid \(displaySafe(kid, limit: 60)) is not in the provider's JWK Set"
        case .keyDoesNotFit(let kid, let alg):
            "id-token-key-mismatch: the provider's key \(displaySafe(kid, limit: 60)) is not a key for \(alg) (kty, crv, use or alg differ)"
        case .noFittingKey(let alg): "id-token-no-key: the provider's JWK Set has no key for \(alg)"
        case .weakKey(let bits): "id-token-weak-key: the provider's RSA key has \(bits) bits, fewer than the 2048 RFC 7518 §3.3 requires"
        case .invalidSignature: "id-token-bad-signature: the ID token's signature does not verify"
        case .noJWKSURI:
            "id-token-no-jwks: the provider's configuration has no jwks_uri, so the ID token's signature cannot be checked: give login --jwks-uri URL (the provider's JWK Set)"
        case .libraryMissing: "OpenSSL's libcrypto could not be loaded: install it (apt-get install libssl3)"
        }
    }
}

extension TokenEndpointError {
    package var message: String {
        switch self {
        case .oauthError(let status, let error): "the token endpoint refused (HTTP \(status)): \(error.summary)"
        case .httpStatus(let status, let contentType):
            EndpointAnswer.status("the token endpoint", status, contentType: contentType) + " without an OAuth error"
        case .notJSON(let contentType):
            EndpointAnswer.notJSON("the token endpoint's answer", contentType: contentType)
        case .missingAccessToken: "the token response has no access_token"
        case .unsupportedTokenType(let type):
            "the token response's token_type is \(displaySafe(type, limit: 40)), and pingcli supports only Bearer"
        case .notDPoPBound(let type):
            "the token response's token_type is \(displaySafe(type, limit: 40)), not DPoP, although the request carried a DPoP proof: the provider did not bind the token to the key (enable DPoP for this client at the provider, or log in without --dpop)"
        case .unexpectedDPoP:
            "the token response's token_type is DPoP although the request carried no DPoP proof: log in with --dpop"
        case .invalidExpiresIn: "the token response's expires_in is not a positive number of seconds under ten years"
        case .invalidToken(let error): "the token response was refused: \(error.message)"
        case .invalidScope: "the token response's scope is not a list of scope tokens (RFC 6749 §3.3)"
        case .missingIDToken: "the token response has no id_token although the openid scope was granted"
        case .idToken(let error): error.message
        case .issuedTokenType(let issued):
            "the token exchange returned issued_token_type \(displaySafe(issued, limit: 80)), not an access token (RFC 8693 §2.2.1)"
        }
    }
}
