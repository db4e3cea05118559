import PingBase

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP request as the protocol engine builds it.
public struct HTTPRequest: Sendable {
    /// An HTTP method (RFC 9110 §9): a `token`, upper-case by convention; `pingcli api` sends any.
    public struct Method: RawRepresentable, Sendable, Equatable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let get = Method(rawValue: "GET")
        public static let post = Method(rawValue: "POST")
        public static let head = Method(rawValue: "HEAD")
    }
    public var method: Method
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?

    public init(method: Method, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// A form POST ([RFC 6749 Appendix B](https://www.rfc-editor.org/rfc/rfc6749#appendix-B)).
    public static func form(
        _ url: String, _ pairs: [FormEncoding.Pair], headers: [(name: String, value: String)] = []
    )
        -> HTTPRequest
    {
        HTTPRequest(
            method: .post, url: url,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")] + headers,
            body: Array(FormEncoding.encode(pairs).utf8))
    }
}

/// One HTTP response. Header names are lower-cased.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]
    /// Every `Set-Cookie` line, in order (`headers` keeps only the last of a repeated header, and
    /// cookies cannot be joined with commas: RFC 6265 §3).
    public var setCookies: [String]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = [], setCookies: [String] = []) {
        self.status = status
        self.headers = headers
        self.body = body
        self.setCookies = setCookies
    }

    public var contentType: String? { headers["content-type"] }

    /// Whether the body is declared JSON: `application/json` or any `application/…+json`, parameters
    /// allowed ([RFC 8259 §11](https://www.rfc-editor.org/rfc/rfc8259#section-11),
    /// [RFC 6839 §3.1](https://www.rfc-editor.org/rfc/rfc6839#section-3.1)). A JSON-looking body under
    /// another type (an HTML error page, text/plain) is not read as JSON.
    public var hasJSONMediaType: Bool { MediaType.isJSON(contentType) }

    /// The body as a JSON object, or nil when it is not declared JSON or is not one object.
    public var jsonObject: [String: JSONValue]? {
        hasJSONMediaType ? JSONValue.parseObject(body) : nil
    }
}

/// Media types as sent in `Content-Type` ([RFC 9110 §8.3.1](https://www.rfc-editor.org/rfc/rfc9110#section-8.3.1)).
public enum MediaType {
    /// `type/subtype` followed by optional `;parameters`; case-insensitive.
    public static func isJSON(_ value: String?) -> Bool {
        guard let value else { return false }
        let essence = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = essence.trimmingWhitespace.lowercased().split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "application", parts.allSatisfy(isToken) else { return false }
        return parts[1] == "json" || (parts[1].hasSuffix("+json") && parts[1].count > 5)
    }

    /// RFC 9110 §5.6.2 `token`.
    package static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || tokenSymbols.contains($0) }
    }

    private static let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)
}

/// Why a request produced no HTTP response.
public enum TransportError: Error, Sendable, Equatable {
    /// DNS, connect, TLS, proxy or timeout: the server is unreachable (exit 3).
    case unreachable(String)
    /// A proxy was in the way and failed (refused or garbled the CONNECT, could not be resolved): exit 3,
    /// blamed on the proxy rather than the provider.
    case proxyFailed(String)
    /// The body was larger than the transport accepts.
    case responseTooLarge(limit: Int)
    /// The URL could not be used (bad scheme, malformed).
    case invalidURL(String)
    /// libcurl (Debian's libcurl4) is not installed.
    case libraryMissing
    /// The server's key matched none of the profile's pins (`CURLE_SSL_PINNEDPUBKEYNOTMATCH`): never
    /// retried without them.
    case pinMismatch(String)
    /// The client certificate or its key could not be used (`CURLE_SSL_CERTPROBLEM`: unreadable, not
    /// PEM, or a key that does not belong to the certificate).
    case clientCertificate(String)
    /// libcurl refused an option the request needs to be safe (too old, or built without it): not sent.
    case optionRefused(String)
    /// The request itself was refused before sending: a URL outside RFC 3986, or a header name or
    /// value with CR, LF or another control character (request splitting).
    case unsafeRequest(String)
}

extension HTTPRequest {
    /// Defence in depth below the gates: nothing reaches the wire that could split the request.
    public func checkSafeToSend() throws(TransportError) {
        guard MediaType.isToken(method.rawValue[...]) else { throw .unsafeRequest("the method is not an HTTP token") }
        guard (try? EndpointURL(url)) != nil else { throw .unsafeRequest("the URL is not a plain http(s) URL") }
        for (name, value) in headers {
            guard MediaType.isToken(name[...]) else { throw .unsafeRequest("a header name is not an HTTP token") }
            guard isSafeHeaderValue(value) else { throw .unsafeRequest("the \(name) header holds a control character") }
        }
    }
}

/// The HTTP seam: the live version is libcurl; tests drive the real one against the emulator.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse
}

extension TransportError {
    public var rule: Rule {
        switch self {
        case .unreachable: .serverUnreachable
        case .proxyFailed: .proxyFailed
        case .responseTooLarge: .responseTooLarge
        case .invalidURL: .urlInvalid
        case .libraryMissing: .libcurlMissing
        case .pinMismatch: .pinMismatch
        case .clientCertificate: .mtlsClientCertificate
        case .optionRefused: .curlOptionRefused
        case .unsafeRequest: .requestSplitting
        }
    }
}
