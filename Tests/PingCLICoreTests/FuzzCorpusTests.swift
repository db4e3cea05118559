import Testing

@testable import PingAM
@testable import PingBase
@testable import PingCommands
@testable import PingFuzz
@testable import PingHTTP
@testable import PingIntegrations
@testable import PingOAuth
@testable import PingPlatform
@testable import PingRedirect
@testable import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// Replays the fuzz seed corpora and every regression input (a crash the fuzzer once found) through the
/// same entry points the fuzzer drives, so a fixed crash stays fixed in `make test`.
@Suite("fuzz corpora and regressions")
struct FuzzCorpusTests {
    static let root: String = {
        // Tests/PingCLICoreTests/FuzzCorpusTests.swift -> Tests/Fuzz
        FileSystem.parent(of: FileSystem.parent(of: #filePath)) + "/Fuzz"
    }()

    static func files(_ directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(directory + "/" + name) }
        }
        return names.sorted()
    }

    static func inputs(_ target: String) -> [[UInt8]] {
        (files(root + "/corpus/" + target) + files(root + "/regressions/" + target)).compactMap { try? FileSystem.read($0) ?? [] }
    }

    static let targets = ["loopback-request", "jwt", "cache-file", "json", "gate", "git-credential", "journey", "sts", "webauthn"]

    @Test("every fuzz target has seeds", arguments: FuzzCorpusTests.targets)
    func seeds(target: String) {
        #expect(!Self.inputs(target).isEmpty)
    }

    @Test("loopback-request inputs replay without a crash, and the seeds parse")
    func loopbackRequest() {
        for input in Self.inputs("loopback-request") { FuzzEntryPoints.loopbackRequest(input) }
        let callback = try? FileSystem.read(Self.root + "/corpus/loopback-request/callback")
        guard case .complete(let request)? = callback.flatMap({ $0 }).map(LoopbackRequest.parse) else {
            Issue.record("the callback seed does not parse")
            return
        }
        #expect(request.path == "/callback")
        let pasted = try? FileSystem.read(Self.root + "/corpus/loopback-request/pasted-callback")
        guard case .request(let fromPaste)? = pasted.flatMap({ $0 }).map({ PastedAddress(String(decoding: $0, as: UTF8.self), port: 8765) })
        else {
            Issue.record("the pasted-callback seed is not accepted")
            return
        }
        #expect(fromPaste.path == "/callback")
    }

    @Test("jwt inputs replay, and the valid seed validates")
    func jwt() throws {
        for input in Self.inputs("jwt") { FuzzEntryPoints.idToken(input) }
        let valid = try #require(try FileSystem.read(Self.root + "/corpus/jwt/valid"))
        let claims = try IDTokenClaims.decode(String(decoding: valid, as: UTF8.self))
        try claims.validate(issuer: "https://issuer.example", clientID: "client", expectedNonce: "nonce", now: 1_800_000_000)
    }

