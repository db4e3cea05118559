import EmulatorHTTP

/// The emulator without a socket: its clock, and requests answered by a direct call, for the in-process
/// flow tests (their transport calls `respond`, so no port, thread or timeout is involved).
extension Emulator {
    /// Now on the emulator's clock: the configured clock (else the system's) plus every `advanceClock(by:)`.
    public func now() -> Double {
        (configuration.clock?() ?? nowSeconds()) + state.withLock { $0.clockOffset }
    }

    /// Moves the emulator's clock on: tokens, codes and device codes age by `seconds` at once.
    public func advanceClock(by seconds: Double) {
        state.withLock { $0.clockOffset += seconds }
    }

    /// Answers one request exactly as the HTTP server would (routing, faults, recording), without a socket.
    /// `url` is absolute or a path; header names may have any case.
    public func respond(
        method: String, url: String, headers: [(name: String, value: String)], body: [UInt8]
    ) -> (status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        var target = url
        if target.hasPrefix("http://") || target.hasPrefix("https://") {
            let rest = target.drop { $0 != ":" }.dropFirst(3)
            target = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
        }
        var path = target
        var query: [String: String] = [:]
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = FormEncoding.decode(target[target.index(after: mark)...])
        }
        var fields: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            fields[key] = fields[key].map { $0 + ", " + value } ?? value
        }
        let response = handle(HTTPRequest(method: method, path: path, query: query, headers: fields, body: body))
        return (response.status, response.headers.map { (name: $0.0, value: $0.1) }, response.body)
    }
}
