import PingBase
import PingOAuth
import PingState

extension ProviderMetadata {
    /// `private_key_jwt` at the token endpoint (and at revocation, where it is listed or nothing is),
    /// unless the provider lists methods without it.
    package func privateKeyJWTMethods() throws(PingCLIError) -> (token: ClientAuthMethod?, revocation: ClientAuthMethod?) {
        if let listed = tokenEndpointAuthMethodsSupported, !listed.contains(ClientAuthMethod.privateKeyJWT.rawValue) {
            let shown = displaySafe(listed.joined(separator: ", "), limit: 120)
            throw .failure(
                "the provider's token endpoint does not accept private_key_jwt (it lists \(shown.isEmpty ? "none" : shown)): use the client's secret instead of --client-key-file",
                rule: .clientAuthUnsupported)
        }
        return (.privateKeyJWT, .privateKeyJWT)
    }
}

extension Profile {
    /// `client` with a fresh assertion signer when this profile authenticates with `private_key_jwt`.
    package func signing(_ client: ClientCredentials, clock: @escaping WallClock) throws(PingCLIError) -> ClientCredentials {
        guard client.method == .privateKeyJWT, let clientKey else { return client }
        var signed = client
        signed.assertion = try clientKey.load(metadata: metadata, clock: clock)
        return signed
    }
}

extension ClientKeyOptions {
    /// `assertion`, its failure worded.
    package func load(metadata: ProviderMetadata, clock: @escaping WallClock) throws(PingCLIError) -> ClientAssertion {
        do { return try assertion(metadata: metadata, clock: clock) } catch { throw error.cliError }
    }
}

extension ClientKeyOptions.Failure {
    package var cliError: PingCLIError {
        switch self {
        case .file(let failure): failure.cliError
        case .missing(let path):
            .usage(
                "the client key file \(displaySafe(path, limit: 200)) does not exist: give --client-key-file the PEM private key of the client",
                rule: rule)
        case .unusable(let path, let error):
            .failure("the client key file \(displaySafe(path, limit: 200)) cannot sign client assertions: \(error.message)", rule: rule)
        }
    }
}
