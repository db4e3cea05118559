import Testing

@testable import PingBase
@testable import PingCrypto
@testable import PingHTTP
@testable import PingOAuth
@testable import PingState

/// DPoP (RFC 9449) and JWK thumbprints (RFC 7638), with the RFCs' own examples.
@Suite("DPoP proofs and thumbprints")
struct DPoPTests {
    /// RFC 8037 Appendix A.1: the Ed25519 private key `d`.
    static let rfc8037Seed = Base64URL.decode("nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A")!

    @Test("jwk-thumbprint-rfc7638: the RSA example of RFC 7638 §3.1")
    func rfc7638Example() {
        let n =
            "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        // Given out of order: the thumbprint sorts the required members itself.
        #expect(JWKThumbprint.sha256([("n", n), ("kty", "RSA"), ("e", "AQAB")]) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("jwk-thumbprint-rfc9449: the EC key of RFC 9449's examples has the jkt they show")
    func rfc9449Thumbprint() {
        let members = [
            ("kty", "EC"), ("x", "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs"), ("y", "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA"),
            ("crv", "P-256"),
        ]
        #expect(JWKThumbprint.sha256(members) == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
    }

    @Test("dpop-ath-rfc9449: ath of the access token in RFC 9449 §7.1")
    func accessTokenHash() {
        #expect(DPoPProof.accessTokenHash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU") == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
    }

    @Test("dpop-ed25519-rfc8037: the Ed25519 key of RFC 8037 Appendix A gives its public key and thumbprint")
    func rfc8037Key() throws {
        let key = try #require(DPoPKey(algorithm: .edDSA, privateKey: Self.rfc8037Seed))
        #expect(key.publicJWK == "{\"crv\":\"Ed25519\",\"kty\":\"OKP\",\"x\":\"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo\"}")
        #expect(key.thumbprint == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
        // RFC 8037 A.4: the signature of its example JWS.
        let signature = key.sign(Array("eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc".utf8))
        #expect(
            signature.map(Base64URL.encode)
                == "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg")
        #expect(!key.description.contains(Base64URL.encode(Self.rfc8037Seed)))
    }

