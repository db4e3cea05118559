import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The software authenticator on a Unix stream socket, one connection at a time, 64-byte CTAPHID reports
/// each way: what pingcli's test builds reach through `PINGCLI_TEST_FIDO_SOCKET` (docs/testing.md). Each
/// connection is one opening of the key by libfido2 (a fresh CTAPHID state, the same credentials and PIN
/// counters: opening a key is not unplugging it).
public final class SoftwareKeyServer: @unchecked Sendable {
    public let path: String
    public let authenticator: SoftwareAuthenticator
    private let listener: Int32
    private let thread: Thread
    private let stopped = NSLock()
    private var isStopped = false

    /// Listens at `path` (removed first if it is there) and serves until `stop()`.
    public init(path: String, authenticator: SoftwareAuthenticator) throws {
        self.path = path
        self.authenticator = authenticator
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard fd >= 0, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw POSIXError(.EINVAL) }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in buffer.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        let authenticator = self.authenticator
        thread = Thread {
            while true {
                let connection = accept(fd, nil, nil)
                if connection < 0 {
                    if errno == EINTR { continue }
                    // Closed here, not in stop(): its number reused by another server while this thread
                    // still accepted on it would hand that server's clients to this authenticator.
                    close(fd)
                    return
                }
                Self.serve(connection, CTAPHIDDevice(authenticator))
                close(connection)
            }
        }
        thread.start()
    }

    public func stop() {
        let first = stopped.withLock {
            defer { isStopped = true }
            return !isStopped
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        unlink(path)
    }

    deinit { stop() }

    private static func serve(_ connection: Int32, _ device: CTAPHIDDevice) {
        var report = [UInt8](repeating: 0, count: CTAPHIDDevice.reportSize)
        while readFully(connection, &report) {
            for response in device.receive(report) where !writeFully(connection, response) { return }
        }
    }

    private static func readFully(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var done = 0
        while done < buffer.count {
            let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + done, $0.count - done, 0) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return false }
            done += got
        }
        return true
    }

    private static func writeFully(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + done, $0.count - done, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            done += sent
        }
        return true
    }
}
