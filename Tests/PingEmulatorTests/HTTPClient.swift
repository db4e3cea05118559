import EmulatorHTTP
import Foundation

@testable import PingEmulator

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny blocking HTTP/1.1 client over a raw POSIX socket (no URLSession), for loopback tests.
struct TestResponse {
    var status: Int
    /// Lowercased header names.
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: EmulatorJSON? { EmulatorJSON.parse(Data(body)) }

    /// Query parameters of the Location header (for redirects).
    var locationQuery: [String: String] {
        guard let location = headers["location"], let q = location.firstIndex(of: "?") else { return [:] }
        return FormEncoding.decode(location[location.index(after: q)...])
    }
}

enum TestHTTPError: Error { case badURL(String), connect(Int32), malformedResponse }

func http(
    _ method: String, _ url: String, headers: [String: String] = [:],
    form: [(String, String)]? = nil, body: String? = nil
) throws -> TestResponse {
    guard url.hasPrefix("http://127.0.0.1:") else { throw TestHTTPError.badURL(url) }
    let rest = url.dropFirst("http://127.0.0.1:".count)
    let slash = rest.firstIndex(of: "/") ?? rest.endIndex
    guard let port = UInt16(rest[..<slash]) else { throw TestHTTPError.badURL(url) }
    let target = slash == rest.endIndex ? "/" : String(rest[slash...])

    var payload: [UInt8] = []
    var allHeaders = headers
    if let form {
        payload = Array(FormEncoding.encode(form).utf8)
        allHeaders["Content-Type"] = "application/x-www-form-urlencoded"
    } else if let body {
        payload = Array(body.utf8)
    }
    var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for (k, v) in allHeaders { request += "\(k): \(v)\r\n" }
    if !payload.isEmpty || method == "POST" || method == "PUT" { request += "Content-Length: \(payload.count)\r\n" }
    request += "\r\n"

    return try exchange(port: port, Array(request.utf8) + payload)
}

/// Connects to 127.0.0.1:port and returns a connected socket.
func connectLoopback(port: UInt16) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestHTTPError.connect(errno) }
    var tv = timeval(tv_sec: 20, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    let rc = withLoopbackAddress(port: port) { connect(fd, $0, $1) }
    guard rc == 0 else {
        let err = errno
        close(fd)
        throw TestHTTPError.connect(err)
    }
    return fd
}

/// Reads until EOF.
func readAll(_ fd: Int32) -> [UInt8] {
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { break }
        received.append(contentsOf: chunk[0..<n])
    }
    return received
}

/// Sends raw request bytes and parses the response.
func exchange(port: UInt16, _ bytes: [UInt8]) throws -> TestResponse {
    let fd = try connectLoopback(port: port)
    defer { close(fd) }
    var sent = 0
    while sent < bytes.count {
        let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n > 0 else { throw TestHTTPError.connect(errno) }
        sent += n
    }
    let received = readAll(fd)

    guard
        let split = received.indices.first(where: { i in
            i + 3 < received.count && received[i] == 13 && received[i + 1] == 10 && received[i + 2] == 13 && received[i + 3] == 10
        })
    else { throw TestHTTPError.malformedResponse }
    let head = String(decoding: received[..<split], as: UTF8.self).components(separatedBy: "\r\n")
    let statusParts = head[0].split(separator: " ")
    guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw TestHTTPError.malformedResponse }
    var responseHeaders: [String: String] = [:]
    for line in head.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        responseHeaders[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return TestResponse(status: status, headers: responseHeaders, body: Array(received[(split + 4)...]))
}
