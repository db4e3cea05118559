import PingOAuth
import Testing

@testable import PingBase
@testable import PingCrypto
@testable import PingHTTP

/// The transport throws `TransportError` with the facts; the line, with the option to check
/// (`--ca-file`, `--pin`, `--client-cert`), is made once in `PingFlowCore/TransportAdvice.swift`.
@Suite("transport failures, typed below and worded at the top")
struct TransportAdviceTests {
    static let url = "https://idp.example.com:8443/as/token?x=1"

    static let cases: [(TransportError, PingBase.ExitStatus, String)] = [
        (
            .unreachable("connection refused"), .unreachable,
            "refresh failed: could not reach the token endpoint at idp.example.com:8443: connection refused: check your network, proxy (HTTPS_PROXY) or --ca-file, then try again"
        ),
        (
            .proxyFailed("CONNECT refused"), .unreachable,
            "refresh failed: the proxy could not connect to the token endpoint at idp.example.com:8443 (CONNECT refused): the proxy is at fault, not the provider: check https_proxy (or HTTPS_PROXY), http_proxy and NO_PROXY, or the proxy itself"
        ),
        (.responseTooLarge(limit: 1 << 20), .failure, "refresh failed: the response was larger than 1024 KiB: the server is misbehaving"),
        (.invalidURL("bad scheme"), .failure, "refresh failed: bad scheme: check the URL"),
        (.libraryMissing, .failure, "refresh failed: libcurl could not be loaded: install it (apt-get install libcurl4)"),
        (
            .optionRefused("libcurl refused CURLOPT_X"), .failure,
            "refresh failed: libcurl refused CURLOPT_X, so the request was not sent: install a current libcurl (apt-get install libcurl4)"
        ),
        (
            .unsafeRequest("a header name is not an HTTP token"), .failure,
            "refresh failed: pingcli refused to send the request (a header name is not an HTTP token): the saved settings or the server's values are unsafe"
        ),
        (
            .pinMismatch("sha256//x"), .pinMismatch,
            "refresh failed: the server's key matches none of the pinned keys (--pin): someone may be intercepting the connection; if the provider changed its key, run pingcli login with the new --pin"
        ),
        (
            .clientCertificate("unable to set private key file"), .usage,
            "refresh failed: the client certificate or key could not be used (unable to set private key file): give --client-cert and --client-key of one matching, unencrypted PEM pair"
        ),
    ]

    @Test("each transport failure is worded once, with its exit status and rule", arguments: cases)
    func worded(_ error: TransportError, _ status: PingBase.ExitStatus, _ line: String) {
        #expect(error.asCLIError(doing: "refresh", endpoint: "token", url: Self.url) == PingCLIError(status, line, rule: error.rule))
    }

    @Test("server-unreachable: a resource server's CA is the CA bundle's (api has no --ca-file)")
    func apiUnreachable() {
        #expect(
            TransportError.unreachable("timeout").asCLIError(doing: "the request", endpoint: "API", url: "https://api.example.com/x")
                .message
                == "the request failed: could not reach the API endpoint at api.example.com: timeout: check your network, proxy (HTTPS_PROXY) or CA bundle (CURL_CA_BUNDLE), then try again"
        )
        #expect(
            TransportError.unreachable("timeout").asCLIError(doing: "ending the AM session").message.contains("could not reach the server:")
        )
    }

    /// Fails every request with one transport error.
    struct Failing: HTTPTransport {
        let error: TransportError
        func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse { throw error }
    }

    @Test("discovery's transport failures read as every other endpoint's", arguments: cases)
    func discoveryMatches(_ error: TransportError, _ status: PingBase.ExitStatus, _ line: String) throws {
        let issuer = try IssuerURL("https://idp.example.com/as")
        #expect(throws: error.asCLIError(doing: "discovery", endpoint: "discovery", url: issuer.discoveryURL)) {
            try ProviderMetadata.discover(issuer: issuer, transport: Failing(error: error))
        }
    }
}
