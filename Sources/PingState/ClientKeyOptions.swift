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
    /// algorithm from the provider's list; failures name the file, never its content (worded in
    /// `PingFlowCore/ClientKey.swift`).
    package func assertion(metadata: ProviderMetadata, clock: @escaping WallClock) throws(Failure) -> ClientAssertion {
        let bytes: [UInt8]?
        do { bytes = try FileSystem.read(path, limit: 64 * 1024, protection: .secret) } catch { throw .file(error) }
        guard var bytes else { throw .missing(path: path) }
        do {
            let key = try ClientAssertionKey(pem: &bytes, keyID: keyID, listed: metadata.tokenEndpointAuthSigningAlgValuesSupported)
            return ClientAssertion(
                key: key, audience: audience, issuer: metadata.issuer, tokenEndpoint: metadata.tokenEndpoint.value, clock: clock)
        } catch {
            throw .unusable(path: path, error)
        }
    }

    /// Why the client key cannot sign, with the file's path.
    package enum Failure: Error, Sendable, Equatable {
        /// The file gate refused or could not read the file.
        case file(FileFailure)
        /// There is no file at `path`.
        case missing(path: String)
        /// The file at `path` holds no key that can sign client assertions.
        case unusable(path: String, ClientAssertionKey.Failure)

        package var rule: Rule {
            switch self {
            case .file(let error): error.rule
            case .missing: .privateKeyJWTFileGate
            case .unusable(_, let error): error.rule
            }
        }
    }
}
