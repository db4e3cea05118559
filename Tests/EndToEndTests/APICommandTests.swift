import CSodium
import Foundation
import PingEmulator
import Testing

/// `pingcli api` against the emulator's protected resource, and where its token must not go.
@Suite("pingcli api, end to end")
struct APICommandTests {
    @Test("api-cross-origin-redirect: a redirect to another origin is followed without the token or proof")
    func crossOriginRedirect() throws {
        for dpop in [false, true] {
            let emulator = try startEmulator()
            let other = try startEmulator()  // a second loopback server, recording what it receives
            defer {
                emulator.stop()
                other.stop()
            }
            let sandbox = Sandbox()
            #expect(sandbox.login(emulator, dpop ? ["--dpop"] : []).status == 0)
            var faults = Faults()
            faults.responseOverrides = [
                .resource: CannedResponse(
                    status: 302, contentType: "text/plain", body: "moved", headers: ["Location": other.url(for: .resource) ?? ""], times: 1)
            ]
            emulator.faults = faults
            let url = try #require(emulator.url(for: .resource))
            let run = sandbox.run(["api", "--header", "X-Api-Key: k-1", "--header", "Accept: application/json", url])
            #expect(run.status == 0, "\(run)")
            #expect(run.stderr.contains("without the token"))
            let received = try #require(other.requests(to: .resource).last)
            #expect(received.headers["authorization"] == nil && received.headers["dpop"] == nil, "\(received.headers)")
            #expect(received.headers["x-api-key"] == nil && received.headers["accept"] == "application/json")
            #expect(emulator.requests(to: .resource).first?.headers["x-api-key"] == "k-1")
            #expect(received.status == 401)
            #expect(emulator.requests(to: .resource).first?.headers["authorization"] != nil)
        }
    }

