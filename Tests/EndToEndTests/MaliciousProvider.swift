import Foundation
import PingEmulator

#if canImport(Glibc)
    import Glibc
#endif

/// A hostile OpenID provider on a loopback port: it plays the code flow along (discovery, authorize,
/// token, userinfo, revocation, end session) but every value it sends is the test's to choose, raw
/// JSON and raw header bytes included, and it records every byte it receives, so a test can say
/// byte-exactly what reached it (an injected header, a smuggled second request, a token).
final class MaliciousProvider: @unchecked Sendable {
    /// One connection's bytes, as received.
    struct Received: Sendable {
        var bytes: [UInt8]
        var text: String { String(decoding: bytes, as: UTF8.self) }
        /// The request target of the first request line ("\r\n" is one Character in Swift).
        var target: Substring { text.split(separator: "\r\n").first?.split(separator: " ").dropFirst().first ?? "" }
        /// The path of the first request line, without its query.
        var path: String {
            String(target.prefix { $0 != "?" })
        }
        var query: [String: String] {
            guard let mark = target.firstIndex(of: "?") else { return [:] }
            return formFields(String(target[target.index(after: mark)...]))
        }
    }

    /// What the provider answers; each raw JSON value is inserted as is (so it may be any JSON, or
    /// hostile text inside a string).
    struct Script: Sendable {
        /// Members replacing or adding to the discovery document; `nil` removes one.
        var discovery: [String: String?] = [:]
        /// Members replacing or adding to the token response; `nil` removes one.
        var token: [String: String?] = [:]
        var tokenContentType = "application/json"
        var tokenStatus = 200
        /// Parameters replacing or adding to the authorization response; `nil` removes one.
        var authorizationResponse: [String: String?] = [:]
        /// The userinfo body (raw JSON, `sub` is added when absent) and its content type.
        var userinfoClaims: [String: String] = [:]
        var userinfoContentType = "application/json"
        /// The `name` claim of the ID tokens it issues.
        var idTokenName = "Mallory"
        /// A full raw response for a path, replacing the normal one.
        var raw: [String: [UInt8]] = [:]
    }

    private let acceptor: LoopbackAcceptor
    var port: UInt16 { acceptor.port }
    private let state = Locked<(received: [Received], script: Script, nonce: String, serving: Int)>(([], Script(), "", 0))
    let subject = "malicious-subject"

    /// The issuer it claims: its own loopback address, or a public name it is reached by through TLS
    /// and a proxy (see `TLSFront`).
    var issuer: String { publicIssuer ?? "http://127.0.0.1:\(port)" }
    private let publicIssuer: String?
    /// Every connection's bytes, once the connections in flight are done (each is read a moment past
    /// its response, for anything smuggled after it).
    var received: [Received] {
        let giveUp = Date().addingTimeInterval(15)
        while state.withLock({ $0.serving > 0 }) && Date() < giveUp { usleep(10_000) }
        return state.withLock { $0.received }
    }
    var script: Script {
        get { state.withLock { $0.script } }
        set { state.withLock { $0.script = newValue } }
    }

    /// Connections whose first request line asked for `path`.
    func received(at path: String) -> [Received] { received.filter { $0.path == path } }

    init(_ script: Script = Script(), issuer: String? = nil) throws {
        publicIssuer = issuer
        acceptor = try LoopbackAcceptor()
        self.script = script
        acceptor.start { [self] connection in
            state.withLock { $0.serving += 1 }
            Thread { [self] in serve(connection) }.start()
        }
    }

    func stop() { acceptor.stop() }

