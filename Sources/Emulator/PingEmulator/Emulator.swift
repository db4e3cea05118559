import EmulatorHTTP
import Foundation

// MARK: - Emulator

/// A PingOne / PingFederate / PingAM look-alike authorization server on a loopback port.
///
/// Control endpoints (for the executable / demo; not recorded in `requests`):
/// - `GET /__emulator/requests`, `DELETE /__emulator/requests` (also clears the arrival counts)
/// - `GET /__emulator/arrivals` (`{"token": N, …}`: requests per endpoint counted on arrival)
/// - `GET|PUT /__emulator/faults` (JSON `Faults`)
/// - `PUT /__emulator/settings` with `{"accessTokenLifetime": N}`
/// - `POST /__emulator/expire-access-tokens`
/// - `POST /__emulator/rotate-keys` (a new signing key; the old one stays published)
/// - `POST /__emulator/introspect` (form `token=`, no client auth)
/// - `GET /__emulator/tokens` (`{"access":[…],"refresh":[…]}`)
/// - `POST /__emulator/device/approve`, `POST /__emulator/device/deny` (form `user_code=`)
///
/// All mutable state lives in one `Locked`; everything else is immutable, hence `Sendable`.
public final class Emulator: Sendable {
    public let configuration: EmulatorConfiguration
    public let port: UInt16
    /// `http://127.0.0.1:<port>`
    public let baseURL: String
    /// The exact issuer string.
    public let issuer: String

    private let server: HTTPServer
    /// The mutual-TLS port (RFC 8705 §5), with `configuration.tls`.
    private let mtlsServer: HTTPServer?
    /// `https://127.0.0.1:<mTLS port>` when TLS is configured.
    public let mtlsBaseURL: String?
    let keyRing: Locked<KeyRing>
    /// The signing keys now (the current one signs; rotated ones still verify and stay published).
    var key: KeyRing { keyRing.withLock { $0 } }
    let state: Locked<EmulatorState>
    /// Endpoint kind → path (the single source for routing and discovery).
    let paths: [EndpointKind: String]
    let routes: [String: EndpointKind]
    /// The product this emulator plays (its URLs and where it departs from the specifications).
    let vendor: any VendorLayout
    /// PingAM: the other form of the realm's OAuth 2.0 base (`/am/oauth2/alpha` beside
    /// `/am/oauth2/realms/root/realms/alpha`), answered as the issuer's form.
    let oauthAlias: (alias: String, canonical: String)?
    /// The key that signs journeys' `authId`s (HS256).
    let journeyKey = Crypto.randomBytes(32)

    /// Binds the listening socket now; call `start()` to begin answering.
    public init(configuration: EmulatorConfiguration = .init()) throws {
        guard Crypto.initialize() else { throw EmulatorError.sodiumUnavailable }
        guard !configuration.users.isEmpty else { throw EmulatorError.noUsers }
        self.configuration = configuration
        if let tls = configuration.tls {
            server = try HTTPServer(
                port: configuration.port, readTimeout: configuration.readTimeout,
                tls: TLSServerContext(certificateFile: tls.certificateFile, keyFile: tls.keyFile, requireClientCertificate: false))
            let mtls = try HTTPServer(
                port: 0, readTimeout: configuration.readTimeout,
                tls: TLSServerContext(certificateFile: tls.certificateFile, keyFile: tls.keyFile, requireClientCertificate: true))
            mtlsServer = mtls
            mtlsBaseURL = "https://127.0.0.1:\(mtls.port)"
            baseURL = "https://127.0.0.1:\(server.port)"
        } else {
            server = try HTTPServer(port: configuration.port, readTimeout: configuration.readTimeout)
            mtlsServer = nil
            mtlsBaseURL = nil
            baseURL = "http://127.0.0.1:\(server.port)"
        }
        port = server.port
        keyRing = Locked(KeyRing(current: SigningKey(algorithm: configuration.signingAlgorithm)))
        state = Locked(EmulatorState(accessTokenLifetime: configuration.accessTokenLifetime))

        let vendor = configuration.layout.vendor
        self.vendor = vendor
        let root = vendor.issuerPath(configuration)
        issuer = baseURL + root
        let paths = vendor.endpointPaths(issuerPath: root, configuration)
        oauthAlias = vendor.issuerAlias(configuration).map { (alias: $0, canonical: root) }
        var all = paths
        all[.deviceVerification] = "/device"
        all[.resource] = "/api/resource"
        self.paths = all
        routes = Dictionary(uniqueKeysWithValues: all.map { ($0.value, $0.key) })
    }

