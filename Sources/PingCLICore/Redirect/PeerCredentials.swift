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

    /// The parsing half of `userID(remotePort:listenerPort:)`: finds the line whose local and remote
    /// addresses are the client's and ours, and reads its uid column. Scans bytes, no splitting: the table
    /// has a line per socket on the machine, and the listener may look it up for every request.
    static func userID(inTable text: String, remotePort: UInt16, listenerPort: UInt16) -> UInt32? {
        let needle = Array("0100007F:\(hex(remotePort)) 0100007F:\(hex(listenerPort)) ".utf8)
        let bytes = Array(text.utf8)
        guard bytes.count >= needle.count else { return nil }
        var index = 0
        while index <= bytes.count - needle.count {
            // The local address is the second field: a space or ':' must precede it.
            if bytes[index] == needle[0], index > 0, bytes[index - 1] == 0x20,
                bytes[index..<(index + needle.count)].elementsEqual(needle)
            {
                // After the remote address: st, tx:rx, tr:when, retrnsmt, then uid.
                let end = bytes[index...].firstIndex(of: 0x0A) ?? bytes.count
                let fields = bytes[(index + needle.count)..<end].split(separator: 0x20)
                guard fields.count > 4 else { return nil }
                return UInt32(String(decoding: fields[4], as: UTF8.self))
            }
            index += 1
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
