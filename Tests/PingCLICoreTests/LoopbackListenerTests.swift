import LoopbackClient
import Synchronization
import Testing

@testable import PingBase
@testable import PingPlatform
@testable import PingRedirect

#if canImport(Glibc)
    import Glibc
#endif

/// Connects to 127.0.0.1:port, sends `bytes`, and returns what the server answered (until it closes).
func rawExchange(port: UInt16, _ bytes: [UInt8], readTimeout: Int32 = 5000) -> String {
    rawRequest(port: port, bytes, readTimeoutMilliseconds: readTimeout) ?? "connect failed"
}

@Suite("loopback listener over real sockets")
struct LoopbackListenerTests {
    @Test("listener-loopback-only: it binds 127.0.0.1 on an ephemeral port")
    func bindsLoopback() throws {
        let listener = try LoopbackListener(port: 0)
        #expect(listener.port != 0)
        // The kernel's view of the socket: 127.0.0.1, not 0.0.0.0.
        // /proc/net/tcp lists every socket on the machine: past 1 MiB (pingcli's own limit) when many tests
        // and their emulators run at once, so it gets a limit of its own.
        let output = String(decoding: try #require(try FileSystem.read("/proc/net/tcp", limit: 64 << 20)), as: UTF8.self)
        let hexPort = String(listener.port, radix: 16, uppercase: true)
        let padded = String(repeating: "0", count: 4 - hexPort.count) + hexPort
        #expect(output.contains("0100007F:\(padded)"))
        #expect(!output.contains("00000000:\(padded)"))
    }

    @Test("loopback-port-busy: a port another listener holds is refused as a bind failure; login words it, naming --port")
    func portBusy() throws {
        let holder = try LoopbackListener(port: 0)
        let failure = #expect(throws: LoopbackListenerFailure.self) { try LoopbackListener(port: holder.port) }
        guard case .bind(let port, let reason)? = failure else {
            Issue.record("expected a bind failure, got \(String(describing: failure))")
            return
        }
        #expect(port == holder.port)
        #expect(failure?.rule == .loopbackPortBusy)
        let worded = try #require(failure?.cliError)
        #expect(worded.rule == .loopbackPortBusy)
        #expect(worded.status == .usage)
        #expect(worded.message == "cannot listen on 127.0.0.1:\(holder.port) (\(reason)): choose another --port, or 0 for any free port")
        #expect(throws: PingCLIError.self) { try LoopbackListener.forLogin(port: holder.port) }
    }

    @Test("strays, an idle connection and junk do not stop the real callback, which closes the listener")
    func servesUntilValid() throws {
        let listener = try LoopbackListener(port: 0)
        listener.connectionDeadline = 1
        let port = listener.port
        let replies = Mutex<[String]>([])
        let client = Thread {
            // An idle connection that never sends (as browsers pre-connect).
            let idle = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(idle, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            let answers = [
                rawExchange(port: port, Array("GET /favicon.ico HTTP/1.1\r\n\r\n".utf8)),
                rawExchange(port: port, [0x16, 0x03, 0x01, 0xFF, 0x00]),
                rawExchange(port: port, Array("GET /callback?state=nope HTTP/1.1\r\n\r\n".utf8)),
                rawExchange(port: port, Array("GET /callback?state=ok HTTP/1.1\r\n\r\n".utf8)),
                rawExchange(port: port, Array("GET /callback?state=ok HTTP/1.1\r\n\r\n".utf8), readTimeout: 500),
            ]
            close(idle)
            replies.withLock { $0 = answers }
        }
        client.start()
        var handled: [String] = []
        let finished = listener.serve(until: MonotonicClock.now() + 20) { request in
            handled.append(request.path + "?" + (request.query ?? ""))
            let done = request.query == "state=ok"
            return LoopbackReply(status: done ? 200 : 404, html: done ? "done" : "no", finishes: done)
        }
        client.join()
        #expect(finished)
        #expect(handled == ["/favicon.ico?", "/callback?state=nope", "/callback?state=ok"])
        let answers = replies.withLock { $0 }
        #expect(answers[0].hasPrefix("HTTP/1.1 404"))
        #expect(answers[1].hasPrefix("HTTP/1.1 400"))
        #expect(answers[3].hasPrefix("HTTP/1.1 200") && answers[3].contains("Referrer-Policy: no-referrer"))
        // A second delivery right after the valid one is never served (it may race the close and be reset).
        #expect(!answers[4].hasPrefix("HTTP/"))
        // Once serve has returned the port is closed: a later delivery is refused outright.
        #expect(rawExchange(port: port, Array("GET /callback?state=ok HTTP/1.1\r\n\r\n".utf8), readTimeout: 500) == "connect failed")
    }

    @Test("the wait ends at its deadline when nothing valid arrives")
    func timesOut() throws {
        let listener = try LoopbackListener(port: 0)
        let started = MonotonicClock.now()
        let finished = listener.serve(until: started + 0.5) { _ in LoopbackReply(status: 404, html: "", finishes: false) }
        #expect(!finished)
        #expect(MonotonicClock.now() - started < 5)
    }

    @Test("a side input (pasted lines) is read only while offered, and can end the wait")
    func sideInput() throws {
        let listener = try LoopbackListener(port: 0)
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        defer { close(ends[0]) }
        _ = Array("first\nsecond\n".utf8).withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        let reader = LineReader(descriptor: ends[0])
        var lines: [LineReader.Event] = []
        var offered = false
        var ticks = 0
        let finished = listener.serve(
            until: MonotonicClock.now() + 20,
            tick: {
                ticks += 1
                if ticks == 3 { offered = true }
            },
            side: LoopbackListener.SideInput(
                descriptor: { offered && reader.mayRead ? reader.descriptor : nil },
                readable: {
                    #expect(offered, "never read before it is offered")
                    lines += reader.readAvailable()
                    return lines.contains(.line("second"))
                })
        ) { _ in LoopbackReply(status: 404, html: "", finishes: false) }
        #expect(finished)
        #expect(lines == [.line("first"), .line("second")])
        #expect(ticks >= 3)
    }
}

/// A minimal thread for tests that need a concurrent client.
final class Thread: @unchecked Sendable {
    private var handle = pthread_t()
    private let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        pthread_create(
            &handle, nil,
            { pointer in
                let thread = Unmanaged<Thread>.fromOpaque(pointer!).takeRetainedValue()
                thread.body()
                return nil
            }, box)
    }

    func join() { pthread_join(handle, nil) }
}
