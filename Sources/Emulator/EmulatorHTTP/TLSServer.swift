import CEmulatorTLS

#if canImport(Glibc)
    import Glibc
#endif

/// An OpenSSL server context (libssl), shared by every connection of one port.
package final class TLSServerContext: @unchecked Sendable {
    // SSL_CTX is reference counted and safe to share across threads once configured.
    let context: OpaquePointer

    /// `requireClientCertificate`: the handshake fails without a client certificate (any certificate
    /// passes the handshake; the endpoints judge it).
    package init(certificateFile: String, keyFile: String, requireClientCertificate: Bool) throws {
        guard let context = pingemu_tls_server_context(certificateFile, keyFile, requireClientCertificate ? 1 : 0)
        else { throw HTTPServerError.tls("cannot load \(certificateFile) and \(keyFile)") }
        self.context = context
    }

    deinit { SSL_CTX_free(context) }
}

/// One accepted connection, plain or TLS: what `HTTPServer` reads and writes through.
enum ServerConnection {
    case plain(Int32)
    case tls(OpaquePointer)

    /// The connection on `descriptor`, after the TLS handshake when `context` is given; nil when the
    /// handshake failed (no client certificate, a client that gave up).
    static func accept(_ descriptor: Int32, context: TLSServerContext?) -> ServerConnection? {
        guard let context else { return .plain(descriptor) }
        guard let connection = pingemu_tls_accept(context.context, descriptor) else { return nil }
        return .tls(connection)
    }

    /// Like recv(2): the count read, 0 at the end, -1 on an error.
    func receive(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        switch self {
        case .plain(let descriptor): return recv(descriptor, buffer.baseAddress, buffer.count, 0)
        case .tls(let connection):
            let count = SSL_read(connection, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max))))
            return count > 0 ? Int(count) : (SSL_get_error(connection, count) == SSL_ERROR_ZERO_RETURN ? 0 : -1)
        }
    }

    /// Like send(2) with MSG_NOSIGNAL.
    func send(_ buffer: UnsafeRawBufferPointer) -> Int {
        switch self {
        case .plain(let descriptor): return Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
        case .tls(let connection):
            let count = SSL_write(connection, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max))))
            return count > 0 ? Int(count) : -1
        }
    }

    /// The DER certificate the client presented in the handshake.
    var peerCertificate: [UInt8]? {
        guard case .tls(let connection) = self else { return nil }
        var length: Int32 = 0
        guard let der = pingemu_tls_peer_certificate(connection, &length) else { return nil }
        defer { free(der) }
        return Array(UnsafeBufferPointer(start: der, count: Int(length)))
    }

    /// Sends TLS's close_notify and frees the session (the caller closes the descriptor).
    func finish() {
        if case .tls(let connection) = self { pingemu_tls_close(connection) }
    }
}

/// RFC 8705 §2.1: a `tls_client_auth` certificate must chain to the trusted CA and be valid now.
package enum ClientCertificateCheck {
    /// nil when the certificate verifies against `caFile`, else OpenSSL's reason; and its subject DN.
    package static func verify(_ der: [UInt8], caFile: String) -> (failure: String?, subject: String) {
        var subject = [CChar](repeating: 0, count: 1024)
        let result = der.withUnsafeBufferPointer { pingemu_tls_verify($0.baseAddress, Int32($0.count), caFile, &subject, 1024) }
        let name = String(decoding: subject.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard result != 0 else { return (nil, name) }
        return (result < 0 ? "not a certificate" : String(cString: pingemu_tls_verify_error(result)), name)
    }
}
