import CPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// Who is on the other end of a loopback connection, as far as the kernel says.
public enum PeerIdentity: Sendable, Equatable {
    /// Not known: a pasted address, or no socket table to read (an unusual sandbox).
    case unknown
    /// The user id that owns the connecting socket.
    case user(UInt32)
    /// The socket table was read but holds no such connection: not to be trusted.
    case unverified

    /// Whether the request may act for this user: a program of this user or root's (root can read our
    /// memory anyway). `unknown` falls back to the other defences (state, PKCE, one-time paths).
    public var isTrusted: Bool {
        switch self {
        case .unknown: true
        case .user(let id): id == getuid() || id == 0
        case .unverified: false
        }
    }

    /// For messages: `uid N`, or why it is not known.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .user(let id): "uid \(id)"
        case .unverified: "not in the kernel's socket table"
        }
    }
}

/// Who is on the other end of a loopback TCP connection. Any local user can connect to the listener,
/// and anyone can read the browser's command line (and so the URL, with its `state`); the kernel's
/// socket table says which user owns the connecting socket, which a stranger cannot fake.
///
/// Linux lists every TCP socket with its owner's uid in `/proc/net/tcp`; the client's socket is the
/// one whose local address is our peer's address and whose remote end is our listening address.
public enum PeerCredentials {
    /// The client of a connection as `getpeername` gives it: the IPv4 address as `/proc/net/tcp` prints
    /// it (the network-order value in hex) and the port.
    public struct Endpoint: Sendable, Equatable {
        public var address: UInt32
        public var port: UInt16
        /// An IPv6 client (a listener on `[::1]`): its address as `/proc/net/tcp6` prints it (four 32-bit
        /// words in hex, each in host order); nil for IPv4.
        public var ipv6: String? = nil

        package var text: String { (ipv6 ?? hex(UInt64(address), width: 8)) + ":" + hex(UInt64(port), width: 4) }
    }

    /// One accepted connection: its client end (nil if `getpeername` failed) and our listening port.
    public struct Connection: Sendable, Equatable {
        public var client: Endpoint?
        public var listenerPort: UInt16
    }

    /// 127.0.0.1, where the listener is bound, as the table prints it.
    package static let listenerAddress = UInt32(0x7F00_0001).bigEndian

    /// Who owns the client socket of `connection`.
    public static func identity(of connection: Connection, table: String = "/proc/net/tcp") -> PeerIdentity {
        guard let client = connection.client else { return .unverified }
        guard let bytes = readTable(client.ipv6 == nil ? table : "/proc/net/tcp6") else { return .unknown }
        return identity(inTable: bytes, client: client, listenerPort: connection.listenerPort)
    }

    /// A procfs table (its size reads as 0, and /proc/net is a link to /proc/self/net), read to the end.
    package static func readTable(_ table: String) -> [UInt8]? {
        let descriptor = open(table, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < 64 << 20 {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }

    /// Who holds a listening TCP socket on `port` that keeps 127.0.0.1:`port` from us: one bound to
    /// 127.0.0.1 or to every address, in `/proc/net/tcp`, or an IPv6 one on `::` or `::ffff:127.0.0.1`
    /// (dual-stack) in `/proc/net/tcp6`. nil when the tables say nothing.
    public static func listenerOwner(port: UInt16, tables: (ipv4: String, ipv6: String) = ("/proc/net/tcp", "/proc/net/tcp6")) -> UInt32? {
        let portText = ":" + hex(UInt64(port), width: 4)
        let ipv4 = [listenerAddress, 0].map { Endpoint(address: $0, port: port).text }
        let ipv6 = ["00000000000000000000000000000000", "0000000000000000FFFF00000100007F"].map { $0 + portText }
        for (table, locals) in [(tables.ipv4, ipv4), (tables.ipv6, ipv6)] {
            if let bytes = readTable(table), let owner = listenerOwner(inTable: bytes, locals: locals) { return owner }
        }
        return nil
    }

    /// The parsing half of `listenerOwner(port:)`: a line whose local address is one of `locals`, in
    /// state 0A (LISTEN); its uid column.
    package static func listenerOwner(inTable bytes: [UInt8], locals: [String]) -> UInt32? {
        for line in bytes.split(separator: 0x0A).dropFirst() {
            // sl, local, remote, st, tx:rx, tr:when, retrnsmt, uid
            let fields = line.split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
            guard fields.count > 7, locals.contains(fields[1]), fields[3] == "0A", let id = UInt32(fields[7]) else { continue }
            return id
        }
        return nil
    }

    /// The parsing half of `identity(of:)`: finds the line whose local and remote addresses are the
    /// client's and ours (with `memmem`), and reads its uid column.
    package static func identity(inTable bytes: [UInt8], client: Endpoint, listenerPort: UInt16) -> PeerIdentity {
        // ::1 as /proc/net/tcp6 prints it, for a listener on [::1].
        let ours = Endpoint(address: listenerAddress, port: listenerPort, ipv6: client.ipv6.map { _ in "00000000000000000000000001000000" })
        let needle = Array(" \(client.text) \(ours.text) ".utf8)
        let found: Int? = bytes.withUnsafeBytes { table in
            needle.withUnsafeBytes { pattern in
                guard let table = table.baseAddress, let pattern = pattern.baseAddress,
                    let hit = memmem(table, bytes.count, pattern, needle.count)
                else { return nil }
                return table.distance(to: UnsafeRawPointer(hit))
            }
        }
        guard let found else { return .unverified }
        // After the remote address: st, tx:rx, tr:when, retrnsmt, then uid.
        let start = found + needle.count
        let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
        let fields = bytes[start..<end].split(separator: 0x20)
        guard fields.count > 4, let id = UInt32(String(decoding: fields[4], as: UTF8.self)) else { return .unverified }
        return .user(id)
    }

    package static func hex(_ value: UInt64, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// The client end of a connected socket (IPv4, or IPv6 for a listener on `[::1]`).
    package static func client(of descriptor: Int32) -> Endpoint? {
        var address = sockaddr_in6()
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        }
        guard result == 0 else { return nil }
        if address.sin6_family == sa_family_t(AF_INET6) {
            let bytes = withUnsafeBytes(of: address.sin6_addr) { Array($0) }
            // Each 32-bit word as the kernel prints it: its value in host (little-endian) order.
            let words = stride(from: 0, to: 16, by: 4).map { hex(UInt64(UInt32(littleEndianBytes: bytes[$0..<$0 + 4])), width: 8) }
            return Endpoint(address: 0, port: UInt16(bigEndian: address.sin6_port), ipv6: words.joined())
        }
        guard address.sin6_family == sa_family_t(AF_INET) else { return nil }
        return withUnsafeBytes(of: address) { raw in
            let ipv4 = raw.load(as: sockaddr_in.self)
            return Endpoint(address: ipv4.sin_addr.s_addr, port: UInt16(bigEndian: ipv4.sin_port))
        }
    }
}

extension UInt32 {
    /// Four bytes, the first the least significant.
    fileprivate init(littleEndianBytes bytes: ArraySlice<UInt8>) {
        self = bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}
