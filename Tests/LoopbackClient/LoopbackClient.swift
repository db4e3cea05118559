#if canImport(Glibc)
    import Glibc
#endif

// A misbehaving HTTP client for the loopback listener's tests: raw bytes to 127.0.0.1, shared by the core
// tier (the listener in-process) and the end-to-end tier (the built binary's listener).

/// Sends raw bytes to 127.0.0.1:port; nil when the connection is refused, else what came back.
public func rawRequest(port: UInt16, _ bytes: [UInt8], readTimeoutMilliseconds: Int32 = 3000) -> String? {
    let descriptor = openConnection(port: port)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var response: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, readTimeoutMilliseconds) > 0 else { break }
        let count = recv(descriptor, &chunk, chunk.count, 0)
        if count <= 0 { break }
        response.append(contentsOf: chunk[..<count])
    }
    return String(decoding: response, as: UTF8.self)
}

/// Opens a connection to 127.0.0.1:port and returns its descriptor (or -1), for clients that misbehave
/// slowly. `waiting: false` only starts it, without waiting to be accepted, as a flooding client does.
public func openConnection(port: UInt16, waiting: Bool = true) -> Int32 {
    let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (waiting ? 0 : Int32(SOCK_NONBLOCK.rawValue))
    let descriptor = socket(AF_INET, flags, 0)
    guard descriptor >= 0 else { return -1 }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    if connected != 0 && (waiting || errno != EINPROGRESS) {
        close(descriptor)
        return -1
    }
    return descriptor
}