    @Test("api-same-origin-redirect: a redirect on the same origin keeps the token")
    func sameOriginRedirect() throws {
        let (emulator, sandbox) = try loggedIn(
            answering: .resource,
            with: CannedResponse(status: 307, contentType: "text/plain", body: "", headers: ["Location": "/api/resource"], times: 1))
        defer { emulator.stop() }
        let run = sandbox.run(["api", try #require(emulator.url(for: .resource))])
        #expect(run.status == 0, "\(run)")
        #expect(emulator.requests(to: .resource).map(\.status) == [307, 200])
    }

    @Test("api-response-limit: a body larger than --max-bytes is refused")
    func responseLimit() throws {
        let (emulator, sandbox) = try loggedIn(
            answering: .resource, with: CannedResponse(status: 200, contentType: "application/json", body: "0123456789", bodyRepeat: 1000))
        defer { emulator.stop() }
        let url = try #require(emulator.url(for: .resource))
        let run = sandbox.run(["api", "--max-bytes", "5000", url])
        #expect(run.rule == "api-response-limit", "\(run)")
        #expect(run.status == 1, "\(run)")
        #expect(run.stdout.isEmpty)
        let whole = sandbox.run(["api", "--max-bytes", "10000", url])
        #expect(whole.status == 0 && whole.stdout == String(repeating: "0123456789", count: 1000), "\(whole.status) \(whole.stderr)")
    }

    @Test("api-data-missing-file: --data from a missing file is a usage error before any request")
    func missingDataFile() throws {
        let (emulator, sandbox) = try loggedIn()
        let run = sandbox.run(["api", "--data", "@" + sandbox.root + "/nope.json", try #require(emulator.url(for: .resource))])
        #expect(run.rule == "api-data-input", "\(run)")
        #expect(run.status == 2 && run.stderr.contains("nope.json"), "\(run)")
        #expect(emulator.requests(to: .resource).isEmpty)
    }

    @Test("api-data-stdin-and-include: --data - reads standard input; --include puts the status and headers on stderr")
    func dataFromStandardInput() throws {
        let (emulator, sandbox) = try loggedIn()
        let run = sandbox.run(["api", "--include", "--data", "-", try #require(emulator.url(for: .resource))], input: "{\"x\":true}")
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.hasPrefix("HTTP 200\n") && run.stderr.contains("content-type: application/json"))
        #expect(run.stdout.contains("\"body\":\"{\\\"x\\\":true}\"") && run.stdout.contains("\"method\":\"POST\""))
    }

    @Test("api-fail: a non-2xx status prints the body and exits 6 with --fail, 0 without")
    func failOption() throws {
        let (emulator, sandbox) = try loggedIn()
        var faults = Faults()
        faults.responseOverrides = [.resource: CannedResponse(status: 404, contentType: "application/json", body: "{\"gone\":1}")]
        emulator.faults = faults
        let url = try #require(emulator.url(for: .resource))
        let failing = sandbox.run(["api", "--fail", url])
        #expect(failing.rule == "api-fail", "\(failing)")
        #expect(failing.status == 6 && failing.stdout == "{\"gone\":1}" && failing.stderr.contains("HTTP 404"), "\(failing)")
        let plain = sandbox.run(["api", url])
        #expect(plain.status == 0 && plain.stdout == "{\"gone\":1}", "\(plain)")
    }

    @Test("api-url-gate: plain http to another host, a relative URL without --api-base and Authorization headers are refused")
    func urlGate() throws {
        let (emulator, sandbox) = try loggedIn()
        let remote = sandbox.run(["api", "http://api.example.com/x"])
        #expect(remote.rule == "api-url-gate", "\(remote)")
        #expect(remote.status == 2, "\(remote)")
        let relative = sandbox.run(["api", "/users"])
        #expect(relative.rule == "api-url-gate", "\(relative)")
        #expect(relative.status == 2 && relative.stderr.contains("--api-base"), "\(relative)")
        let header = sandbox.run(["api", "--header", "Authorization: Bearer x", try #require(emulator.url(for: .resource))])
        #expect(header.status == 2, "\(header)")
        #expect(emulator.requests(to: .resource).isEmpty)
    }

    @Test("api-401-refresh: a 401 is answered by one refresh and one retry")
    func refreshOn401() throws {
        let (emulator, sandbox) = try loggedIn()
        emulator.expireAccessTokens()
        let run = sandbox.run(["api", try #require(emulator.url(for: .resource))])
        #expect(run.status == 0, "\(run)")
        #expect(emulator.requests(to: .resource).map(\.status) == [401, 200])
        #expect(emulator.requests(to: .token).filter { $0.grantType == "refresh_token" }.count == 1)
    }

    @Test("dpop-key-never-leaks: the DPoP private key appears in no output and no file but the encrypted cache")
    func keyNeverLeaks() throws {
        let (emulator, sandbox) = try DPoPEndToEndTests.dpopSession()
        let url = try #require(emulator.url(for: .resource))
        var outputs: [CLIRun] = []
        for arguments in [
            ["token", "--format", "json"], ["token", "--format", "summary"], ["status"], ["dpop-proof", "--method", "GET", "--url", url],
            ["api", "--include", "--verbose", url], ["userinfo", "--verbose"], ["profiles"],
        ] {
            outputs.append(sandbox.run(arguments))
        }
        emulator.expireAccessTokens()
        outputs.append(sandbox.run(["token", "--verbose", "--format", "json"]))
        // ES256 by default: the SEC 1 DER, and the private scalar d inside it (RFC 5915 §3).
        let der = try #require(Self.dpopPrivateKey(sandbox))
        let prefix: [UInt8] = [0x02, 0x01, 0x01, 0x04, 0x20]
        let start = try #require((0..<(der.count - 37)).first { Array(der[$0..<($0 + 5)]) == prefix })
        let scalar = Array(der[(start + 5)..<(start + 37)])
        let forms = Self.encodings(der) + Self.encodings(scalar)
        var haystacks = outputs.map { $0.stdout + $0.stderr }
        let files = FileManager.default.enumerator(atPath: sandbox.root)?.allObjects as? [String] ?? []
        var searched = 0
        for file in files where !file.hasSuffix("tokens.enc") {
            guard let data = FileManager.default.contents(atPath: sandbox.root + "/" + file) else { continue }
            searched += 1
            #expect(data.range(of: Data(scalar)) == nil, "raw key bytes in \(file)")
            haystacks.append(String(decoding: data, as: UTF8.self))
        }
        #expect(searched >= 3)
        for text in haystacks { for form in forms { #expect(!text.contains(form)) } }
        let recorded = emulator.requests.map { "\($0.headers) \($0.form) \($0.query)" }.joined()
        for form in forms { #expect(!recorded.contains(form)) }
        let cache = try #require(FileManager.default.contents(atPath: sandbox.stateDirectory + "/tokens.enc"))
        #expect(cache.range(of: Data(scalar)) == nil)  // encrypted, not merely present
    }

    /// The private key's usual spellings: base64url, base64, hex.
    static func encodings(_ bytes: [UInt8]) -> [String] {
        let standard = Data(bytes).base64EncodedString()
        let url = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return [standard, url, String(url.prefix(24)), bytes.map { String(format: "%02x", $0) }.joined()]
    }

    /// The DPoP private key (ES256: its DER), read the way pingcli reads it: the cache decrypted with the
    /// key file (format 3, docs/security.md), then the tagged field 9 (algorithm name, NUL, 2-byte length,
    /// the DER, the public members).
    static func dpopPrivateKey(_ sandbox: Sandbox) -> [UInt8]? {
        guard let key = FileManager.default.contents(atPath: sandbox.keyFile).map(Array.init),
            let file = FileManager.default.contents(atPath: sandbox.stateDirectory + "/tokens.enc").map(Array.init), file.count > 72
        else { return nil }
        // Format 5: a 16-byte header and the 32-byte binding digest are the associated data, then the nonce.
        let associated = Array(file[0..<48]) + Array("\u{0}profile=default".utf8)
        let nonce = Array(file[48..<72])
        let ciphertext = Array(file[72...])
        var plain = [UInt8](repeating: 0, count: ciphertext.count)
        var length: UInt64 = 0
        guard
            crypto_aead_xchacha20poly1305_ietf_decrypt(
                &plain, &length, nil, ciphertext, UInt64(ciphertext.count), associated, UInt64(associated.count), nonce, key) == 0
        else { return nil }
        var index = 0
        while index + 5 <= Int(length) {
            let tag = plain[index]
            let count = plain[(index + 1)...(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            let value = Array(plain[(index + 5)..<(index + 5 + count)])
            if tag == 9, let nul = value.firstIndex(of: 0), value.count > nul + 3 {
                let length = Int(value[nul + 1]) << 8 | Int(value[nul + 2])
                return Array(value[(nul + 3)..<(nul + 3 + length)])
            }
            index += 5 + count
        }
        return nil
    }
}
