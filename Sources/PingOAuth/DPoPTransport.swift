import PingBase
import PingHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// The server nonces a process has been given, by origin ([RFC 9449 §8–9](https://www.rfc-editor.org/rfc/rfc9449#section-8)):
/// the newest `DPoP-Nonce` from an origin goes into every later proof sent there.
public final class DPoPNonces: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var byOrigin: [String: DPoPNonce] = [:]

    public init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }

    package func nonce(for url: String) -> DPoPNonce? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return byOrigin[Self.origin(url)]
    }

    /// Keeps the response's `DPoP-Nonce` when it passes its gate; true when it is new.
    @discardableResult
    package func remember(_ response: HTTPResponse, for url: String) -> Bool {
        guard let header = response.headers["dpop-nonce"], let nonce = DPoPNonce(header) else { return false }
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        let origin = Self.origin(url)
        defer { byOrigin[origin] = nonce }
        return byOrigin[origin] != nonce
    }

    /// `scheme://host[:port]` (RFC 6454 §4) of a URL the transport's gate lets through.
    package static func origin(_ url: String) -> String { (try? EndpointURL(url))?.origin ?? url }
}

/// An HTTP transport that adds a DPoP proof to every request it sends
/// ([RFC 9449](https://www.rfc-editor.org/rfc/rfc9449)): bound to the access token (`ath`) when the
/// request carries `Authorization: DPoP`, with the origin's newest nonce, and sent again exactly once
/// when the server answers with a nonce challenge: `400` `use_dpop_nonce` from an authorization server
/// (§8) or `401` with `WWW-Authenticate: DPoP error="use_dpop_nonce"` from a resource server (§9).
public struct DPoPTransport: HTTPTransport {
    public let base: any HTTPTransport
    public let key: DPoPKey
    public let nonces: DPoPNonces
    public let clock: WallClock

    public init(base: any HTTPTransport, key: DPoPKey, nonces: DPoPNonces = DPoPNonces(), clock: @escaping WallClock) {
        self.base = base
        self.key = key
        self.nonces = nonces
        self.clock = clock
    }

    public func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        var response = try base.send(try signed(request))
        let fresh = nonces.remember(response, for: request.url)
        if fresh && Self.isNonceChallenge(response) {
            response = try base.send(try signed(request))
            nonces.remember(response, for: request.url)
        }
        return response
    }

    /// The request with a new proof in its `DPoP` header (one replaced if it had one).
    package func signed(_ request: HTTPRequest) throws(TransportError) -> HTTPRequest {
        var request = request
        request.headers.removeAll { $0.name.lowercased() == "dpop" }
        let token = request.headers.first { $0.name.lowercased() == "authorization" }.flatMap { header -> String? in
            let value = header.value
            guard value.count > 5, value.prefix(5).lowercased() == "dpop " else { return nil }
            return String(value.dropFirst(5))
        }
        guard
            let proof = DPoPProof.make(
                key: key, method: request.method.rawValue, url: request.url, issuedAt: clock(), accessToken: token,
                nonce: nonces.nonce(for: request.url))
        else { throw .unsafeRequest("the DPoP key could not sign a proof") }
        request.headers.append(("DPoP", proof))
        return request
    }

    /// A server asking for a nonce: the token endpoint's `400 {"error":"use_dpop_nonce"}` (RFC 9449 §8),
    /// or a resource's `401` whose DPoP challenge says `error="use_dpop_nonce"` (§9).
    public static func isNonceChallenge(_ response: HTTPResponse) -> Bool {
        switch response.status {
        case 400: return response.jsonObject?["error"]?.stringValue.map(OAuthErrorCode.init) == .useDPoPNonce
        case 401: return WWWAuthenticate.dpopError(response.headers["www-authenticate"]).map(OAuthErrorCode.init) == .useDPoPNonce
        default: return false
        }
    }
}

/// Just enough of `WWW-Authenticate` ([RFC 9110 §11.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1))
/// to read the `error` of a `DPoP` challenge among others.
package enum WWWAuthenticate {
    /// The `error` parameter of the DPoP challenge, or nil.
    package static func dpopError(_ header: String?) -> String? {
        guard let header else { return nil }
        var inDPoP = false
        var rest = Substring(header)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "," || $0 == "\t" }
            let word = rest.prefix { $0 != " " && $0 != "=" && $0 != "," && $0 != "\t" }
            rest = rest.dropFirst(word.count)
            let afterSpaces = rest.drop { $0 == " " || $0 == "\t" }
            if afterSpaces.first == "=" {
                // auth-param: name = token / quoted-string
                rest = afterSpaces.dropFirst().drop { $0 == " " || $0 == "\t" }
                var value = ""
                if rest.first == "\"" {
                    rest = rest.dropFirst()
                    while let character = rest.first, character != "\"" {
                        if character == "\\" { rest = rest.dropFirst() }
                        if let next = rest.first { value.append(next) }
                        rest = rest.dropFirst()
                    }
                    rest = rest.dropFirst()
                } else {
                    value = String(rest.prefix { $0 != "," && $0 != " " })
                    rest = rest.dropFirst(value.count)
                }
                if inDPoP && word.lowercased() == "error" { return value }
            } else if !word.isEmpty {
                inDPoP = word.lowercased() == "dpop"  // a new challenge's scheme
            }
        }
        return nil
    }
}
