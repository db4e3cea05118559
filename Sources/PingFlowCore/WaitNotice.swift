import PingBase
import PingHTTP
import PingTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// On a terminal, a request that takes more than a second says what it waits for and for how long, on
/// one line of stderr rewritten in place and erased when the answer comes: a slow provider is no longer
/// a blank terminal. Never on stdout, never when stderr is not a terminal.
package struct WaitNoticeTransport: HTTPTransport {
    package let base: any HTTPTransport
    package let console: Console

    package func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        let notice = WaitNotice(console: console, what: Self.describe(request.url))
        notice.start()
        defer { notice.stop() }
        return try base.send(request)
    }

    /// The URL without its query or fragment (a query may hold a code or a hint).
    package static func describe(_ url: String) -> String {
        displaySafe(String(url.prefix { $0 != "?" && $0 != "#" }), limit: 120)
    }
}

/// The thread that writes the notice: it wakes once a second until `stop` writes to its pipe.
package final class WaitNotice: @unchecked Sendable {
    private let console: Console
    private let what: String
    private var ends: [Int32] = [-1, -1]
    private var thread = pthread_t()
    private var started = false

    package init(console: Console, what: String) {
        self.console = console
        self.what = what
    }

    package func start() {
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let context = Unmanaged.passRetained(self).toOpaque()
        if pthread_create(&thread, nil, { WaitNotice.run($0) }, context) == 0 {
            started = true
        } else {
            Unmanaged<WaitNotice>.fromOpaque(context).release()
            for end in ends { close(end) }
        }
    }

    private static func run(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        let notice = Unmanaged<WaitNotice>.fromOpaque(context!).takeRetainedValue()
        var seconds = 0
        while true {
            var descriptor = pollfd(fd: notice.ends[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 1000)
            if ready < 0 && errno == EINTR { continue }
            if ready != 0 { break }
            seconds += 1
            notice.console.writeErr("\r\u{1B}[KWaiting for \(notice.what) (\(seconds) s)…")
        }
        if seconds > 0 { notice.console.writeErr("\r\u{1B}[K") }
        return nil
    }

    /// Ends the thread (erasing its line) before the caller writes anything more.
    package func stop() {
        guard started else { return }
        var byte: UInt8 = 1
        _ = write(ends[1], &byte, 1)
        pthread_join(thread, nil)
        for end in ends { close(end) }
    }
}
