import PingBase
import PingCrypto
import PingHTTP
import PingOAuth
import PingState

#if canImport(Glibc)
    import Glibc
#endif

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
