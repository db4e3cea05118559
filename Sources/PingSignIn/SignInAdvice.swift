import PingBase
import PingOAuth

/// The next step after the provider refused a sign-in at its token or PAR endpoint, by the OAuth `error`
/// code (RFC 6749 §5.2): the message alone ("invalid_client") does not say what to change.
package enum SignInAdvice {
    /// `confidential`: the client proves itself (a secret, a key or a certificate).
    package static func after(_ error: OAuthErrorResponse, clientID: String, confidential: Bool) -> String {
        let client = displaySafe(clientID, limit: 80)
        switch error.code {
        case .invalidClient, .unauthorizedClient:
            return confidential
                ? "the provider did not accept client \"\(client)\" with its credentials: check --client-id and the client secret (--client-secret-file or PINGCLI_CLIENT_SECRET), key or certificate registered for it"
                : "the provider does not accept client \"\(client)\" as a public client: check --client-id, and that the application is a native app with token endpoint authentication None (docs/ping-setup.md), or give its secret with --client-secret-file"
        case .invalidGrant:
            return
                "the authorization code was refused (expired, already used, or issued for another redirect URI or PKCE verifier): run pingcli login again"
        default:
            return "run pingcli login again; if it repeats, check the application's settings at the provider (docs/ping-setup.md)"
        }
    }
}

extension SignInAdvice {
    /// An authorization response that ended the sign-in, with its next step: a person who declined at
    /// the provider may simply try again.
    package static func afterRefusal(_ error: PingCLIError) -> PingCLIError {
        guard error.rule == .accessDenied else { return error }
        return .failure(error.message + ": run pingcli login again to retry", rule: error.rule)
    }
}

extension ClientCredentials {
    /// Whether the client proves itself: a secret, a signed assertion, or a TLS client certificate.
    package var isConfidential: Bool { secret != nil || assertion != nil || method?.isMutualTLS == true }
}