    @Test("cache-file inputs replay, and the valid seed decrypts under the fuzz key")
    func cacheFile() throws {
        let key = [UInt8](repeating: 7, count: 32)
        for input in Self.inputs("cache-file") { FuzzEntryPoints.cacheFile(input, key: key) }
        let valid = try #require(try FileSystem.read(Self.root + "/corpus/cache-file/valid-v3"))
        let issuer = "https://issuer.example"
        let profile = Profile(
            issuer: issuer, clientID: "client", scopes: ["openid"],
            metadata: ProviderMetadata(
                issuer: issuer, authorizationEndpoint: try EndpointURL(issuer + "/authorize"),
                tokenEndpoint: try EndpointURL(issuer + "/token")))
        #expect(valid[4] == 3)
        let tokens = try EncryptedTokenFile.decode(valid, key: key, name: .default, profile: profile)
        #expect(tokens.refreshToken == "refresh")
        // cache-old-format-refused: a format 1 file (before the profile binding) under the same key is refused.
        let old = try #require(try FileSystem.read(Self.root + "/corpus/cache-file/old-format-v1"))
        #expect(old[4] == 1)
        #expect(throws: EncryptedTokenFile.DecodeError.olderFormat(1)) {
            try EncryptedTokenFile.decode(old, key: key, name: .default, profile: profile)
        }
    }

    @Test("json inputs replay, and the seeds are accepted by their processors")
    func json() throws {
        for input in Self.inputs("json") { FuzzEntryPoints.responses(input) }
        let discovery = try #require(try FileSystem.read(Self.root + "/corpus/json/discovery"))
        let metadata = try ProviderMetadata.process(
            HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(discovery.dropFirst())),
            expectedIssuer: "https://issuer.example")
        #expect(metadata.tokenEndpoint.value == "https://issuer.example/token")
    }

    @Test("gate inputs replay without breaking an invariant, and the attack seeds are refused")
    func gate() throws {
        for input in Self.inputs("gate") { FuzzEntryPoints.gate(input) }
        func seed(_ name: String) throws -> String {
            String(decoding: try #require(try FileSystem.read(Self.root + "/corpus/gate/" + name)), as: UTF8.self)
        }
        #expect((try? AccessToken(checking: try seed("token-smuggling"))) == nil)
        #expect((try? IDToken(checking: try seed("token-jws"))) != nil)
        for name in ["url-response-splitting", "url-escape-bell", "url-c1-bidi", "url-ipv4-decimal", "url-ipv4-hex", "url-userinfo"] {
            #expect((try? EndpointURL(try seed(name))) == nil, "\(name)")
        }
        #expect(try EndpointURL(try seed("url-ipv4-mapped")).isLoopback)
        let json = try seed("media-type-json")
        let html = try seed("media-type-html")
        #expect(MediaType.isJSON(json) && !MediaType.isJSON(html))
    }

    @Test("git-credential inputs replay without breaking an invariant, and the seeds are answered or not as named")
    func gitCredential() throws {
        for input in Self.inputs("git-credential") { FuzzEntryPoints.gitCredential(input) }
        func request(_ name: String) throws -> [String: String]? {
            try? GitCredential.parse(try #require(try FileSystem.read(Self.root + "/corpus/git-credential/" + name)))
        }
        let served = try GitHost(checking: "lab.example.com:8443/team")
        func answered(_ name: String) throws -> Bool {
            guard let request = try request(name) else { return false }
            return served.matches(protocol: request["protocol"], host: request["host"], path: request["path"])
        }
        #expect(try answered("path-prefix"))
        let long = try #require(try FileSystem.read(Self.root + "/corpus/git-credential/over-long-line"))
        #expect(long.count > GitCredential.maximumRequestBytes, "refused by readRequest before parsing")
        for name in ["url-only", "nul-in-host", "crlf-lines", "dot-dot-path", "other-port", "plain-http"] {
            #expect(!(try answered(name)), "\(name)")
        }
        #expect(try request("nul-in-host") == nil && request("crlf-lines") == nil)
    }

    @Test("journey inputs replay without breaking an invariant, and the seeds are the steps they are named after")
    func journey() throws {
        for input in Self.inputs("journey") { FuzzEntryPoints.journey(input) }
        func answer(_ name: String) throws -> JourneyResponse? {
            let bytes = try #require(try FileSystem.read(Self.root + "/corpus/journey/" + name))
            let response = HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(bytes.dropFirst()))
            return try? JourneyResponse.process(response)
        }
        guard case .step(let step)? = try answer("step-choice-confirm-poll") else { throw JourneyError.malformed("seed") }
        #expect(step.callbacks.count == 4 && step.callbacks[2].kind == .pollingWait(message: "Approve on your phone", milliseconds: 8000))
        guard case .step(let other)? = try answer("step-validated-kba-binding") else { throw JourneyError.malformed("seed") }
        #expect(other.unsupported == nil, "device binding is a step pingcli answers")
        #expect(other.callbacks.contains { if case .deviceBinding = $0.kind { true } else { false } })
        guard case .success? = try answer("success") else { throw JourneyError.malformed("seed") }
    }

    @Test("webauthn-step-gate: the WebAuthn seeds replay without breaking an invariant, and each is the step it is named after")
    func webAuthn() throws {
        for input in Self.inputs("webauthn") { FuzzEntryPoints.webAuthn(input) }
        func step(_ name: String) throws -> WebAuthnStep? {
            let bytes = try #require(try FileSystem.read(Self.root + "/corpus/webauthn/" + name))
            let form = bytes[0] % 2 == 0 ? "MetadataCallback" : "TextOutputCallback"
            let body = Array(bytes.dropFirst())
            let value: JSONValue =
                form == "MetadataCallback" ? (JSONReader.parse(body) ?? .null) : .string(String(decoding: body, as: UTF8.self))
            var output: [JSONValue] = [.object(["name": .string(form == "MetadataCallback" ? "data" : "message"), "value": value])]
            if form != "MetadataCallback" { output.append(.object(["name": .string("messageType"), "value": .string("4")])) }
            let page = JSONValue.object([
                "authId": .string("a.b.c"),
                "callbacks": .array([
                    .object(["type": .string(form), "output": .array(output)]),
                    .object([
                        "type": .string("HiddenValueCallback"),
                        "output": .array([.object(["name": .string("id"), "value": .string("webAuthnOutcome")])]),
                        "input": .array([.object(["name": .string("IDToken2"), "value": .string("webAuthnOutcome")])]),
                    ]),
                ]),
            ])
            let response = HTTPResponse(
                status: 200, headers: ["content-type": "application/json"], body: Array(page.rendered(pretty: false).utf8))
            guard case .step(let step) = try JourneyResponse.process(response) else { return nil }
            return step.webAuthn
        }
        let registration = try #require(try step("metadata-registration"))
        guard case .registration(let options) = registration.ceremony else { throw JourneyError.malformed("seed") }
        #expect(registration.challenge == Array(1...32) && registration.rpID == "example.com" && registration.supportsJSONResponse)
        #expect(options.algorithms == [.rs256, .es256] && options.residentKey && options.userName == "demo")
        let script = try #require(try step("script-registration"))
        guard case .registration(let inline) = script.ceremony else { throw JourneyError.malformed("seed") }
        #expect(script.form == .script && script.challenge.count == 32 && script.challenge[2] == 146 && script.rpID == "example.com")
        #expect(
            inline.attachment == .crossPlatform && inline.excludeCredentials == [[238, 69, 157, 82, 38, 190]]
                && inline.userName.hasPrefix("57a5"))
        let older = try #require(try step("script-authentication-65"))
        #expect(older.ceremony == .authentication(allowCredentials: [[1, 97, 2, 123, 151]]))
        let usernameless = try #require(try step("metadata-authentication-70-usernameless"))
        #expect(usernameless.ceremony == .authentication(allowCredentials: []) && usernameless.userVerification == .required)
        #expect(try step("metadata-authentication")?.ceremony == .authentication(allowCredentials: [[1, 204, 48, 208]]))
    }
}