    /// Starts the accept loop on a background thread.
    public func start() {
        server.start { [self] request in handle(request) }
        mtlsServer?.start { [self] request in handle(request) }
    }

    /// Closes the listening socket; in-flight requests still complete.
    public func stop() {
        server.stop()
        mtlsServer?.stop()
    }

    /// Absolute URL of an endpoint (nil if the layout has none).
    public func url(for kind: EndpointKind) -> String? { paths[kind].map { baseURL + $0 } }

    // MARK: Inspection and control

    public var requests: [RecordedRequest] {
        state.withLock { $0.requests }.sorted { $0.sequence < $1.sequence }
    }

    public func requests(to kind: EndpointKind) -> [RecordedRequest] { requests.filter { $0.kind == kind } }

    /// Each authorization request's parameters as this emulator received them: pushed (RFC 9126, the
    /// PingOne layout's default) or in the browser's URL; pushed ones first.
    public var authorizationRequestParameters: [[String: String]] {
        requests(to: .par).map(\.form) + requests(to: .authorize).map(\.query).filter { $0["request_uri"] == nil }
    }

    public func clearRequests() {
        state.withLock {
            $0.requests.removeAll()
            $0.arrivals.removeAll()
        }
    }

    /// Requests to `kind` that have arrived since the last `clearRequests`, answered or not.
    public func arrivals(to kind: EndpointKind) -> Int { state.withLock { $0.arrivals[kind] ?? 0 } }

    /// Requests that have arrived so far, answered or not (a delayed request counts from its arrival;
    /// `requests` lists it only once answered).
    public var arrivedRequestCount: Int { state.withLock { $0.nextSequence } }

    public var faults: Faults {
        get { state.withLock { $0.faults } }
        set { state.withLock { $0.faults = newValue } }
    }

    public func setFaults(_ faults: Faults) { self.faults = faults }

    /// Lifetime in seconds of access tokens issued from now on.
    public var accessTokenLifetime: Int {
        get { state.withLock { $0.accessTokenLifetime } }
        set { state.withLock { $0.accessTokenLifetime = newValue } }
    }

    /// Every access token issued, oldest first.
    public var issuedAccessTokens: [String] { state.withLock { $0.accessOrder } }
    /// Every refresh token issued, oldest first.
    public var issuedRefreshTokens: [String] { state.withLock { $0.refreshOrder } }
    /// Session ids (`sid`) ended through the end-session endpoint, in order.
    public var endedSessions: [String] { state.withLock { $0.endedSessions } }

    public func isActive(token: String) -> Bool { introspect(token).active }

    public func introspect(_ token: String) -> IntrospectionResult {
        let now = self.now()
        guard let record = state.withLock({ $0.tokens[token] }),
            !record.revoked, !record.used, now < record.expiresAt
        else {
            return IntrospectionResult(active: false)
        }
        return IntrospectionResult(
            active: true, scope: record.scopes.joined(separator: " "),
            clientID: record.grant.clientID, sub: record.grant.user.sub,
            exp: Int(record.expiresAt), iat: Int(record.issuedAt),
            tokenType: record.isRefresh ? "refresh_token" : "Bearer",
            audience: record.isRefresh ? nil : record.audience ?? accessTokenAudience(scopes: record.scopes))
    }

    /// Marks every issued access token as expired now (refresh tokens stay valid).
    public func expireAccessTokens() {
        let now = self.now()
        state.withLock { s in
            for token in s.accessOrder { s.tokens[token]?.expiresAt = now - 1 }
        }
    }

