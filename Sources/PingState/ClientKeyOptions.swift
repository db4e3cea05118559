import PingBase
import PingOAuth
import PingPlatform

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
    package func load(metadata: ProviderMetadata, clock: @escaping WallClock) throws(PingCLIError) -> ClientAssertion {
        let shown = displaySafe(path, limit: 200)
        guard var bytes = try FileSystem.read(path, limit: 64 * 1024, protection: .secret) else {
            throw .usage(
                "the client key file \(shown) does not exist: give --client-key-file the PEM private key of the client",
                rule: .privateKeyJWTFileGate)
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