    @Test("dpop-proof-shape: typ, alg, public jwk only; htm, htu without query and fragment, iat, unique jti, ath, nonce")
    func proofShape() throws {
        let key = try #require(DPoPKey(algorithm: .edDSA, privateKey: Self.rfc8037Seed))
        let nonce = try #require(DPoPNonce("eyJ7S_zG.eyJH0-Z.HX4w-7v"))
        let proof = try #require(
            DPoPProof.make(
                key: key, method: "GET", url: "https://resource.example.org/protectedresource?x=1#top", issuedAt: 1_562_262_618.7,
                accessToken: "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU", nonce: nonce))
        let parts = proof.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let header = try #require(JSONReader.parse(Base64URL.decode(parts[0])!)?.objectValue)
        let claims = try #require(JSONReader.parse(Base64URL.decode(parts[1])!)?.objectValue)
        #expect(header["typ"] == .string("dpop+jwt") && header["alg"] == .string("EdDSA"))
        #expect(header["jwk"]?.objectValue?.keys.sorted() == ["crv", "kty", "x"])
        #expect(claims["htm"] == .string("GET") && claims["htu"] == .string("https://resource.example.org/protectedresource"))
        #expect(claims["iat"] == .number(1_562_262_618))
        #expect(claims["ath"] == .string("fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"))
        #expect(claims["nonce"] == .string("eyJ7S_zG.eyJH0-Z.HX4w-7v"))
        let again = try #require(DPoPProof.make(key: key, method: "GET", url: "https://a.example/", issuedAt: 1))
        let jti1 = claims["jti"]?.stringValue
        let jti2 = JSONReader.parse(Base64URL.decode(again.split(separator: ".")[1])!)?.objectValue?["jti"]?.stringValue
        #expect(jti1 != nil && jti1 != jti2 && (jti1?.count ?? 0) >= 22)
        // The signature verifies with the public key in the header (Ed25519, RFC 8037 §3.1).
        let input = Array((parts[0] + "." + parts[1]).utf8)
        #expect(key.sign(input).map(Base64URL.encode) == parts[2])
    }

    @Test(
        "dpop-proof-every-alg: ES256, PS256, RS256 and EdDSA proofs verify with the jwk in their header", arguments: DPoPAlgorithm.allCases)
    func everyAlgorithm(_ algorithm: DPoPAlgorithm) throws {
        let key = try #require(DPoPKey.generate(algorithm))
        let proof = try #require(DPoPProof.make(key: key, method: "POST", url: "https://as.example/token", issuedAt: 1000))
        let parts = proof.split(separator: ".").map(String.init)
        let header = try #require(JSONReader.parse(Base64URL.decode(parts[0])!)?.objectValue)
        #expect(header["alg"] == .string(algorithm.rawValue))
        let jwkFields = try #require(header["jwk"]?.objectValue)
        #expect(jwkFields["d"] == nil && jwkFields["p"] == nil)
        let jwk = try #require(JWK(jwkFields))
        let alg = try #require(JWSAlgorithm(rawValue: algorithm.rawValue))
        let signature = try #require(Base64URL.decode(parts[2]))
        if algorithm == .es256 { #expect(signature.count == 64) }  // R || S, not DER (RFC 7518 §3.4)
        #expect(try IDTokenSignature.verify(signature, of: Array((parts[0] + "." + parts[1]).utf8), with: jwk, alg))
        var tampered = signature
        tampered[0] ^= 1
        #expect(try !IDTokenSignature.verify(tampered, of: Array((parts[0] + "." + parts[1]).utf8), with: jwk, alg))
        // Through the cache and back: the same key, the same thumbprint, and still able to sign.
        let again = try #require(DPoPKey(cacheBytes: key.cacheBytes[...]))
        #expect(again == key && again.thumbprint == key.thumbprint && again.sign([1, 2, 3]) != nil)
        #expect(!key.description.contains(Base64URL.encode(key.privateKey)))
    }

    @Test("dpop-nonce-gate: a DPoP-Nonce must be 1*NQCHAR and at most 1 KiB")
    func nonceGate() {
        #expect(DPoPNonce("abc-123_~.") != nil)
        for bad in ["", "a b", "a\"b", "a\\b", "a\u{7}b", String(repeating: "n", count: 1025)] { #expect(DPoPNonce(bad) == nil) }
    }

    @Test("www-authenticate-dpop-error: the error of the DPoP challenge among others")
    func challenge() {
        #expect(WWWAuthenticate.dpopError("DPoP error=\"use_dpop_nonce\", error_description=\"x\"") == "use_dpop_nonce")
        #expect(
            WWWAuthenticate.dpopError("Bearer error=\"invalid_token\", DPoP algs=\"ES256 EdDSA\", error=\"use_dpop_nonce\"")
                == "use_dpop_nonce")
        #expect(WWWAuthenticate.dpopError("Bearer error=\"use_dpop_nonce\"") == nil)
        #expect(WWWAuthenticate.dpopError(nil) == nil)
    }

    @Test("dpop-token-type: a DPoP request needs token_type DPoP back; a Bearer request refuses DPoP")
    func tokenType() throws {
        func response(_ type: String) -> HTTPResponse {
            HTTPResponse(
                status: 200, headers: ["content-type": "application/json"],
                body: Array("{\"access_token\":\"abc\",\"token_type\":\"\(type)\",\"expires_in\":60}".utf8))
        }
        #expect(try TokenEndpoint.process(response("DPoP"), now: 0, dpop: true).tokenType == "DPoP")
        #expect(try TokenEndpoint.process(response("dpop"), now: 0, dpop: true).tokenType == "DPoP")
        #expect(throws: TokenEndpointError.notDPoPBound("Bearer")) { try TokenEndpoint.process(response("Bearer"), now: 0, dpop: true) }
        #expect(throws: TokenEndpointError.unexpectedDPoP) { try TokenEndpoint.process(response("DPoP"), now: 0) }
    }

    @Test("dpop-algorithm-choice: named, chosen from discovery, or refused with a reason")
    func algorithmChoice() throws {
        #expect(try DPoPRequest.providerChoice.choose(advertised: ["RS256", "EdDSA"]) == .edDSA)
        #expect(throws: DPoPRequest.Failure.unannounced) { try DPoPRequest.providerChoice.choose(advertised: nil) }
        #expect(try DPoPRequest.providerChoice.choose(advertised: ["RS256", "ES256", "EdDSA"]) == .es256)
        #expect(try DPoPRequest.providerChoice.choose(advertised: ["PS256", "RS256"]) == .ps256)
        #expect(throws: DPoPRequest.Failure.noneImplemented(advertised: ["ES384"])) {
            try DPoPRequest.providerChoice.choose(advertised: ["ES384"])
        }
        #expect(try DPoPRequest.algorithm(.edDSA).choose(advertised: nil) == .edDSA)
        #expect(throws: DPoPRequest.Failure.notAccepted(.edDSA, advertised: ["ES256"])) {
            try DPoPRequest.algorithm(.edDSA).choose(advertised: ["ES256"])
        }
        #expect(DPoPRequest.Failure.unannounced.rule == .dpopUnannounced)
        #expect(DPoPRequest.Failure.noneImplemented(advertised: []).rule == .dpopAlgorithmChoice)
    }

    @Test("dpop-key-cache-field: the key round-trips through the cache's tag 9 and a damaged one is refused")
    func cacheField() throws {
        let key = try #require(DPoPKey.generate(.edDSA))
        let tokens = TokenSet(
            accessToken: AccessToken(unchecked: "abc"), tokenType: "DPoP", expiresAt: 100, refreshToken: nil, idToken: nil,
            scope: nil, obtainedAt: 1, dpopKey: key)
        let bytes = CompactTokenSet.encode(tokens)
        #expect(CompactTokenSet.decode(bytes) == tokens)
        #expect(CompactTokenSet.decode(bytes)?.dpopKey?.thumbprint == key.thumbprint)
        #expect(CompactTokenSet.decode(Array(bytes.dropLast())) == nil)
        var unknown = bytes
        unknown[unknown.count - 38] = UInt8(ascii: "X")  // "EdDSA" becomes "XdDSA"
        #expect(CompactTokenSet.decode(unknown) == nil)
    }

    @Test("dpop-nonce-retry: a nonce challenge is answered with exactly one retry, and the nonce is kept for the origin")
    func nonceRetry() throws {
        let key = try #require(DPoPKey.generate(.edDSA))
        let script = ScriptedDPoPServer(answers: [
            HTTPResponse(
                status: 400, headers: ["content-type": "application/json", "dpop-nonce": "n1"],
                body: Array("{\"error\":\"use_dpop_nonce\"}".utf8)),
            HTTPResponse(status: 200),
            HTTPResponse(status: 401, headers: ["www-authenticate": "DPoP error=\"use_dpop_nonce\"", "dpop-nonce": "n1"]),
        ])
        let transport = DPoPTransport(base: script, key: key, clock: { 1000 })
        let first = try transport.send(HTTPRequest.form("https://as.example/token", [("grant_type", "x")]))
        #expect(first.status == 200)
        #expect(script.nonces() == [nil, "n1"])
        // The same nonce again is not a new challenge: no second retry.
        let second = try transport.send(HTTPRequest(method: .get, url: "https://as.example/r", headers: [("Authorization", "DPoP abc")]))
        #expect(second.status == 401 && script.nonces() == [nil, "n1", "n1"])
    }
}

/// Answers in order and remembers the nonce of each proof it received.
final class ScriptedDPoPServer: HTTPTransport, @unchecked Sendable {
    private var answers: [HTTPResponse]
    private var received: [String?] = []

    init(answers: [HTTPResponse]) { self.answers = answers }

    func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        let proof = request.headers.first { $0.name == "DPoP" }?.value ?? ""
        let payload = proof.split(separator: ".").dropFirst().first.flatMap { Base64URL.decode($0) }
        received.append(payload.flatMap { JSONReader.parse($0)?.objectValue?["nonce"]?.stringValue })
        return answers.isEmpty ? HTTPResponse(status: 500) : answers.removeFirst()
    }

    func nonces() -> [String?] { received }
}
