/// What ties a profile to its token cache: every field of `profile.json` that decides where tokens
/// are sent or which server is trusted.
///
/// The cache file (format 2) carries the SHA-256 of these fields in its header, and the header is
/// part of the AEAD's associated data: only a holder of the key can write a digest that decrypts. A
/// `profile.json` edited behind pingcli's back (a synced or committed `~/.config`) therefore no longer
/// matches, and pingcli refuses it before any token leaves the machine.
extension Profile {
    /// Name and value of each bound field. An optional field that is absent is left out, so a field
    /// added later (key pins, a client authentication method) does not change the binding of profiles
    /// that do not use it: add it here and it is covered.
    var boundFields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("issuer", issuer), ("client_id", clientID), ("metadata.issuer", metadata.issuer),
            ("authorization_endpoint", metadata.authorizationEndpoint.value), ("token_endpoint", metadata.tokenEndpoint.value),
        ]
        let optional: [(String, String?)] = [
            ("userinfo_endpoint", metadata.userinfoEndpoint?.value), ("revocation_endpoint", metadata.revocationEndpoint?.value),
            ("end_session_endpoint", metadata.endSessionEndpoint?.value),
            ("introspection_endpoint", metadata.introspectionEndpoint?.value), ("jwks_uri", metadata.jwksURI?.value),
            ("device_authorization_endpoint", metadata.deviceAuthorizationEndpoint?.value),
            ("pushed_authorization_request_endpoint", metadata.pushedAuthorizationRequestEndpoint?.value),
            ("ca_file", caFile), ("token_endpoint_auth_method", tokenEndpointAuthMethod?.rawValue),
            ("revocation_endpoint_auth_method", revocationEndpointAuthMethod?.rawValue), ("grant_type", grantType?.rawValue),
            ("port", port.map { String($0) }), ("logout_port", logoutPort.map { String($0) }),
            // Where git-credential hands the token: bound like an endpoint.
            ("git_hosts", gitHosts.flatMap { $0.isEmpty ? nil : $0.map(\.description).joined(separator: " ") }),
            // What the sign-in asked of the authentication, and who it was: a synced profile.json must not
            // relax the checks on refreshed ID tokens.
            ("max_age", maxAge.map { String($0) }), ("acr_values", acrValues?.joined(separator: " ")), ("subject", subject),
            ("client_certificate_file", clientCertificateFile), ("client_key_file", clientKeyFile),
            ("pinned_public_keys", pinnedPublicKeys.map { KeyPin.curlValue($0) }),
            ("api_base", apiBase),
            // Which endpoints a later login takes from here instead of discovery.
            ("endpoint_overrides", endpointOverrides.flatMap { $0.isEmpty ? nil : $0.joined(separator: " ") }),
        ]
        for (name, value) in optional { if let value { fields.append((name, value)) } }
        return fields
    }

    /// The canonical byte string of `boundFields`: a version line, then `name=<length>:<value>\n` for
    /// each field in a fixed order (the length prefix keeps any value from imitating another field).
    var bindingBytes: [UInt8] {
        var bytes = Array("pingcli-profile-binding 1\n".utf8)
        for (name, value) in boundFields {
            bytes += name.utf8
            bytes.append(UInt8(ascii: "="))
            bytes += String(value.utf8.count).utf8
            bytes.append(UInt8(ascii: ":"))
            bytes += value.utf8
            bytes.append(10)
        }
        return bytes
    }

    /// SHA-256 of `bindingBytes`, as stored in the cache header.
    var bindingDigest: [UInt8] { Sodium.sha256(bindingBytes) }
}
