import PingBase

#if canImport(Glibc)
    import Glibc
#endif

/// What the listener's owner says about one parsed request.
public struct LoopbackReply: Sendable {
    public var status: Int
    public var html: String
    /// True when this request ends the wait (after the reply is written).
    public var finishes: Bool
    /// Sent as `Location` (with a 302 status), to bounce the browser on without putting the target in argv.
    public var location: String?
    /// True when this request ends the wait but is not answered yet: its connection is kept open
    /// (`LoopbackListener.held`) for an answer its caller writes once it knows what to say.
    public var holds = false

    public init(status: Int, html: String, finishes: Bool, location: String? = nil) {
        self.status = status
        self.html = html
        self.finishes = finishes
        self.location = location
    }

    /// Ends the wait and keeps the connection open for a later answer.
    public static let hold: LoopbackReply = {
        var reply = LoopbackReply(status: 500, html: "", finishes: true)
        reply.holds = true
        return reply
    }()
}

/// A connection whose request ended the wait and whose answer comes later (the login's page can say who
/// signed in only after the code exchange). Answered once; closed unanswered when dropped.
public final class HeldConnection {
    private var descriptor: Int32

    package init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Writes `reply`, waits briefly for the browser to close its side, and closes.
    public func answer(_ reply: LoopbackReply) {
        guard descriptor >= 0 else { return }
        LoopbackListener.reply(descriptor, status: reply.status, html: reply.html, location: reply.location)
        // The page that ends the login must reach the browser: closing with unread bytes would send a
        // reset that can overtake it, so wait briefly for the client to close.
        LoopbackListener.drain(descriptor, for: 0.5)
        close(descriptor)
        descriptor = -1
    }
}

/// The listener's side of the conversation: one complete HTTP response per connection, written without
/// trusting the client to read it.
extension LoopbackListener {
    /// Writes a complete response and gives up after a short time; the client is not trusted to read.
    /// A `location` that is not a clean header value (CR, LF, any control or non-ASCII byte) is never
    /// written: the reply becomes a 500, so no header or body can be injected through it.
    package static func reply(_ descriptor: Int32, status: Int, html: String, location: String? = nil) {
        if let location, !isSafeHeaderValue(location) {
            return reply(descriptor, status: 500, html: RedirectPage.ignored("pingcli refused to redirect to an unsafe address."))
        }
        let reason =
            switch status {
            case 200: "OK"
            case 302: "Found"
            case 400: "Bad Request"
            case 403: "Forbidden"
            case 404: "Not Found"
            case 405: "Method Not Allowed"
            case 408: "Request Timeout"
            case 431: "Request Header Fields Too Large"
            case 500: "Internal Server Error"
            default: "Error"
            }
        let body = Array(html.utf8)
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        head += "Content-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
        head += "Connection: close\r\nCache-Control: no-store\r\nReferrer-Policy: no-referrer\r\n"
        head += "X-Content-Type-Options: nosniff\r\nContent-Security-Policy: default-src 'none'; style-src 'unsafe-inline'\r\n"
        if status == 405 { head += "Allow: GET\r\n" }
        if let location { head += "Location: \(location)\r\n" }
        head += "\r\n"
        let bytes = Array(head.utf8) + body
        let giveUp = MonotonicClock.now() + 2
        var sent = 0
        while sent < bytes.count && MonotonicClock.now() < giveUp {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, 100)
            } else {
                break
            }
        }
        Glibc.shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Reads and discards until the peer closes or `seconds` pass.
    package static func drain(_ descriptor: Int32, for seconds: Double) {
        let giveUp = MonotonicClock.now() + seconds
        var scratch = [UInt8](repeating: 0, count: 4096)
        while MonotonicClock.now() < giveUp {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) >= 0 else { return }
            if entry.revents == 0 { continue }
            let count = recv(descriptor, &scratch, scratch.count, 0)
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return }
        }
    }
}
