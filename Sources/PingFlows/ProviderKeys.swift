import PingBase
import PingCrypto
import PingOAuth
import PingPlatform
import PingState

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
    var stillUnknownKeyID: String? = nil

    /// A `kid` still unknown after a fetch is fetched again at most this often, across processes. An
    /// unknown `kid` the last fetch was not made for is fetched at once (a key rotation just after
    /// sign-in), as go-oidc does.
    package static let refetchInterval: Double = 60

    /// GET `jwks_uri` through the JWK Set gate (RFC 7517 §5): 200, JSON, at most 256 KiB.
    package static func fetch(_ metadata: ProviderMetadata, transport: any HTTPTransport, now: Double) throws(PingCLIError) -> FetchedJWKS {
        guard let uri = metadata.jwksURI else { throw .failure(SignatureError.noJWKSURI.message, rule: SignatureError.noJWKSURI.rule) }
        let what = "fetching the provider's keys from \(uri.value)"
        let response: HTTPResponse
        do {
            response = try transport.send(
                HTTPRequest(method: .get, url: uri.value, headers: [("Accept", "application/jwk-set+json, application/json")]))
        } catch {
            throw error.asCLIError(doing: what, endpoint: "JWKS", url: uri.value)
        }
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
        guard let bytes = try FileSystem.read(path, limit: JWKSet.maximumBytes + 1024, protection: .owned),
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
        try FileSystem.atomicWrite(path, Array("\(Int(fetchedAt))\(unknown)\n".utf8) + body)
    }
}

/// Checks ID token signatures ([OIDC Core §3.1.3.7](https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation)
/// 6–8) against the provider's keys, fetching them only when the token's algorithm needs them.
package enum IDTokenKeys {
    /// At login: a fresh JWK Set (the saved one may belong to an earlier login); returns it for saving.
    package static func verifyAtLogin(
        _ token: IDToken, metadata: ProviderMetadata, clientSecret: String?, transport: any HTTPTransport, now: Double
    ) throws(PingCLIError) -> FetchedJWKS? {
        let fetched = try needsKeys(token.value) ? FetchedJWKS.fetch(metadata, transport: transport, now: now) : nil
        try check(token, metadata: metadata, keys: fetched?.keys, clientSecret: clientSecret, doing: "login")
        return fetched
    }

    /// At refresh, with the profile's lock held (so concurrent callers share one fetch: the next one
    /// finds the saved set): the cached set, fetched again when it is missing or lacks the token's key.
    /// Only a `kid` that a fetch within the last minute already failed to bring waits for the minute to
    /// pass (an `unreachable` failure, exit 3, try again later), so a hostile token cannot make pingcli
    /// fetch at every run, and a key rotation right after sign-in costs one fetch, not a minute.
    package static func verifyAtRefresh(
        _ token: IDToken, profile: Profile, cachePath: String, clientSecret: String?, transport: any HTTPTransport, now: Double
    ) throws(PingCLIError) {
        guard try needsKeys(token.value) else {
            return try check(token, metadata: profile.metadata, keys: nil, clientSecret: clientSecret, doing: "refresh")
        }
        let keyID = (try? JWSHeader(token.value))?.keyID ?? ""
        let cached = try FetchedJWKS.load(cachePath)
        if let cached {
            do {
                _ = try IDTokenSignature.verify(
                    token.value, listed: profile.metadata.idTokenSigningAlgValuesSupported, keys: cached.keys, clientSecret: clientSecret)
                return
            } catch {
                guard error.wantsFreshKeys else { throw .failure("refresh failed: \(error.message)", rule: error.rule) }
                let recent = now - cached.fetchedAt < FetchedJWKS.refetchInterval && now >= cached.fetchedAt
                guard !(recent && cached.stillUnknownKeyID == keyID) else {
                    throw .unreachable(
                        "refresh failed: \(error.message), and the keys fetched for it less than a minute ago did not have it (pingcli asks again after a minute)",
                        rule: .idTokenKeyRotationClock)
                }
            }
        }
        var fetched = try FetchedJWKS.fetch(profile.metadata, transport: transport, now: now)
        do {
            _ = try IDTokenSignature.verify(
                token.value, listed: profile.metadata.idTokenSigningAlgValuesSupported, keys: fetched.keys, clientSecret: clientSecret)
        } catch {
            if error.wantsFreshKeys { fetched.stillUnknownKeyID = keyID }
            try fetched.save(cachePath)
            throw .failure("refresh failed: \(error.message)", rule: error.rule)
        }
        try fetched.save(cachePath)
    }

    /// Whether the token's algorithm is verified with the provider's keys (not HMAC, not refused outright).
    package static func needsKeys(_ token: String) throws(PingCLIError) -> Bool {
        do {
            let header = try JWSHeader(token)
            return JWSAlgorithm(rawValue: header.algorithm).map { $0.family != .hmac } ?? false
        } catch {
            throw .failure("the ID token was refused: \(error.message)", rule: error.rule)
        }
    }

    private static func check(
        _ token: IDToken, metadata: ProviderMetadata, keys: JWKSet?, clientSecret: String?, doing what: String
    ) throws(PingCLIError) {
        do {
            _ = try IDTokenSignature.verify(
                token.value, listed: metadata.idTokenSigningAlgValuesSupported, keys: keys, clientSecret: clientSecret)
        } catch {
            throw .failure("\(what) failed: \(error.message)", rule: error.rule)
        }
    }
}
