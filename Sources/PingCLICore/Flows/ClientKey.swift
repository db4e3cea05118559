/// `login --client-key-file PEM [--client-key-id KID] [--client-assertion-audience …]`: where a
/// `private_key_jwt` client's key lives. The path is saved in the profile; the key is read again, through
/// the file gate, whenever a request needs an assertion, and never copied anywhere.
public struct ClientKeyOptions: Sendable, Equatable {
    public var path: String
    public var keyID: String?
    public var audience: ClientAssertionAudience

    public init(path: String, keyID: String? = nil, audience: ClientAssertionAudience = .endpoint) {
        self.path = path
        self.keyID = keyID
        self.audience = audience
    }

    /// The key through the file gate (this user's regular file, closed to group and others) and its
    /// algorithm from the provider's list; errors name the file, never its content.
    func load(metadata: ProviderMetadata, clock: @escaping WallClock) throws(PingCLIError) -> ClientAssertion {
        let shown = displaySafe(path, limit: 200)
        guard var bytes = try FileSystem.read(path, limit: 64 * 1024, protection: .secret) else {
            throw .usage(
                "the client key file \(shown) does not exist: give --client-key-file the PEM private key of the client",
                rule: "private-key-jwt-file-gate")
        }
        do {
            let key = try ClientAssertionKey(pem: &bytes, keyID: keyID, listed: metadata.tokenEndpointAuthSigningAlgValuesSupported)
            return ClientAssertion(
                key: key, audience: audience, issuer: metadata.issuer, tokenEndpoint: metadata.tokenEndpoint.value, clock: clock)
        } catch {
            throw .failure("the client key file \(shown) cannot sign client assertions: \(error.message)", rule: error.rule)
        }
    }
}

extension ProviderMetadata {
    /// `private_key_jwt` at the token endpoint (and at revocation, where it is listed or nothing is),
    /// unless the provider lists methods without it.
    func privateKeyJWTMethods() throws(PingCLIError) -> (token: ClientAuthMethod?, revocation: ClientAuthMethod?) {
        if let listed = tokenEndpointAuthMethodsSupported, !listed.contains(ClientAuthMethod.privateKeyJWT.rawValue) {
            let shown = displaySafe(listed.joined(separator: ", "), limit: 120)
            throw .failure(
                "the provider's token endpoint does not accept private_key_jwt (it lists \(shown.isEmpty ? "none" : shown)): use the client's secret instead of --client-key-file",
                rule: "client-auth-unsupported")
        }
        return (.privateKeyJWT, .privateKeyJWT)
    }
}

extension Profile {
    /// `client` with a fresh assertion signer when this profile authenticates with `private_key_jwt`.
    func signing(_ client: ClientCredentials, clock: @escaping WallClock) throws(PingCLIError) -> ClientCredentials {
        guard client.method == .privateKeyJWT, let clientKey else { return client }
        var signed = client
        signed.assertion = try clientKey.load(metadata: metadata, clock: clock)
        return signed
    }
}
