import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking HTTP/1.1 client for plain `http://` on loopback: enough for one emulator to call another
/// (the PingAM layout exchanging a social provider's code at a second emulator). Not a general client:
/// no TLS, no redirects, no chunked bodies; the request says `Connection: close` and the answer is read
/// to its Content-Length or to the end.
package enum HTTPClient {
    package struct Answer: Sendable {
        package var status: Int
        package var headers: [String: String]
        package var body: [UInt8]
    }

    /// `POST url` with a form body; nil when the URL is not `http://127.0.0.1|localhost:port/…`, the
    /// connection fails, or no answer arrives within `timeout` seconds.
    package static func postForm(_ url: String, _ fields: [(String, String)], timeout: Double = 10) -> Answer? {
        let body = FormEncoding.encode(fields)
        return send(
            "POST", url, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: Array(body.utf8), timeout: timeout)
    }

    package static func send(_ method: String, _ url: String, headers: [(String, String)], body: [UInt8], timeout: Double) -> Answer? {
        guard let components = URLComponents(string: url), components.scheme == "http",
            ["127.0.0.1", "localhost"].contains(components.host ?? ""), let port = components.port
        else { return nil }
        let target =
            (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath)
            + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(components.host ?? "127.0.0.1"):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let written = request[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return nil }
            sent += written
        }
        return read(descriptor)
    }

    /// Reads the answer: its head, then the body to its Content-Length (or to the end).
    private static func read(_ descriptor: Int32) -> Answer? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count < 4 * 1024 * 1024 {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[..<count])
            if let answer = parse(bytes), answer.body.count >= Int(answer.headers["content-length"] ?? "") ?? Int.max { return answer }
        }
        return parse(bytes)
    }

    private static func parse(_ bytes: [UInt8]) -> Answer? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4, let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            return nil
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines.first?.split(separator: " ") ?? []
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Answer(status: status, headers: headers, body: Array(bytes[(end + 4)...]))
    }
}
