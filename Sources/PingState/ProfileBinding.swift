import PingCrypto
import PingPlatform

/// What ties a profile to its token cache: every field of `profile.json` that decides where tokens
/// are sent or which server is trusted.
///
/// The cache file carries a digest of these fields in its header (BLAKE2b-256 from format 4, SHA-256 in
/// format 3), and the header is part of the AEAD's associated data: only a holder of the key can write a
/// digest that decrypts. A `profile.json` edited behind pingcli's back (a synced or committed `~/.config`) therefore no longer
/// matches, and pingcli refuses it before any token leaves the machine.
extension Profile {
    /// The canonical byte string of the bound fields: a version line, then `name=<length>:<value>\n` for
    /// each field in a fixed order (the length prefix keeps any value from imitating another field). An
    /// optional field that is absent is left out, so a field added later (key pins, a client
    /// authentication method) does not change the binding of profiles that do not use it: add it here
    /// and it is covered. Written straight into one buffer: a table of (name, value) pairs cost every
    /// `token` two generic metadata instantiations (docs/performance.md).
    package var bindingBytes: [UInt8] {
        var bytes = Array("pingcli-profile-binding 1\n".utf8)
        bytes.reserveCapacity(2048)
        func field(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            bytes.append(UInt8(ascii: "="))
            appendDecimal(value.utf8.count, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            bytes += value.utf8
            bytes.append(10)
        }
        field("issuer", issuer)
        field("client_id", clientID)
        field("metadata.issuer", metadata.issuer)
        field("authorization_endpoint", metadata.authorizationEndpoint.value)
        field("token_endpoint", metadata.tokenEndpoint.value)
        field("userinfo_endpoint", metadata.userinfoEndpoint?.value)
        field("revocation_endpoint", metadata.revocationEndpoint?.value)
        field("end_session_endpoint", metadata.endSessionEndpoint?.value)
        field("introspection_endpoint", metadata.introspectionEndpoint?.value)
        field("jwks_uri", metadata.jwksURI?.value)
        field("device_authorization_endpoint", metadata.deviceAuthorizationEndpoint?.value)
        field("pushed_authorization_request_endpoint", metadata.pushedAuthorizationRequestEndpoint?.value)
        field("ca_file", caFile)
        field("token_endpoint_auth_method", tokenEndpointAuthMethod?.rawValue)
        field("revocation_endpoint_auth_method", revocationEndpointAuthMethod?.rawValue)
        field("grant_type", grantType?.rawValue)
        field("port", port.map { String($0) })
        field("logout_port", logoutPort.map { String($0) })
        // Where git-credential hands the token: bound like an endpoint.
        field("git_hosts", gitHosts.flatMap { $0.isEmpty ? nil : $0.map { $0.description }.joined(separator: " ") })
        // What the sign-in asked of the authentication, and who it was: a synced profile.json must not
        // relax the checks on refreshed ID tokens.
        field("max_age", maxAge.map { String($0) })
        field("acr_values", acrValues?.joined(separator: " "))
        field("subject", subject)
        field("client_certificate_file", clientCertificateFile)
        field("client_key_file", clientKeyFile)
        field("pinned_public_keys", pinnedPublicKeys.map { KeyPin.curlValue($0) })
        field("api_base", apiBase)
        // Which endpoints a later login takes from here instead of discovery.
        field("endpoint_overrides", endpointOverrides.flatMap { $0.isEmpty ? nil : $0.joined(separator: " ") })
        // What the next sessions' security depends on: DPoP (removed, tokens would be Bearer), the client
        // key, its kid and the assertion's audience (issue 30), and whether discovery was used.
        field("dpop", dpop)
        field("client_assertion_key_file", clientAssertionKeyFile)
        field("client_assertion_key_id", clientAssertionKeyID)
        field("client_assertion_audience", clientAssertionAudience?.rawValue)
        field("discovery", discovery == false ? "false" : nil)
        // Where the AM session goes (a journey's profile): its cookie's name and the authenticate endpoint.
        field("am_cookie_name", amCookieName)
        field("authenticate_endpoint", authenticateEndpoint)
        return bytes
    }

    /// BLAKE2b-256 of `bindingBytes`, as the cache header stores it from format 4 on.
    package var bindingDigest: [UInt8] { Sodium.blake2b256(bindingBytes) }

    /// SHA-256 of `bindingBytes`: what a format 3 cache (pingcli 0.1) carries.
    package var bindingDigestSHA256: [UInt8] { Sodium.sha256(bindingBytes) }
}

/// A count in decimal ASCII, as `String(count)` writes it, without making that string: the integer's
/// description is code `token --raw` would otherwise page in for this alone (docs/performance.md).
private func appendDecimal(_ count: Int, to bytes: inout [UInt8]) {
    let start = bytes.count
    var rest = count
    repeat {
        bytes.insert(UInt8(ascii: "0") + UInt8(rest % 10), at: start)
        rest /= 10
    } while rest > 0
}
