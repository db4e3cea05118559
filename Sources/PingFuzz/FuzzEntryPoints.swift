import PingBase
import PingCommands
import PingCrypto
import PingHTTP
import PingIntegrations
import PingOAuth
import PingRedirect
import PingState
import PingTerminal

/// The parsers of hostile input, each driven from raw bytes the way its real caller drives it. Used by
/// the libFuzzer harness (`make fuzz`) and by the regression tests that replay its findings.
public enum FuzzEntryPoints {
    /// Bytes from a local process to the loopback listener, through the parser and the receiver; and the
    /// same bytes as lines pasted on standard input (`login --no-browser`), through the same receiver.
    public static func loopbackRequest(_ bytes: [UInt8]) {
        let receiver = RedirectReceiver(expectedState: "state-value", issuer: "https://issuer.example", issParameterRequired: true)
        if case .complete(let request) = LoopbackRequest.parse(bytes) { _ = receiver.handle(request) }
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if case .request(let request) = PastedAddress(String(decoding: line, as: UTF8.self), port: 8765) {
                _ = receiver.handle(request)
            }
        }
    }

    /// An ID token from the token endpoint: the bytes are the compact JWT text.
    public static func idToken(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let claims = try? IDTokenClaims.decode(text) else { return }
        try? claims.validate(issuer: "https://issuer.example", clientID: "client", expectedNonce: "nonce", now: 1_800_000_000)
        _ = claims.displayName
    }

    /// A token cache file read from disk, and the same bytes as the plaintext of a correctly sealed
    /// file: random bytes never pass the Poly1305 tag, so the second is how the fuzzer reaches the
    /// token-set decoding behind it, and what `token` and `status` then do with the decoded set.
    public static func cacheFile(_ bytes: [UInt8], key: [UInt8]) {
        let issuer = "https://issuer.example"
        let profile = Profile(
            issuer: issuer, clientID: "client", scopes: ["openid"],
            metadata: ProviderMetadata(
                issuer: issuer, authorizationEndpoint: try! EndpointURL(issuer + "/authorize"),
                tokenEndpoint: try! EndpointURL(issuer + "/token")))
        if let tokens = try? EncryptedTokenFile.decode(bytes, key: key, name: .default, profile: profile) {
            describe(tokens)
        }
        let nonce = [UInt8](repeating: 0, count: Sodium.aeadNonceLength)
        let digest = profile.bindingDigest
        let header = EncryptedTokenFile.header(generation: 1)
        let sealed =
            header + digest + nonce
            + Sodium.seal(
                plaintext: bytes, associatedData: EncryptedTokenFile.associatedData(header: header, profile: .default, digest: digest),
                nonce: nonce, key: key)
        if let tokens = try? EncryptedTokenFile.decode(sealed, key: key, name: .default, profile: profile) {
            describe(tokens)
        }
    }

    /// What the commands derive from a cached token set for a person (the summary of `token`, `status`).
    package static func describe(_ tokens: TokenSet) {
        let now = 1_800_000_000.0
        _ = tokens.isFresh(now: now, minimumTTL: 30)
        _ = tokens.isExpired(now: now)
        if let expiresAt = tokens.expiresAt { _ = formatUTC(expiresAt) + describeInterval(expiresAt - now) }
        if let claims = tokens.idToken.flatMap({ try? IDTokenClaims.decode($0.value) }) { _ = claims.displayName }
    }

    /// A response body as discovery, token, userinfo and revocation responses, with the first byte
    /// choosing the HTTP status class.
    public static func responses(_ bytes: [UInt8]) {
        let status = [200, 200, 400, 401, 302, 500][Int(bytes.first ?? 0) % 6]
        let response = HTTPResponse(status: status, headers: ["content-type": "application/json"], body: Array(bytes.dropFirst()))
        _ = try? ProviderMetadata.process(response, expectedIssuer: "https://issuer.example")
        if let tokens = try? TokenEndpoint.process(response, now: 1_800_000_000), let idToken = tokens.idToken {
            _ = try? IDTokenClaims.decode(idToken.value)
        }
        _ = try? UserInfo.process(response, expectedSubject: "subject")
        _ = Revocation.process(response)
        if let object = JSONValue.parseObject(response.body) { _ = JSONValue.object(object).rendered(pretty: true) }
    }

    /// The gates where provider text enters, with the properties code further in relies on checked as
    /// invariants (a violation traps, so libFuzzer reports it): whatever passes a token or URL gate can
    /// go into a header line as is; JSON output and display text never carry a terminal-active
    /// character, and JSON output decodes back to the same string.
    public static func gate(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let token = try? AccessToken(checking: text) { precondition(isSafeHeaderValue("Bearer " + token.value)) }
        if let token = try? RefreshToken(checking: text) { precondition(isSafeHeaderValue(token.value)) }
        if let token = try? IDToken(checking: text) { precondition(isSafeHeaderValue(token.value)) }
        if let url = try? EndpointURL(text) {
            precondition(isSafeHeaderValue(url.value) && !url.value.contains(" "))
            _ = url.isLoopback
        }
        for issuer in ["https://issuer.example", "http://127.0.0.1:9000", "https://127.0.0.1:9443"] {
            if let checkedIssuer = try? EndpointPolicy.checkIssuer(issuer),
                let url = try? EndpointPolicy.check(text, issuer: checkedIssuer)
            {
                // A scheme never goes down; an issuer off loopback never names this machine.
                precondition(checkedIssuer.scheme == "http" || url.scheme == "https")
                precondition(checkedIssuer.isLoopback || !url.isLoopback)
            }
        }
        _ = MediaType.isJSON(text)
        _ = try? TokenEndpoint.expiresIn(.string(text))
        _ = isValidScope(text)
        precondition(!displaySafe(text).unicodeScalars.contains(where: isTerminalActive))
        precondition(!Console.terminalSafe(text).unicodeScalars.contains { $0 != "\n" && $0 != "\t" && isTerminalActive($0) })
        let rendered = JSONValue.object(["v": .string(text)]).rendered(pretty: false)
        precondition(!rendered.unicodeScalars.contains(where: isTerminalActive))
        precondition(JSONValue.parseObject(Array(rendered.utf8))?["v"] == .string(text))
        let response = HTTPResponse(status: 200, headers: ["content-type": text], body: Array("{}".utf8))
        _ = response.jsonObject
    }

    /// The git credential protocol: the bytes as git's request on stdin (bounded as `readRequest`
    /// bounds it), matched against a fixed list of git hosts; and the same bytes as a git host given
    /// to `configure` or `--git-host`. Invariants (a violation traps): an accepted request value holds
    /// no control character (the answer stays two lines); a request is answered only over https, or
    /// http to this machine, and only for the configured host and port, never for a `.`/`..` path;
    /// a host that passed its gate is printable ASCII without spaces and reads back as itself.
    public static func gitCredential(_ bytes: [UInt8]) {
        let served = ["git.example.com", "lab.example.com:8443/team", "127.0.0.1:8080", "[::1]", "localhost:3000"].map {
            try! GitHost(checking: $0)
        }
        // Longer input is refused by readRequest before it is parsed.
        if bytes.count <= GitCredential.maximumRequestBytes, let request = try? GitCredential.parse(bytes) {
            for value in request.values { precondition(!value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }) }
            for host in served where host.matches(protocol: request["protocol"], host: request["host"], path: request["path"]) {
                let (name, port) = GitHost.splitAuthority(Substring(request["host"] ?? ""))!
                precondition(request["protocol"] == "https" || (request["protocol"] == "http" && GitHost.isLoopback(name)))
                precondition(name == host.host && (port ?? 0) == (host.port ?? port ?? 0))
                let segments = (request["path"] ?? "").split(separator: "/")
                precondition(host.pathPrefix.isEmpty || !segments.contains { $0 == "." || $0 == ".." })
            }
        }
        if let host = try? GitHost(checking: String(decoding: bytes, as: UTF8.self)) {
            precondition(host.description.unicodeScalars.allSatisfy { (0x21...0x7E).contains($0.value) })
            precondition((try? GitHost(checking: host.description)) == host)
        }
    }
}
