import Foundation
import PingEmulator

#if canImport(Glibc)
    import Glibc
#endif

/// A plain HTTP/1.1 server on a loopback port that stands in for a service behind Ping (a Kubernetes API
/// server, a git server): each request is passed to `answer` with its `Authorization` header, one
/// request per connection (`Connection: close`), and every `Authorization` it received is recorded.
final class GuardedServer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var target: String
        var authorization: String?
        var accept: String? = nil
        var path: String { String(target.prefix { $0 != "?" }) }
    }

    struct Response: Sendable {
        var status: Int
        var headers: [(String, String)] = []
        var body: [UInt8] = []

        static let unauthorized = Response(status: 401, headers: [("Content-Type", "text/plain")], body: Array("unauthorized\n".utf8))
        static let notFound = Response(status: 404, headers: [("Content-Type", "text/plain")], body: Array("not found\n".utf8))
    }

    private let acceptor: LoopbackAcceptor
    var port: UInt16 { acceptor.port }
    private let answer: @Sendable (Request) -> Response
    private let state = Locked<[Request]>([])

    /// Every request, in arrival order.
    var requests: [Request] { state.withLock { $0 } }

    init(answer: @escaping @Sendable (Request) -> Response) throws {
        acceptor = try LoopbackAcceptor()
        self.answer = answer
        acceptor.start { [self] connection in Thread { [self] in serve(connection) }.start() }
    }

    func stop() { acceptor.stop() }

    /// Reads one request head (bodies are not expected: GET only), answers it and closes.
    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !head.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) && head.count < 64 * 1024 {
            var entry = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 30_000) > 0 else { return }
            let count = recv(connection, &chunk, chunk.count, 0)
            if count <= 0 { return }
            head.append(contentsOf: chunk[..<count])
        }
        // "\r\n" is one Character in Swift: split on it, not on "\r".
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n")
        let requestLine = (lines.first ?? "").split(separator: " ")
        guard requestLine.count == 3 else { return }
        func header(_ name: String) -> String? {
            lines.dropFirst().first { $0.lowercased().hasPrefix(name + ":") }
                .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
        let request = Request(
            method: String(requestLine[0]), target: String(requestLine[1]), authorization: header("authorization"), accept: header("accept")
        )
        state.withLock { $0.append(request) }
        let response = answer(request)
        var text = "HTTP/1.1 \(response.status) \(response.status == 200 ? "OK" : "Error")\r\n"
        var headers = response.headers
        if response.status == 401 && !headers.contains(where: { $0.0 == "WWW-Authenticate" }) {
            headers.append(("WWW-Authenticate", "Basic realm=\"stand-in\""))
        }
        headers += [("Content-Length", "\(response.body.count)"), ("Connection", "close")]
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        let bytes = Array((text + "\r\n").utf8) + response.body
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }
}
