import PingBase
import PingCrypto
import PingHTTP
import PingOAuth
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// A provider's JWK Set as fetched from its `jwks_uri`, with the time of the fetch: what `jwks.json` in
/// the profile directory holds.
package struct FetchedJWKS: Equatable {
    package var keys: JWKSet
    /// The body as received (it passed the gate), written back verbatim.
    package var body: [UInt8]
    package var fetchedAt: Double
    /// The `kid` (of the token being checked) that this fetch did not bring: asked again only after
    /// `refetchInterval`. nil when the fetch found what it was made for.
    package var stillUnknownKeyID: String? = nil

    /// A `kid` still unknown after a fetch is fetched again at most this often, across processes. An
    /// unknown `kid` the last fetch was not made for is fetched at once (a key rotation just after
    /// sign-in), as go-oidc does.
    package static let refetchInterval: Double = 60

    /// GET `jwks_uri` through the JWK Set gate (RFC 7517 §5): 200, JSON, at most 256 KiB.
    package static func fetch(_ metadata: ProviderMetadata, transport: any HTTPTransport, now: Double) throws(PingCLIError) -> FetchedJWKS {
        guard let uri = metadata.jwksURI else { throw .failure(SignatureError.noJWKSURI.message, rule: SignatureError.noJWKSURI.rule) }
        let what = "fetching the provider's keys from \(uri.value)"
        let response = try transport.send(
            HTTPRequest(method: .get, url: uri.value, headers: [("Accept", "application/jwk-set+json, application/json")]),
            doing: what, endpoint: "JWKS", url: uri.value)
        if response.status >= 500 || response.status == 429 {
            throw .unreachable("\(what) failed: the server answered HTTP \(response.status): try again later", rule: .jwksUnavailable)
        }
        do {
            return FetchedJWKS(keys: try JWKSet.process(response), body: response.body, fetchedAt: now)
        } catch {
            throw .failure("\(what) failed: \(error.message): the provider is misconfigured", rule: error.rule)
        }
    }

    /// The cached set; nil when there is none or it is damaged (then it is fetched again).
    package static func load(_ path: String) throws(PingCLIError) -> FetchedJWKS? {
        let found = try FileAdvice.worded(try FileSystem.read(path, limit: JWKSet.maximumBytes + 1024, protection: .owned))
        guard let bytes = found,
            let newline = bytes.firstIndex(of: UInt8(ascii: "\n"))
        else { return nil }
        let first = bytes[..<newline].split(separator: UInt8(ascii: " "), maxSplits: 1, omittingEmptySubsequences: false)
        guard let time = first.first, let fetchedAt = Double(String(decoding: time, as: UTF8.self)), fetchedAt.isFinite else { return nil }
        var unknown: String? = nil
        if first.count == 2 {
            guard let kid = Base64URL.decode(String(decoding: first[1], as: UTF8.self)) else { return nil }
            unknown = String(decoding: kid, as: UTF8.self)
        }
        let body = Array(bytes[(newline + 1)...])
        guard let keys = try? JWKSet.parse(body) else { return nil }
        return FetchedJWKS(keys: keys, body: body, fetchedAt: fetchedAt, stillUnknownKeyID: unknown)
    }

    /// Writes the set beside the profile: the fetch time on the first line (and, base64url, the `kid`
    /// it did not bring), then the body.
    package func save(_ path: String) throws(PingCLIError) {
        let unknown = stillUnknownKeyID.map { " " + Base64URL.encode(Array($0.utf8)) } ?? ""
        try FileAdvice.worded(try FileSystem.atomicWrite(path, Array("\(Int(fetchedAt))\(unknown)\n".utf8) + body))
    }
}
