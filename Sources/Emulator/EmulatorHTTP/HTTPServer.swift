import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A parsed HTTP/1.1 request.
package struct HTTPRequest: Sendable {
    package var method: String
    /// Path without the query string (not percent-decoded).
    package var path: String
    package var query: [String: String]
    /// Header names are lowercased; repeated headers are joined with ", ".
    package var headers: [String: String]
    package var body: [UInt8]
    /// The DER certificate the client presented on a mutual-TLS port (RFC 8705), else nil.
    package var clientCertificate: [UInt8]? = nil

    package init(
        method: String, path: String, query: [String: String], headers: [String: String], body: [UInt8],
        clientCertificate: [UInt8]? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.clientCertificate = clientCertificate
    }

    package func header(_ name: String) -> String? { headers[name.lowercased()] }

    package var isForm: Bool {
        (header("content-type") ?? "").lowercased().hasPrefix("application/x-www-form-urlencoded")
    }

    /// Form parameters when the body is application/x-www-form-urlencoded, else empty.
    package var form: [String: String] {
        isForm ? FormEncoding.decode(String(decoding: body, as: UTF8.self)) : [:]
    }
}

/// An HTTP response; the server always adds Content-Length, Connection: close and Cache-Control: no-store.
package struct HTTPResponse: Sendable {
    package var status: Int
    package var headers: [(String, String)] = []
    package var body: [UInt8] = []

    package init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    package static func html(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(text.utf8))
    }

    package static func redirect(_ location: String) -> HTTPResponse {
        HTTPResponse(status: 302, headers: [("Location", location)])
    }

    package static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 302: return "Found"
        case 303: return "See Other"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 413: return "Payload Too Large"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        default: return "Status \(status)"
        }
    }

    package func serialized() -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        let fixed: Set<String> = ["content-length", "connection", "cache-control"]
        for (name, value) in headers where !fixed.contains(name.lowercased()) {
            head += "\(name): \(value)\r\n"
        }
        head += "Cache-Control: no-store\r\nPragma: no-cache\r\nConnection: close\r\n"
        head += "Content-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }
}

package enum HTTPServerError: Error, CustomStringConvertible {
    case socket(String, Int32)
    /// The TLS certificate or key could not be loaded.
    case tls(String)
    package var description: String {
        switch self {
        case .socket(let op, let err): return "\(op) failed: \(String(cString: strerror(err)))"
        case .tls(let reason): return "TLS: \(reason)"
        }
    }
}