    /// Reads one request (head and Content-Length body), answers it, then keeps reading for a moment so
    /// that anything smuggled after it is recorded too.
    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var bytes: [UInt8] = []
        var responded = false
        var quietUntil = Date().addingTimeInterval(10)
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while Date() < quietUntil {
            var entry = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) >= 0 else { break }
            if entry.revents != 0 {
                let count = recv(connection, &chunk, chunk.count, 0)
                if count <= 0 { break }
                bytes.append(contentsOf: chunk[..<count])
            }
            if !responded, let end = Self.requestEnd(bytes) {
                let response = respond(to: Received(bytes: Array(bytes[..<end])))
                _ = response.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                responded = true
                quietUntil = Date().addingTimeInterval(0.3)
            }
        }
        state.withLock {
            $0.received.append(Received(bytes: bytes))
            $0.serving -= 1
        }
    }

    /// The end of the first request: its head, plus Content-Length bytes of body.
    static func requestEnd(_ bytes: [UInt8]) -> Int? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let range = text.range(of: "\r\n\r\n") else { return nil }
        let headEnd = text.utf8.distance(from: text.startIndex, to: range.upperBound)
        let length =
            text[..<range.lowerBound].split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        return bytes.count >= headEnd + length ? headEnd + length : nil
    }

    private func respond(to request: Received) -> [UInt8] {
        let script = self.script
        if let raw = script.raw[request.path] { return raw }
        switch request.path {
        case "/.well-known/openid-configuration":
            var document: [String: String?] = [
                "issuer": json(issuer), "authorization_endpoint": json(issuer + "/authorize"),
                "token_endpoint": json(issuer + "/token"), "userinfo_endpoint": json(issuer + "/userinfo"),
                "revocation_endpoint": json(issuer + "/revoke"), "end_session_endpoint": json(issuer + "/end"),
                "code_challenge_methods_supported": "[\"S256\"]", "authorization_response_iss_parameter_supported": "true",
                "jwks_uri": json(issuer + "/jwks"),
            ]
            document.merge(script.discovery) { $1 }
            return Self.response(200, "application/json", Self.object(document))
        case "/authorize":
            let query = request.query
            state.withLock { $0.nonce = query["nonce"] ?? "" }
            var parameters: [String: String?] = ["code": "code-\(UUID().uuidString)", "state": query["state"], "iss": issuer]
            parameters.merge(script.authorizationResponse) { $1 }
            let encoded = parameters.compactMap { key, value in value.map { "\(key)=\(formEncode($0))" } }.sorted()
            let location = (query["redirect_uri"] ?? "") + "?" + encoded.joined(separator: "&")
            return Array("HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        case "/token":
            let nonce = state.withLock { $0.nonce }
            var fields: [String: String?] = [
                "access_token": json("AT-good"), "token_type": json("Bearer"), "expires_in": "3600",
                "refresh_token": json("RT-good"), "id_token": json(idToken(nonce: nonce, name: script.idTokenName)),
            ]
            fields.merge(script.token) { $1 }
            return Self.response(script.tokenStatus, script.tokenContentType, Self.object(fields))
        case "/userinfo":
            var claims = script.userinfoClaims
            if claims["sub"] == nil { claims["sub"] = json(subject) }
            return Self.response(200, script.userinfoContentType, Self.object(claims))
        case "/revoke":
            return Self.response(200, "application/json", "{}")
        case "/jwks":
            // Its ID tokens are signed, so that the tests reach the rules after the signature's.
            return Self.response(200, "application/json", Self.signer.jwksJSON)
        case "/end":
            let query = request.query
            let location = (query["post_logout_redirect_uri"] ?? "") + "?state=" + formEncode(query["state"] ?? "")
            return Array("HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        default:
            return Self.response(404, "text/plain", "not here")
        }
    }

    static let signer = TestSigningKey()

    /// A signed ID token for `pingcli-test` with the nonce of the last authorization request.
    func idToken(nonce: String, name: String = "Mallory") -> String {
        let now = Int(Date().timeIntervalSince1970)
        let claims: [String: String?] = [
            "iss": json(issuer), "sub": json(subject), "aud": json("pingcli-test"), "exp": "\(now + 3600)", "iat": "\(now)",
            "nonce": json(nonce), "name": json(name),
        ]
        return Self.signer.sign(payloadJSON: Self.object(claims))
    }

    static func object(_ members: [String: String?]) -> String {
        "{" + members.compactMap { key, value in value.map { "\"\(key)\":\($0)" } }.sorted().joined(separator: ",") + "}"
    }

    static func response(_ status: Int, _ contentType: String, _ body: String) -> [UInt8] {
        let bytes = Array(body.utf8)
        return Array(
            "HTTP/1.1 \(status) X\r\nContent-Type: \(contentType)\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n".utf8)
            + bytes
    }
}

/// A JSON string literal for `text`, escaping only what JSON requires: hostile characters stay in it
/// as JSON escapes, so that the parsed value holds them raw.
func json(_ text: String) -> String {
    var output = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": output += "\\\""
        case "\\": output += "\\\\"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) {
                output += String(format: "\\u%04x", scalar.value)
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
    }
    return output + "\""
}

func formEncode(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
}

func formFields(_ query: String) -> [String: String] {
    var fields: [String: String] = [:]
    for pair in query.split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let decode = { (text: Substring) in String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
        fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
    }
    return fields
}
