import Foundation
import PingEmulator

#if canImport(Glibc)
    import Glibc
#endif

/// A listening socket on 127.0.0.1 and an ephemeral port; `start` runs a thread that accepts
/// connections and hands each (close-on-exec) to `accepted`, until `stop`. The test servers (`MaliciousProvider`,
/// `GuardedServer`, the proxy of `TLSFront`) share it.
final class LoopbackAcceptor: Sendable {
    let port: UInt16
    private let listener: Int32
    private let stopped = Locked(false)

    /// Binds and listens; connections wait in the backlog until `start`.
    init() throws {
        let (descriptor, port) = Self.listen()
        guard descriptor >= 0 else { throw POSIXError(.EADDRINUSE) }
        listener = descriptor
        self.port = port
    }

    /// `accepted` runs on the accepting thread: start a thread there for anything slow.
    func start(accepted: @escaping @Sendable (Int32) -> Void) {
        let (stopped, descriptor) = (self.stopped, listener)
        Thread {
            while !stopped.withLock({ $0 }) {
                let connection = accept(descriptor, nil, nil)
                if connection < 0 { return }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                accepted(connection)
            }
        }.start()
    }

    func stop() {
        stopped.withLock { $0 = true }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit { close(listener) }

    /// A listening socket on 127.0.0.1 and an ephemeral port (descriptor -1 on failure).
    static func listen() -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(descriptor, 64) == 0 else {
            close(descriptor)
            return (-1, 0)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }
}
