#if canImport(Glibc)
    import Glibc
#endif

/// Who is on the other end of a loopback TCP connection. Any local user can connect to the listener,
/// and anyone can read the browser's command line (and so the URL, with its `state`); the kernel's
/// socket table says which user owns the connecting socket, which a stranger cannot fake.
///
/// Linux lists every TCP socket with its owner's uid in `/proc/net/tcp`; the client's socket is the
/// one whose local port is our peer's port and whose remote end is our listening port.
public enum PeerCredentials {
    /// The uid owning the socket connected from `127.0.0.1:remotePort` to our `127.0.0.1:listenerPort`,
    /// or nil when the table cannot be read or has no such socket.
    public static func userID(remotePort: UInt16, listenerPort: UInt16, table: String = "/proc/net/tcp") -> UInt32? {
        // A procfs file (its size reads as 0, and /proc/net is a link to /proc/self/net): read to the end.
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
        return userID(inTable: String(decoding: bytes, as: UTF8.self), remotePort: remotePort, listenerPort: listenerPort)
    }

    /// The parsing half of `userID(remotePort:listenerPort:)`, for tests.
    static func userID(inTable text: String, remotePort: UInt16, listenerPort: UInt16) -> UInt32? {
        let local = "0100007F:" + hex(remotePort)
        let remote = "0100007F:" + hex(listenerPort)
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, fields[1] == local, fields[2] == remote else { continue }
            return UInt32(fields[7])
        }
        return nil
    }

    /// Whether a request may act for this user: it comes from this user's program, or root's (root can
    /// read our memory anyway). Unknown peers are the caller's decision.
    public static func isTrusted(_ userID: UInt32) -> Bool {
        userID == getuid() || userID == 0
    }

    static func hex(_ port: UInt16) -> String {
        let digits = String(port, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// The remote port of a connected socket.
    static func remotePort(of descriptor: Int32) -> UInt16? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        }
        guard result == 0, address.sin_family == sa_family_t(AF_INET) else { return nil }
        return UInt16(bigEndian: address.sin_port)
    }
}