    // MARK: Request dispatch

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let arrived = now()
        // The protected resource answers below its path too (`/api/resource/v1/me`), as an API would.
        let kind =
            routes[routedPath(request.path)]
            ?? (request.path.hasPrefix("/__emulator/")
                ? .control
                : request.path.hasPrefix("/api/resource/") ? .resource : isBoundDevicesPath(request.path) ? .boundDevices : .other)
        let sequence = state.withLock { s -> Int in
            s.nextSequence += 1
            if kind != .control { s.arrivals[kind, default: 0] += 1 }
            return s.nextSequence
        }
        let response: HTTPResponse
        if kind == .control {
            response = handleControl(request)
        } else {
            let (delay, canned) = state.withLock { s -> (Double?, CannedResponse?) in
                (s.faults.delays[kind], Self.takeCannedResponse(for: kind, from: &s.faults))
            }
            if let delay, delay > 0 { Thread.sleep(forTimeInterval: delay) }
            let certificate = request.clientCertificate.map(Self.thumbprint(ofCertificate:))
            response = canned.map(Self.render) ?? Self.$presentedCertificate.withValue(certificate) { route(kind, request) }
        }
        let form = request.form
        let record = RecordedRequest(
            sequence: sequence, method: request.method, path: request.path,
            query: request.query, form: form, headers: request.headers, kind: kind,
            grantType: kind == .token ? form["grant_type"] : nil,
            status: response.status, timestamp: arrived,
            jsonBody: (request.header("content-type") ?? "").lowercased().hasPrefix("application/json")
                ? String(decoding: request.body, as: UTF8.self) : nil)
        if kind != .control { state.withLock { $0.requests.append(record) } }
        configuration.onRequest?(record)
        return response
    }

    /// Returns the canned response for `kind`, counting down its `times` budget.
    private static func takeCannedResponse(for kind: EndpointKind, from faults: inout Faults) -> CannedResponse? {
        guard var canned = faults.responseOverrides[kind] else { return nil }
        if let times = canned.times {
            if times <= 0 {
                faults.responseOverrides[kind] = nil
                return nil
            }
            canned.times = times - 1
            faults.responseOverrides[kind] = times == 1 ? nil : canned
        }
        return canned
    }

    private static func render(_ canned: CannedResponse) -> HTTPResponse {
        var headers: [(String, String)] = []
        if let type = canned.contentType { headers.append(("Content-Type", type)) }
        for (name, value) in (canned.headers ?? [:]).sorted(by: { $0.key < $1.key }) { headers.append((name, value)) }
        let body = String(repeating: canned.body, count: max(1, canned.bodyRepeat ?? 1))
        return HTTPResponse(status: canned.status, headers: headers, body: Array(body.utf8))
    }

    private func route(_ kind: EndpointKind, _ request: HTTPRequest) -> HTTPResponse {
        switch kind {
        case .discovery where !configuration.servesDiscovery:
            return .html("<html><body>Not Found</body></html>", status: 404)
        case .discovery, .jwks:
            guard request.method == "GET" || request.method == "HEAD" else { return methodNotAllowed() }
            return .json(kind == .jwks ? jwksDocument() : .object(discoveryDocument()))
        case .authorize: return authorize(request)
        case .token: return token(request)
        case .userinfo: return userinfo(request)
        case .revoke: return revoke(request)
        case .introspect: return introspectEndpoint(request)
        case .endSession: return endSession(request)
        case .deviceAuthorization: return deviceAuthorization(request)
        case .deviceVerification: return deviceVerification(request)
        case .par: return pushedAuthorization(request)
        case .resource: return resource(request)
        case .serverInfo: return serverInfo(request)
        case .authenticate: return authenticate(request)
        case .sessions: return sessions(request)
        case .boundDevices: return boundDevicesEndpoint(request)
        case .other, .control:
            return .json(
                ["error": "not_found", "error_description": .string("no such endpoint: \(request.path)")],
                status: 404)
        }
    }

    /// The path routes go by: PingAM's other realm form mapped onto the issuer's, `%2A` as `*`.
    private func routedPath(_ path: String) -> String {
        if path == "/am/json/serverinfo/%2A" { return "/am/json/serverinfo/*" }
        if let (alias, canonical) = oauthAlias, path.hasPrefix(alias + "/") {
            return canonical + path.dropFirst(alias.count)
        }
        return path
    }

    func methodNotAllowed() -> HTTPResponse {
        .oauthError("invalid_request", "method not allowed", status: 405)
    }

    func client(_ id: String?) -> RegisteredClient? {
        guard let id else { return nil }
        return configuration.clients.first { $0.clientID == id }
    }
}
