import CCurl
import PingBase
import PingHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP over libcurl: TLS with the system or a custom CA, proxies from the environment (never for
/// loopback, see `noProxy`), no redirects followed (a redirect is an answer the caller must judge),
/// bounded response size and time.
public struct CurlTransport: HTTPTransport {
    public let options: TransportOptions

    public init(options: TransportOptions = TransportOptions()) {
        self.options = options
    }

    public func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        try request.checkSafeToSend()
        guard pingcli_curl_available() == 1 else { throw .libraryMissing }
        guard let handle = pingcli_curl_easy_init() else { throw .unreachable("libcurl failed to create a handle") }
        defer { pingcli_curl_easy_cleanup(handle) }
        options.trace?("> \(request.method.rawValue) \(displaySafe(Self.redactQuery(request.url), limit: 300))")

        let sink = ResponseSink(limit: options.maxResponseBytes)
        var headerList: UnsafeMutablePointer<curl_slist>? = nil
        for (name, value) in request.headers { headerList = pingcli_curl_slist_append(headerList, "\(name): \(value)") }
        headerList = pingcli_curl_slist_append(headerList, "Expect:")  // no 100-continue round trip
        defer { pingcli_curl_slist_free_all(headerList) }

        try setConnectionOptions(handle, url: request.url)
        try Self.require(pingcli_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList), "CURLOPT_HTTPHEADER")
        try setTLSOptions(handle)
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        defer { errorBuffer.deallocate() }
        // Not security-relevant: without it, errors carry libcurl's shorter text.
        _ = pingcli_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)

        let unmanagedSink = Unmanaged.passRetained(sink)
        defer { unmanagedSink.release() }
        try Self.setSink(handle, sink: unmanagedSink.toOpaque())

        let body = request.body ?? []
        let result: CURLcode = body.withUnsafeBufferPointer { buffer in
            if request.method == .head {
                let noBody = pingcli_curl_setopt_long(handle, CURLOPT_NOBODY, 1)
                guard noBody == CURLE_OK else { return noBody }
            } else if request.method != .post && (request.method != .get || request.body != nil) {
                let custom = pingcli_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method.rawValue)
                guard custom == CURLE_OK else { return custom }
            }
            if request.method == .post || (request.body != nil && request.method != .head) {
                // A refused body option is returned instead of performing: the request is not sent.
                let size = pingcli_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, buffer.count)
                guard size == CURLE_OK else { return size }
                let fields = pingcli_curl_setopt_pointer(
                    handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!))
                guard fields == CURLE_OK else { return fields }
            }
            return pingcli_curl_easy_perform(handle)
        }
        if sink.overflowed { throw .responseTooLarge(limit: options.maxResponseBytes) }
        guard result == CURLE_OK else { throw transferError(result, detail: String(cString: errorBuffer), handle: handle) }
        var status = 0
        pingcli_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        options.trace?("< HTTP \(status) (\(sink.body.count) bytes)")
        return HTTPResponse(status: status, headers: sink.headers, body: sink.body, setCookies: sink.setCookies)
    }

    /// Hands the response's body and header lines to the `ResponseSink` at `sink`.
    private static func setSink(_ handle: UnsafeMutableRawPointer, sink: UnsafeMutableRawPointer) throws(TransportError) {
        let setWrite = pingcli_curl_setopt_write_function(handle, CURLOPT_WRITEFUNCTION) { pointer, size, count, userdata in
            let sink = Unmanaged<ResponseSink>.fromOpaque(userdata!).takeUnretainedValue()
            let length = size * count
            return sink.append(UnsafeRawBufferPointer(start: pointer, count: length)) ? length : 0
        }
        try Self.require(setWrite, "CURLOPT_WRITEFUNCTION")
        try Self.require(pingcli_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, sink), "CURLOPT_WRITEDATA")
        let setHeader = pingcli_curl_setopt_write_function(handle, CURLOPT_HEADERFUNCTION) { pointer, size, count, userdata in
            let sink = Unmanaged<ResponseSink>.fromOpaque(userdata!).takeUnretainedValue()
            let length = size * count
            sink.appendHeaderLine(UnsafeRawBufferPointer(start: pointer, count: length))
            return length
        }
        try Self.require(setHeader, "CURLOPT_HEADERFUNCTION")
        try Self.require(pingcli_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, sink), "CURLOPT_HEADERDATA")
    }

    /// Where the request goes and how: URL, proxies, protocols, no redirects, time limits, CA.
    private func setConnectionOptions(_ handle: UnsafeMutableRawPointer, url: String) throws(TransportError) {
        try Self.require(pingcli_curl_setopt_string(handle, CURLOPT_URL, url), "CURLOPT_URL")
        // A libcurl that refused it would send loopback traffic to a proxy.
        try Self.require(
            pingcli_curl_setopt_string(handle, CURLOPT_NOPROXY, Self.noProxy(environment: Self.environmentNoProxy())), "CURLOPT_NOPROXY")
        // This machine as the URL gate defines it (0.0.0.0, [::], [::ffff:127.0.0.1] too, which a no-proxy
        // list does not name): no proxy at all, whatever the environment says.
        if Self.isThisMachine(url) { try Self.require(pingcli_curl_setopt_string(handle, CURLOPT_PROXY, ""), "CURLOPT_PROXY") }
        try Self.require(pingcli_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try Self.require(pingcli_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"), "CURLOPT_PROTOCOLS_STR")
        try Self.require(pingcli_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0), "CURLOPT_FOLLOWLOCATION")
        // Redirects are reported, never followed; should that ever change, none may leave https.
        try Self.require(pingcli_curl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "https"), "CURLOPT_REDIR_PROTOCOLS_STR")
        try Self.require(pingcli_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, options.connectTimeout), "CURLOPT_CONNECTTIMEOUT")
        try Self.require(pingcli_curl_setopt_long(handle, CURLOPT_TIMEOUT, options.totalTimeout), "CURLOPT_TIMEOUT")
        // Not security-relevant: a libcurl that refuses these still sends a safe request.
        _ = pingcli_curl_setopt_string(handle, CURLOPT_USERAGENT, "pingcli/\(PingCLIVersion.current)")
        _ = pingcli_curl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        if let caFile = options.caFile { try Self.require(pingcli_curl_setopt_string(handle, CURLOPT_CAINFO, caFile), "CURLOPT_CAINFO") }
    }

    /// The failure a libcurl result other than CURLE_OK means.
    private func transferError(_ result: CURLcode, detail: String, handle: UnsafeMutableRawPointer) -> TransportError {
        let reason = String(cString: pingcli_curl_easy_strerror(result))
        options.trace?("< \(displaySafe(detail.isEmpty ? reason : detail, limit: 200))")
        switch result {
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH: return .pinMismatch(reason)
        case CURLE_SSL_CERTPROBLEM: return .clientCertificate(reason)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT: return .invalidURL(reason)
        default:
            guard Self.proxyFailed(result, detail: detail, handle: handle) else { return .unreachable(reason) }
            return .proxyFailed(displaySafe(detail.isEmpty ? reason : detail, limit: 120))
        }
    }

    /// Hosts that never go through a proxy: all of 127.0.0.0/8, ::1, localhost and its subdomains
    /// (curl matches `localhost` as a domain, so `a.localhost` too), whatever the environment says,
    /// plus whatever `no_proxy`/`NO_PROXY` adds. A proxy on the way to loopback would see the code,
    /// the PKCE verifier and the refresh token in clear text, and would reach its own 127.0.0.1.
    /// `CURLOPT_NOPROXY` replaces the environment's list, so that list is appended, not lost.
    package static func noProxy(environment: String?) -> String {
        let loopback = "127.0.0.0/8,::1,localhost,.localhost"
        let extra = (environment ?? "").split(separator: ",").map { $0.trimmingWhitespace }.filter { !$0.isEmpty }
        if extra.contains("*") { return "*" }  // no proxy for anything: loopback included
        return ([loopback] + extra).joined(separator: ",")
    }

    /// Whether `url` names this machine by the URL gate's one definition (`EndpointURL.isLoopback`), the
    /// same hosts that may be reached over plain http. A URL the gate refuses is not sent anyway
    /// (libcurl refuses it too); it is treated as this machine, so nothing goes to a proxy for it.
    package static func isThisMachine(_ url: String) -> Bool {
        do { return try EndpointURL(url).isLoopback } catch { return true }
    }

    /// `no_proxy`, else `NO_PROXY`, as libcurl itself would read them.
    package static func environmentNoProxy() -> String? {
        (getenv("no_proxy") ?? getenv("NO_PROXY")).map { String(cString: $0) }
    }

    /// Stops the request when libcurl refused an option that keeps it safe (an older libcurl without
    /// `CURLOPT_PROTOCOLS_STR` would otherwise follow any protocol; a TLS backend without `CURLOPT_CAINFO`
    /// would trust the system store instead of the given CA).
    package static func require(_ code: CURLcode, _ option: String) throws(TransportError) {
        guard code == CURLE_OK else {
            // The header's table of libcurl's functions is per module: make sure this module's is loaded
            // (it is after any request; a caller in another module may have loaded only its own).
            let reason = pingcli_curl_available() == 1 ? String(cString: pingcli_curl_easy_strerror(code)) : "code \(code.rawValue)"
            throw .optionRefused("libcurl refused \(option) (\(reason))")
        }
    }

    /// The profile's client certificate (RFC 8705) and key pins, each option checked: a libcurl that
    /// ignored a pin would quietly trust any key.
    private func setTLSOptions(_ handle: UnsafeMutableRawPointer) throws(TransportError) {
        if let certificate = options.clientTLS.certificateFile {
            try Self.require(pingcli_curl_setopt_string(handle, CURLOPT_SSLCERTTYPE, "PEM"), "CURLOPT_SSLCERTTYPE")
            try Self.require(pingcli_curl_setopt_string(handle, CURLOPT_SSLCERT, certificate), "CURLOPT_SSLCERT")
        }
        if let key = options.clientTLS.keyFile {
            try Self.require(pingcli_curl_setopt_string(handle, CURLOPT_SSLKEYTYPE, "PEM"), "CURLOPT_SSLKEYTYPE")
            try Self.require(pingcli_curl_setopt_string(handle, CURLOPT_SSLKEY, key), "CURLOPT_SSLKEY")
        }
        if !options.clientTLS.pins.isEmpty {
            try Self.require(
                pingcli_curl_setopt_string(handle, CURLOPT_PINNEDPUBLICKEY, KeyPin.curlValue(options.clientTLS.pins)),
                "CURLOPT_PINNEDPUBLICKEY")
        }
    }

    /// Whether a proxy, not the provider, failed the request. libcurl 7.88 has no CURLINFO_USED_PROXY: a
    /// proxy's own error codes, a CONNECT the proxy answered with anything but 2xx, or curl's message
    /// about the CONNECT tunnel say so.
    package static func proxyFailed(_ result: CURLcode, detail: String, handle: UnsafeMutableRawPointer) -> Bool {
        if result == CURLE_COULDNT_RESOLVE_PROXY || result.rawValue == 97 /* CURLE_PROXY, 7.73+ */ { return true }
        var connectCode = 0
        pingcli_curl_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &connectCode)
        if connectCode != 0 && !(200..<300).contains(connectCode) { return true }
        return detail.containsText("CONNECT tunnel") || detail.lowercased().containsText("proxy")
    }

    /// The URL without its query and fragment, for traces and errors (queries may carry values we keep private).
    package static func redactQuery(_ url: String) -> String {
        guard let cut = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return url }
        return String(url[..<cut]) + "?…"
    }
}

/// Collects a response; only ever used by the thread running `curl_easy_perform`.
private final class ResponseSink {
    let limit: Int
    var body: [UInt8] = []
    var headers: [String: String] = [:]
    var setCookies: [String] = []
    var overflowed = false

    init(limit: Int) { self.limit = limit }

    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= limit else {
            overflowed = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    func appendHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers = [:]  // a new response (after 100 Continue or a proxy CONNECT) starts over
            setCookies = []
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingWhitespace
        headers[name] = value
        if name == "set-cookie" && setCookies.count < 64 { setCookies.append(value) }
    }
}
