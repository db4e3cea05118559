import Foundation
import LoopbackClient
import PingEmulator

#if canImport(Glibc)
    import Glibc
#endif

/// Puts a loopback test server behind a public-looking https name, the way pingcli meets a real
/// provider through a corporate proxy: pingcli (libcurl) sends `CONNECT idp.example.test:443` to an
/// HTTP proxy on loopback (`HTTPS_PROXY`), the proxy tunnels to `socat`, which terminates TLS with a
/// certificate for that name (trusted with `--ca-file`) and forwards the plain bytes to the server.
/// Nothing leaves the machine; pingcli sees an https issuer that is not on loopback.
final class TLSFront: @unchecked Sendable {
    static let host = "idp.example.test"
    let directory: String
    let caFile: String
    private let proxy: LoopbackAcceptor
    var proxyPort: UInt16 { proxy.port }
    private let socat: pid_t
    private let connects = Locked<[String]>([])

    /// The `CONNECT` targets the proxy was asked for.
    var connectTargets: [String] { connects.withLock { $0 } }
    var environment: [String: String] { ["HTTPS_PROXY": "http://127.0.0.1:\(proxyPort)"] }

    init(backendPort: UInt16, directory: String) throws {
        self.directory = directory
        caFile = directory + "/tls-cert.pem"
        let keyFile = directory + "/tls-key.pem"
        try Self.makeCertificate(name: Self.host, subjectAltName: "DNS:\(Self.host)", certFile: caFile, keyFile: keyFile)
        let (pid, tlsPort) = try Self.startTLSTerminator(certFile: caFile, keyFile: keyFile, backendPort: backendPort)
        socat = pid
        proxy = try LoopbackAcceptor()
        proxy.start { [self] client in Thread { [self] in tunnel(client, tlsPort: tlsPort) }.start() }
    }

    func stop() {
        proxy.stop()
        kill(socat, SIGKILL)
        var status: Int32 = 0
        waitpid(socat, &status, 0)
    }

    /// A self-signed P-256 certificate for one name, valid two days.
    static func makeCertificate(name: String, subjectAltName: String, certFile: String, keyFile: String) throws {
        let made = runProcess(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", keyFile, "-out", certFile,
                "-days", "2", "-subj", "/CN=\(name)", "-addext", "subjectAltName=\(subjectAltName)",
            ], environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
        guard made.status == 0 else { throw TLSFrontError.setup("openssl: \(made)") }
    }

    /// `socat` terminating TLS on a free loopback port with this certificate and forwarding the plain
    /// bytes to `backendPort`; its pid and port. The caller kills it.
    static func startTLSTerminator(certFile: String, keyFile: String, backendPort: UInt16) throws -> (pid: pid_t, port: UInt16) {
        // socat needs a port number: take a free one from the kernel, then hand it over (retried if lost).
        for _ in 0..<5 {
            let port = freePort()
            let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
            let (pid, error) = spawnProcess(
                "/usr/bin/socat",
                [
                    "OPENSSL-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork,cert=\(certFile),key=\(keyFile),verify=0",
                    "TCP:127.0.0.1:\(backendPort)",
                ], environment: ["PATH": "/usr/bin:/bin"], stdout: devNull, stderr: devNull)
            close(devNull)
            guard error == 0 else { throw TLSFrontError.setup("socat: \(String(cString: strerror(error)))") }
            if awaitListening(pid, port: port, looks: 200) { return (pid, port) }
        }
        throw TLSFrontError.setup("socat did not start")
    }

    static func freePort() -> UInt16 {
        let listener = LoopbackAcceptor.listen()
        close(listener.descriptor)
        return listener.port
    }

    /// Reads `CONNECT host:port HTTP/1.1` and its head, records the target, then splices bytes both ways.
    private func tunnel(_ client: Int32, tlsPort: UInt16) {
        defer { close(client) }
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)), head.count < 8192, recv(client, &byte, 1, 0) == 1 {
            head.append(byte)
        }
        // "\r\n" is one Character in Swift: split the head on it, not on "\r".
        let line = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "CONNECT" else { return }
        connects.withLock { $0.append(String(parts[1])) }
        guard parts[1] == "\(Self.host):443" else {
            _ = Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n".utf8).withUnsafeBytes {
                send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            return
        }
        let upstream = openConnection(port: tlsPort)
        guard upstream >= 0 else { return }
        defer { close(upstream) }
        _ = Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8).withUnsafeBytes {
            send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
        }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var fds = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)]
        while poll(&fds, 2, 15_000) > 0 {
            for (index, entry) in fds.enumerated() where entry.revents != 0 {
                let count = recv(entry.fd, &buffer, buffer.count, 0)
                if count <= 0 { return }
                let other = fds[1 - index].fd
                _ = buffer.withUnsafeBytes { send(other, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }
            }
        }
    }
}

/// TLS on 127.0.0.1 in front of a loopback server: a certificate for that address (trusted with
/// `--ca-file certFile`) and `socat` terminating TLS on `port`.
final class LoopbackTLS: Sendable {
    let certFile: String
    let port: UInt16
    private let socat: pid_t

    init(backendPort: UInt16, directory: String, name: String) throws {
        certFile = directory + "/\(name)-cert.pem"
        let keyFile = directory + "/\(name)-key.pem"
        try TLSFront.makeCertificate(name: "127.0.0.1", subjectAltName: "IP:127.0.0.1", certFile: certFile, keyFile: keyFile)
        (socat, port) = try TLSFront.startTLSTerminator(certFile: certFile, keyFile: keyFile, backendPort: backendPort)
    }

    func stop() {
        kill(socat, SIGKILL)
        var status: Int32 = 0
        waitpid(socat, &status, 0)
    }
}

enum TLSFrontError: Error {
    case setup(String)
}
