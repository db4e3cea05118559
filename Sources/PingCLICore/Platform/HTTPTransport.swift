#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One HTTP request as the protocol engine builds it.
public struct HTTPRequest: Sendable {
    public enum Method: String, Sendable { case get = "GET", post = "POST" }
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

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var contentType: String? { headers["content-type"] }
}

/// Why a request produced no HTTP response.
public enum TransportError: Error, Sendable, Equatable {
    /// DNS, connect, TLS, proxy or timeout: the server is unreachable (exit 3).
    case unreachable(String)
    /// The body was larger than the transport accepts.
    case responseTooLarge(limit: Int)
    /// The URL could not be used (bad scheme, malformed).
    case invalidURL(String)
    /// libcurl (Debian's libcurl4) is not installed.
    case libraryMissing
}

/// Settings shared by every request a command makes.
public struct TransportOptions: Sendable {
    /// A PEM file of CA certificates to trust instead of the system store.
    public var caFile: String?
    /// Seconds allowed to connect.
    public var connectTimeout: Int = 10
    /// Seconds allowed for the whole request.
    public var totalTimeout: Int = 30
    /// Largest response body accepted.
    public var maxResponseBytes: Int = 1 << 20
    /// Called with one line per request and response (method, URL without query, status), for `--verbose`.
    public var trace: (@Sendable (String) -> Void)?

    public init() {}
}

/// The HTTP seam: the live version is libcurl; tests drive the real one against the emulator.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse
}
