import PingBase
import PingHTTP

/// A device code (RFC 8628 §3.2): opaque, `1*VSCHAR` like a refresh token; sent back only in the body of
/// token requests, never shown.
public struct DeviceCode: ProviderToken {
    public let value: String
    public init(unchecked value: String) { self.value = value }
    public static let field = "device_code"
    public static let rule = "device code (RFC 8628 §3.2, printable ASCII)"

    public static func matchesGrammar(_ bytes: [UInt8]) -> Bool { bytes.allSatisfy(\.isVisibleOrSpace) }
}

/// What the user types at the verification page (RFC 8628 §3.2, §6.1): shown on the terminal, so
/// printable ASCII only and short enough to type.
public struct UserCode: ProviderToken {
    public let value: String
    public init(unchecked value: String) { self.value = value }
    public static let field = "user_code"
    public static let rule = "user code (RFC 8628 §6.1: printable ASCII, at most 64 characters)"
    package static let maximumLength = 64

    public static func matchesGrammar(_ bytes: [UInt8]) -> Bool {
        bytes.count <= maximumLength && bytes.allSatisfy(\.isVisibleOrSpace) && bytes.contains { $0 != 0x20 }
    }
}

/// Failures of the device authorization endpoint, one per rule.
public enum DeviceAuthorizationError: Error, Sendable, Equatable {
    case oauthError(status: Int, OAuthErrorResponse)
    case httpStatus(Int, contentType: String?)
    case notJSON(contentType: String?)
    case missing(String)
    case invalidToken(TokenGrammarError)
    case refusedURL(field: String, URLPolicyError)
    /// `interval` or `expires_in` is not a plain positive number in range.
    case invalidNumber(String)

    public var message: String {
        switch self {
        case .oauthError(let status, let error): "the device authorization endpoint refused (HTTP \(status)): \(error.summary)"
        case .httpStatus(let status, let contentType):
            EndpointAnswer.status("the device authorization endpoint", status, contentType: contentType)
        case .notJSON(let contentType):
            EndpointAnswer.notJSON("the device authorization endpoint's answer", contentType: contentType)
        case .missing(let field): "the device authorization response has no \(field) (RFC 8628 §3.2)"
        case .invalidToken(let error): "the device authorization response was refused: \(error.message)"
        case .refusedURL(let field, let reason): "the device authorization response's \(field) was refused: \(reason.message)"
        case .invalidNumber(let field): "the device authorization response's \(field) is not a positive number of seconds in range"
        }
    }
}

/// The device authorization response ([RFC 8628 §3.2](https://www.rfc-editor.org/rfc/rfc8628#section-3.2)),
/// every field through its gate.
public struct DeviceAuthorization: Sendable, Equatable {
    public var deviceCode: DeviceCode
    public var userCode: UserCode
    /// Shown and opened in a browser: the URL gate and the issuer's endpoint policy.
    public var verificationURI: EndpointURL
    public var verificationURIComplete: EndpointURL?
    /// Seconds the codes live.
    public var expiresIn: Double
    /// Seconds between polls (default 5, RFC 8628 §3.2).
    public var interval: Double

    /// Longest wait believed for a device code, and longest interval.
    package static let maximumExpiresIn: Double = 24 * 3600
    package static let maximumInterval: Double = 600

    /// The request: the scope and the client's authentication (§3.1).
    public static func request(endpoint: EndpointURL, scopes: [String], client: ClientCredentials) -> HTTPRequest {
        client.form(endpoint.value, [("scope", scopes.joined(separator: " "))])
    }

    /// Checks the response for this issuer.
    public static func process(_ response: HTTPResponse, issuer: EndpointURL) throws(DeviceAuthorizationError) -> DeviceAuthorization {
        let object = response.jsonObject
        guard response.status == 200 else {
            if let error = OAuthErrorResponse(object) { throw .oauthError(status: response.status, error) }
            throw .httpStatus(response.status, contentType: response.contentType)
        }
        guard let object else { throw .notJSON(contentType: response.contentType) }
        func token<T: ProviderToken>(_ type: T.Type) throws(DeviceAuthorizationError) -> T {
            guard let text = object[T.field]?.stringValue else { throw .missing(T.field) }
            do { return try T(checking: text) } catch { throw .invalidToken(error) }
        }
        func url(_ field: String) throws(DeviceAuthorizationError) -> EndpointURL? {
            guard let value = object[field], value != .null else { return nil }
            guard let text = value.stringValue else { throw .refusedURL(field: field, .malformed("not a string")) }
            do { return try EndpointPolicy.check(text, issuer: issuer) } catch { throw .refusedURL(field: field, error) }
        }
        func seconds(_ field: String, maximum: Double) throws(DeviceAuthorizationError) -> Double? {
            let value: Double?
            do { value = try TokenEndpoint.expiresIn(object[field]) } catch { throw .invalidNumber(field) }
            guard let value else { return nil }
            guard value <= maximum else { throw .invalidNumber(field) }
            return value
        }
        guard let verificationURI = try url("verification_uri") else { throw .missing("verification_uri") }
        guard let expiresIn = try seconds("expires_in", maximum: maximumExpiresIn) else { throw .missing("expires_in") }
        return DeviceAuthorization(
            deviceCode: try token(DeviceCode.self), userCode: try token(UserCode.self), verificationURI: verificationURI,
            verificationURIComplete: try url("verification_uri_complete"), expiresIn: expiresIn,
            interval: try seconds("interval", maximum: maximumInterval) ?? 5)
    }

    /// One poll of the token endpoint (§3.4).
    public func tokenRequest(endpoint: EndpointURL, client: ClientCredentials) -> HTTPRequest {
        client.form(
            endpoint.value, [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode.value)])
    }
}
