import PingHTTP

/// The `request_uri` of a pushed authorization request ([RFC 9126 §2.2](https://www.rfc-editor.org/rfc/rfc9126#section-2.2)):
/// an absolute URI (usually `urn:ietf:params:oauth:request_uri:…`) of RFC 3986 characters, at most
/// 2 KiB. It goes into the browser's URL, so nothing else passes.
public struct RequestURI: ProviderToken {
    public let value: String
    public init(unchecked value: String) { self.value = value }
    public static let field = "request_uri"
    public static let rule = "absolute URI (RFC 9126 §2.2, RFC 3986 characters, at most 2048)"
    package static let maximumLength = 2048

    public static func matchesGrammar(_ bytes: [UInt8]) -> Bool {
        guard bytes.count <= maximumLength, let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            bytes[0].isASCIILetter, colon + 1 < bytes.count
        else { return false }
        let scheme = bytes[..<colon].allSatisfy {
            $0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
        return scheme && bytes.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || uriSymbols.contains($0) }
    }

    /// RFC 3986 §2.2 reserved and §2.3 unreserved symbols, and `%` of percent-encoding.
    private static let uriSymbols = Set("-._~:/?#[]@!$&'()*+,;=%".utf8)
}

/// Failures of the pushed authorization request endpoint, one per rule.
public enum PushedAuthorizationError: Error, Sendable, Equatable {
    case oauthError(status: Int, OAuthErrorResponse)
    case httpStatus(Int, contentType: String?)
    case notJSON(contentType: String?)
    case missingRequestURI
    case invalidRequestURI(TokenGrammarError)
    case invalidExpiresIn

    public var message: String {
        switch self {
        case .oauthError(let status, let error):
            "the pushed authorization request was refused (HTTP \(status)): \(error.summary)"
        case .httpStatus(let status, let contentType):
            EndpointAnswer.status("the pushed authorization request endpoint", status, contentType: contentType)
        case .notJSON(let contentType):
            EndpointAnswer.notJSON("the pushed authorization request endpoint's answer", contentType: contentType)
        case .missingRequestURI: "the pushed authorization response has no request_uri (RFC 9126 §2.2)"
        case .invalidRequestURI(let error): "the pushed authorization response was refused: \(error.message)"
        case .invalidExpiresIn: "the pushed authorization response's expires_in is not a positive number of seconds under an hour"
        }
    }
}

/// Processing of the pushed authorization response ([RFC 9126 §2.2, §2.3](https://www.rfc-editor.org/rfc/rfc9126#section-2.2)).
public enum PushedAuthorization {
    package static let maximumExpiresIn: Double = 3600

    /// A 201 (or 200) JSON object with `request_uri` and `expires_in`, each through its gate.
    public static func process(_ response: HTTPResponse) throws(PushedAuthorizationError) -> (requestURI: RequestURI, expiresIn: Double) {
        let object = response.jsonObject
        guard response.status == 201 || response.status == 200 else {
            if let error = OAuthErrorResponse(object) { throw .oauthError(status: response.status, error) }
            throw .httpStatus(response.status, contentType: response.contentType)
        }
        guard let object else { throw .notJSON(contentType: response.contentType) }
        guard let text = object["request_uri"]?.stringValue else { throw .missingRequestURI }
        let requestURI: RequestURI
        do { requestURI = try RequestURI(checking: text) } catch { throw .invalidRequestURI(error) }
        let expiresIn: Double?
        do { expiresIn = try TokenEndpoint.expiresIn(object["expires_in"]) } catch { throw .invalidExpiresIn }
        guard let expiresIn, expiresIn <= maximumExpiresIn else { throw .invalidExpiresIn }
        return (requestURI, expiresIn)
    }
}
