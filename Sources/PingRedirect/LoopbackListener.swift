import PingBase
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// A one-shot HTTP listener on 127.0.0.1 for the authorization redirect
/// ([RFC 8252 §7.3, §8.3](https://www.rfc-editor.org/rfc/rfc8252#section-7.3)).
///
/// Bound to the loopback address only, port 0 (ephemeral) unless fixed. Connections are served
/// together with `poll()`, each with its own read deadline, so an idle browser pre-connection, a slow
/// client or a flood cannot block the real redirect: a connection must send its first byte within
/// `firstByteDeadline`, and when the table is full the connection that has sent the least (the oldest
/// of those) makes room for the new one, so another local user opening idle connections as fast as
/// they can never keeps the browser out. Closed as soon as one request finishes the wait.
public final class LoopbackListener {
    public let port: UInt16
    private var socket: Int32

    /// How long one connection may take to send its request head.
    public var connectionDeadline: Double = 5
    /// How long a connection may stay silent before its first byte (browsers send at once).
    public var firstByteDeadline: Double = 3
    /// Connections served at once; past it, the one that has sent the least is dropped for a new one.
    public var maximumConnections = 256

    /// Binds `127.0.0.1:port` (`[::1]:port` with `ipv6`; 0: any free port) and starts listening; when
    /// the port cannot be had, the failure carries the system's reason (in use, not permitted), for the
    /// flow to word.
    public init(port: UInt16, ipv6: Bool = false) throws(LoopbackListenerFailure) {
        let descriptor = Glibc.socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .socket(reason: Self.errnoText()) }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        guard Self.bind(descriptor, port: port, ipv6: ipv6), listen(descriptor, SOMAXCONN) == 0 else {
            let reason = Self.errnoText()
            close(descriptor)
            throw .bind(port: port, reason: reason)
        }
        Self.setNonBlocking(descriptor)
        self.socket = descriptor
        self.port = Self.boundPort(descriptor, ipv6: ipv6)
    }

    /// Binds the loopback address, never the wildcard one.
    private static func bind(_ descriptor: Int32, port: UInt16, ipv6: Bool) -> Bool {
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_loopback  // ::1
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            } == 0
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1, never INADDR_ANY
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// The port the kernel gave (the one asked for, or an ephemeral one for 0).
    private static func boundPort(_ descriptor: Int32, ipv6: Bool) -> UInt16 {
        var actual = sockaddr_in6()
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        // sin_port and sin6_port sit at the same offset.
        return UInt16(bigEndian: actual.sin6_port)
    }

    /// The connection of the request that ended `serve` with `LoopbackReply.hold`, until taken.
    public private(set) var held: HeldConnection?

    deinit { shutdown() }

    /// Closes the listening socket; the port stops accepting at once.
    public func shutdown() {
        if socket >= 0 {
            close(socket)
            socket = -1
        }
    }

    private struct Connection {
        var descriptor: Int32
        var buffer: [UInt8] = []
        var acceptedAt: Double
        /// The client's address and port, to look its owner up in the kernel's socket table.
        var client: PeerCredentials.Endpoint?
    }

    /// When `connection` runs out of time: soon while it has sent nothing, later once it talks.
    private func expiry(of connection: Connection) -> Double {
        connection.acceptedAt + (connection.buffer.isEmpty ? min(firstByteDeadline, connectionDeadline) : connectionDeadline)
    }

    /// Something to wait on beside the connections (standard input, for a pasted address).
    public struct SideInput {
        /// The descriptor to poll now, or nil while it must not be read.
        public var descriptor: () -> Int32?
        /// Called when the descriptor is readable (or closed); returns true when that ends the wait.
        public var readable: () -> Bool

        public init(descriptor: @escaping () -> Int32?, readable: @escaping () -> Bool) {
            self.descriptor = descriptor
            self.readable = readable
        }
    }

    /// Serves requests until `handle` returns a reply that finishes, `side` says it is done, or `deadline`
    /// (monotonic seconds on `clock`) passes. `tick` runs about four times a second on that clock (to
    /// notice a browser launcher that failed). Returns false on timeout. The listener is closed before
    /// this returns.
    public func serve(
        until deadline: Double, clock: WaitClock = .system, tick: () -> Void = {}, side: SideInput? = nil,
        handle: (LoopbackRequest) -> LoopbackReply
    ) -> Bool {
        var connections: [Connection] = []
        defer {
            for connection in connections { close(connection.descriptor) }
            shutdown()
        }
        while true {
            let now = clock.now()
            if now >= deadline { return false }
            tick()
            dropExpired(&connections, now: now)
            var pollSet = connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            pollSet.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0))
            let sideDescriptor = side?.descriptor()
            if let sideDescriptor { pollSet.append(pollfd(fd: sideDescriptor, events: Int16(POLLIN), revents: 0)) }
            let ready = clock.poll(&pollSet, max(0, min(0.25, deadline - now)))
            if ready < 0 && errno != EINTR { return false }
            if ready <= 0 { continue }

            let polled = connections.count
            let sideReadable = sideDescriptor != nil && pollSet.last!.revents != 0
            let acceptable = pollSet[polled].revents != 0
            let finished = serveReadable(pollSet.prefix(polled), in: &connections, handle: handle)
            connections.removeAll { $0.descriptor < 0 }
            if finished { return true }
            // After the reads: evicting changes the indices the loop above used.
            if acceptable { acceptAll(into: &connections, at: clock.now()) }
            if sideReadable, let side, side.readable() { return true }
        }
    }

    /// Drops the connections whose time is up (a 408 for one that had started its request).
    private func dropExpired(_ connections: inout [Connection], now: Double) {
        connections.removeAll { connection in
            guard expiry(of: connection) <= now else { return false }
            // Bytes that arrived while this process waited for the CPU are not silence.
            if connection.buffer.isEmpty, now < connection.acceptedAt + connectionDeadline,
                Self.hasPendingBytes(connection.descriptor)
            {
                return false
            }
            // A connection that never spoke gets no answer: under a flood, replying would only cost time.
            if !connection.buffer.isEmpty {
                Self.reply(connection.descriptor, status: 408, html: RedirectPage.ignored("The request took too long."))
            }
            close(connection.descriptor)
            return true
        }
    }

    /// Reads the connections `polled` says are readable, in order, and answers each whole request with
    /// `handle`'s reply, until one finishes the wait (or holds its connection). A connection that is
    /// answered or closed gets descriptor -1, for the caller to remove. Returns whether the wait is over.
    private func serveReadable(
        _ polled: ArraySlice<pollfd>, in connections: inout [Connection], handle: (LoopbackRequest) -> LoopbackReply
    ) -> Bool {
        var finished = false
        for (index, entry) in polled.enumerated() {
            guard entry.revents != 0, !finished else { continue }
            switch read(&connections[index]) {
            case .waiting: continue
            case .closed: break
            case .request(.incomplete): continue
            case .request(.invalid(let status, let reason)):
                Self.reply(connections[index].descriptor, status: status, html: RedirectPage.ignored("Bad request: \(reason)."))
            case .request(.complete(var request)):
                request.connection = PeerCredentials.Connection(client: connections[index].client, listenerPort: port)
                let reply = handle(request)
                finished = reply.finishes || reply.holds
                if reply.holds {
                    held = HeldConnection(descriptor: connections[index].descriptor)
                    connections[index].descriptor = -1
                    continue
                }
                Self.reply(connections[index].descriptor, status: reply.status, html: reply.html, location: reply.location)
                // The page that ends the wait must reach the browser: closing with unread bytes
                // would send a reset that can overtake it, so wait briefly for the client to close.
                if finished { Self.drain(connections[index].descriptor, for: 0.5) }
            }
            close(connections[index].descriptor)
            connections[index].descriptor = -1
        }
        return finished
    }

    /// Accepts what the kernel has queued (a bounded batch, so reading is never starved). With the
    /// table full, the connection that has sent the fewest bytes, the oldest among equals, is closed to
    /// make room: an idle flood only ever pushes out its own idle connections, while the browser's,
    /// which sends its request at once, is answered before it could become the least active.
    private func acceptAll(into connections: inout [Connection], at now: Double) {
        for _ in 0..<maximumConnections {
            let descriptor = accept(socket, nil, nil)
            if descriptor < 0 { return }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            Self.setNonBlocking(descriptor)
            if connections.count >= maximumConnections, let victim = Self.leastActive(connections) {
                close(connections[victim].descriptor)
                connections.remove(at: victim)
            }
            connections.append(
                Connection(descriptor: descriptor, acceptedAt: now, client: PeerCredentials.client(of: descriptor))
            )
        }
    }

    /// The index of the connection that has sent the least, the oldest of those.
    private static func leastActive(_ connections: [Connection]) -> Int? {
        connections.indices.min { left, right in
            let (a, b) = (connections[left], connections[right])
            return a.buffer.count != b.buffer.count ? a.buffer.count < b.buffer.count : a.acceptedAt < b.acceptedAt
        }
    }

    private enum ReadOutcome {
        case waiting
        case closed
        case request(LoopbackRequest.ParseResult)
    }

    private func read(_ connection: inout Connection) -> ReadOutcome {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = recv(connection.descriptor, &chunk, chunk.count, 0)
        if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .waiting : .closed }
        if count == 0 { return .closed }
        connection.buffer.append(contentsOf: chunk[..<count])
        return .request(LoopbackRequest.parse(connection.buffer))
    }

    /// Whether the client has sent something not read yet.
    private static func hasPendingBytes(_ descriptor: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }

    private static func setNonBlocking(_ descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
    }

    package static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// Why the loopback listener could not be opened, with the system's reason; the flow that opens it
/// words it for its purpose (a sign-in's `--port`, a sign-off URL's fixed port).
public enum LoopbackListenerFailure: Error, Sendable, Equatable {
    /// No socket could be created (out of descriptors, say).
    case socket(reason: String)
    /// `127.0.0.1:port` could not be bound or listened on (in use, not permitted).
    case bind(port: UInt16, reason: String)

    public var rule: Rule {
        switch self {
        case .socket: .loopbackListener
        case .bind: .loopbackPortBusy
        }
    }
}
