import PingBase
import PingHTTP

/// Where a transport failure gets its words: PingPlatform throws `TransportError` with the facts (and
/// PingOAuth gives its rule, `FailureRules.swift`); the line the user reads, with the option to check
/// (`--ca-file`, `--pin`, `--client-cert`), is made here, once.
extension TransportError {
    /// Maps a transport failure to the user's words and exit status 3 (or 1 for an unusable URL), with its
    /// rule. `endpoint` names the kind (`token`, `userinfo`) and `url` the request's URL, so the line says
    /// which server and which of its endpoints could not be reached.
    package func asCLIError(doing what: String, endpoint: String? = nil, url: String? = nil) -> PingCLIError {
        described(doing: what, place: Self.place(endpoint: endpoint, url: url))
    }

    private func described(doing what: String, place: String) -> PingCLIError {
        switch self {
        case .unreachable(let reason):
            // `api` has no --ca-file: a resource server's CA comes from CURL_CA_BUNDLE or SSL_CERT_FILE.
            .unreachable(
                "\(what) failed: could not reach \(place): \(reason): check your network, proxy (HTTPS_PROXY) or \(place.hasPrefix("the API") ? "CA bundle (CURL_CA_BUNDLE)" : "--ca-file"), then try again",
                rule: rule
            )
        case .proxyFailed(let reason):
            .unreachable(
                "\(what) failed: the proxy could not connect to \(place) (\(reason)): the proxy is at fault, not the provider: check https_proxy (or HTTPS_PROXY), http_proxy and NO_PROXY, or the proxy itself",
                rule: rule
            )
        case .responseTooLarge(let limit):
            .failure("\(what) failed: the response was larger than \(limit / 1024) KiB: the server is misbehaving", rule: rule)
        case .invalidURL(let reason):
            .failure("\(what) failed: \(reason): check the URL", rule: rule)
        case .libraryMissing:
            .failure("\(what) failed: libcurl could not be loaded: install it (apt-get install libcurl4)", rule: rule)
        case .optionRefused(let reason):
            .failure(
                "\(what) failed: \(reason), so the request was not sent: install a current libcurl (apt-get install libcurl4)", rule: rule)
        case .unsafeRequest(let reason):
            .failure(
                "\(what) failed: pingcli refused to send the request (\(reason)): the saved settings or the server's values are unsafe",
                rule: rule)
        case .pinMismatch:
            PingCLIError(
                .pinMismatch,
                "\(what) failed: the server's key matches none of the pinned keys (--pin): someone may be intercepting the connection; if the provider changed its key, run pingcli login with the new --pin",
                rule: rule
            )
        case .clientCertificate(let reason):
            .usage(
                "\(what) failed: the client certificate or key could not be used (\(reason)): give --client-cert and --client-key of one matching, unencrypted PEM pair",
                rule: rule
            )
        }
    }

    /// `the token endpoint at idp.example.com` (the host and any port, never the path or query).
    package static func place(endpoint: String?, url: String?) -> String {
        let parsed = url.flatMap { try? EndpointURL($0) }
        let host = parsed.map { " at " + displaySafe($0.host + ($0.port.map { ":\($0)" } ?? ""), limit: 120) } ?? ""
        return "the \(endpoint ?? "server")\(endpoint == nil ? "" : " endpoint")\(host)"
    }
}

extension HTTPTransport {
    /// Sends `request`; a transport failure comes back worded (`TransportError.asCLIError`: what was being
    /// done, at which endpoint and URL).
    package func send(
        _ request: HTTPRequest, doing what: String, endpoint: String? = nil, url: String? = nil
    ) throws(PingCLIError) -> HTTPResponse {
        do { return try send(request) } catch { throw error.asCLIError(doing: what, endpoint: endpoint, url: url) }
    }
}