/// A minimal thread-per-connection HTTP/1.1 server bound to 127.0.0.1.
package final class HTTPServer: Sendable {
    package static let maxBodySize = 1 << 20
    package static let maxHeaderSize = 64 * 1024

    package let port: UInt16
    private let listenFD: Int32
    private let readTimeout: Double
    /// TLS on this port when set (libssl); plain HTTP otherwise.
    private let tls: TLSServerContext?

    private struct LoopState {
        var started = false
        var stopped = false
        var closed = false
    }
    private let loopState = Locked(LoopState())

    package init(port: UInt16, readTimeout: Double, tls: TLSServerContext? = nil) throws {
        self.tls = tls
        // Writing to a closed peer must not kill the process; we also pass MSG_NOSIGNAL.
        signal(SIGPIPE, SIG_IGN)
        self.readTimeout = readTimeout
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPServerError.socket("socket", errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withLoopbackAddress(port: port) { bind(fd, $0, $1) }
        guard bound == 0 else {
            let err = errno
            close(fd)
            throw HTTPServerError.socket("bind 127.0.0.1:\(port)", err)
        }
        guard listen(fd, 256) == 0 else {
            let err = errno
            close(fd)
            throw HTTPServerError.socket("listen", err)
        }
        var actual = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        self.listenFD = fd
    }

    /// Starts the accept loop on a background thread. Each connection gets its own thread.
    package func start(handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        let shouldStart = loopState.withLock { state -> Bool in
            guard !state.started, !state.stopped else { return false }
            state.started = true
            return true
        }
        guard shouldStart else { return }
        Thread.detachNewThread { [self] in
            acceptLoop(handler: handler)
        }
    }

    /// Closes the listening socket; the accept loop exits.
    package func stop() {
        // nil when already stopped: the loop may have closed the descriptor, and its number may be another's now.
        let closeNow = loopState.withLock { state -> Bool? in
            guard !state.stopped else { return nil }
            state.stopped = true
            // If the loop runs it closes the descriptor itself once accept() fails,
            // so the number is never reused while accept() still uses it.
            if !state.started { state.closed = true; return true }
            return false
        }
        guard let closeNow else { return }
        // shutdown() wakes a thread blocked in accept() on Linux.
        shutdown(listenFD, Int32(SHUT_RDWR))
        if closeNow { close(listenFD) }
    }

    deinit {
        let needsClose = loopState.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        if needsClose { close(listenFD) }
    }

    private func acceptLoop(handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        while true {
            let client = accept(listenFD, nil, nil)
            if client < 0 {
                let err = errno
                let stopped = loopState.withLock { $0.stopped }
                if stopped { break }
                if err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM { usleep(10_000) }
                continue
            }
            // accept4() is not exported by Glibc's module map; set close-on-exec afterwards.
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            if loopState.withLock({ $0.stopped }) {
                close(client)
                break
            }
            Thread.detachNewThread { [self] in
                serve(client, handler: handler)
            }
        }
        let needsClose = loopState.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        if needsClose { close(listenFD) }
    }

    // MARK: Connection handling

    private func serve(_ fd: Int32, handler: @Sendable (HTTPRequest) -> HTTPResponse) {
        defer { close(fd) }
        var tv = timeval(tv_sec: Int(readTimeout), tv_usec: Int((readTimeout - Double(Int(readTimeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        // The TLS handshake runs under the same timeouts; a client without a required certificate ends here.
        guard let connection = ServerConnection.accept(fd, context: tls) else { return }
        defer { connection.finish() }
        let response: HTTPResponse
        switch readRequest(connection) {
        case .request(var request):
            request.clientCertificate = connection.peerCertificate
            response = handler(request)
        case .error(let status, let message):
            // The request never reached a provider: an OAuth-shaped error (RFC 6749 §5.2) from the plumbing.
            let description = message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            response = HTTPResponse(
                status: status, headers: [("Content-Type", "application/json")],
                body: Array("{\"error\":\"invalid_request\",\"error_description\":\"\(description)\"}".utf8))
        case .closed: return
        }
        send(all: response.serialized(), to: connection)
        if case .plain = connection {
            shutdown(fd, Int32(SHUT_WR))
            drain(fd)
        }
    }

    /// Lingering close: reads (and discards) what the client still sends, e.g. the rest of a
    /// body we refused with 413, so close() does not reset the connection before the client has
    /// read our answer. Bounded to ~2 s and 4 MiB.
    private func drain(_ fd: Int32) {
        var tv = timeval(tv_sec: 0, tv_usec: 500_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let deadline = Date().timeIntervalSince1970 + 2
        var total = 0
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while total < 4 << 20, Date().timeIntervalSince1970 < deadline {
            let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            total += n
        }
    }

    private enum ReadResult {
        case request(HTTPRequest)
        case error(Int, String)
        case closed
    }

    private func readRequest(_ connection: ServerConnection) -> ReadResult {
        // Overall deadline, so a client dripping one byte at a time cannot pin the thread either.
        let deadline = Date().timeIntervalSince1970 + readTimeout
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)

        func readMore() -> Bool {
            guard Date().timeIntervalSince1970 < deadline else { return false }
            let n = chunk.withUnsafeMutableBytes { connection.receive($0) }
            if n < 0 && errno == EINTR { return readMore() }
            guard n > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<n])
            return true
        }

        // Headers.
        var headerEnd: Int?
        var scanFrom = 0
        while headerEnd == nil {
            if let end = Self.find(crlfcrlf, in: buffer, from: scanFrom) {
                headerEnd = end
                break
            }
            scanFrom = max(0, buffer.count - 3)
            if buffer.count > Self.maxHeaderSize { return .error(431, "request headers too large") }
            if !readMore() { return buffer.isEmpty ? .closed : .error(408, "incomplete request") }
        }
        let head: (requestLine: [Substring], headers: [String: String])
        switch Self.parseHead(String(decoding: buffer[0..<headerEnd!], as: UTF8.self)) {
        case .success(let parsed): head = parsed
        case .failure(let refusal): return .error(400, refusal.reason)
        }
        let (requestLine, headers) = head
        if headers["transfer-encoding"] != nil { return .error(501, "chunked request bodies are not supported") }

        // Body.
        var length = 0
        if let cl = headers["content-length"] {
            guard let n = Int(cl), n >= 0 else { return .error(400, "invalid Content-Length") }
            length = n
        }
        if length > Self.maxBodySize { return .error(413, "request body larger than 1 MiB") }
        let bodyStart = headerEnd! + 4
        // curl sends "Expect: 100-continue" for larger bodies and would otherwise wait a second.
        if length > buffer.count - bodyStart, headers["expect"]?.lowercased() == "100-continue" {
            send(all: Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), to: connection)
        }
        while buffer.count - bodyStart < length {
            if !readMore() { return .error(408, "incomplete request body") }
        }
        let body = Array(buffer[bodyStart..<(bodyStart + length)])

        let (path, query) = Self.splitTarget(String(requestLine[1]))
        return .request(HTTPRequest(method: String(requestLine[0]), path: path, query: query, headers: headers, body: body))
    }

    private struct HeadRefused: Error {
        let reason: String
    }

    /// The request line (method, target, version) and the headers (names lower-cased, repeats joined).
    private static func parseHead(_ headText: String) -> Result<(requestLine: [Substring], headers: [String: String]), HeadRefused> {
        var lines = headText.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
            return .failure(HeadRefused(reason: "malformed request line"))
        }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return .failure(HeadRefused(reason: "malformed header")) }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if let existing = headers[name] { headers[name] = existing + ", " + value } else { headers[name] = value }
        }
        return .success((requestLine, headers))
    }

    /// The target's path and its decoded query; an absolute-form target ("http://host/path") is reduced to its path.
    private static func splitTarget(_ target: String) -> (path: String, query: [String: String]) {
        var path = target
        var query: [String: String] = [:]
        if let q = target.firstIndex(of: "?") {
            path = String(target[..<q])
            query = FormEncoding.decode(target[target.index(after: q)...])
        }
        if path.hasPrefix("http://"), let slash = path.dropFirst(7).firstIndex(of: "/") {
            path = String(path[slash...])
        }
        return (path, query)
    }

    private let crlfcrlf: [UInt8] = [13, 10, 13, 10]

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var i = start
        while i + needle.count <= haystack.count {
            if haystack[i] == needle[0] && Array(haystack[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }

    private func send(all bytes: [UInt8], to connection: ServerConnection) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = connection.send(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }
}

/// Calls `body` with 127.0.0.1:`port` as a socket address and its length, for `bind` or `connect`.
package func withLoopbackAddress<Result>(port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}
