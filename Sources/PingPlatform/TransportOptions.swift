/// Settings shared by every request a command makes.
public struct TransportOptions: Sendable {
    /// A PEM file of CA certificates to trust instead of the system store.
    public var caFile: String?
    /// Seconds allowed to connect.
    public var connectTimeout: Int = 10
    /// Seconds allowed for the whole request.
    public var totalTimeout: Int = 30
    /// Largest response body accepted.
    public var maxResponseBytes: Int = 1 << 20
    /// A profile's client certificate and key pins.
    public var clientTLS = ClientTLS()
    /// Called with one line per request and response (method, URL without query, status), for `--verbose`.
    public var trace: (@Sendable (String) -> Void)?

    public init() {}
}

/// A profile's own TLS settings beyond its CA: the client certificate and its private key (PEM files,
/// absolute paths) for mutual TLS (RFC 8705), and pinned server keys, every TLS connection of the
/// profile having to present one of them.
public struct ClientTLS: Sendable, Equatable {
    public var certificateFile: String?
    public var keyFile: String?
    public var pins: [KeyPin]

    public init(certificateFile: String? = nil, keyFile: String? = nil, pins: [KeyPin] = []) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.pins = pins
    }
}
