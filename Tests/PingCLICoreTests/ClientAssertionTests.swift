import Testing

@testable import PingBase
@testable import PingCrypto
@testable import PingOAuth

/// `private_key_jwt` keys and assertions (RFC 7523 §2.2, §3), with test-only keys made by `openssl genpkey`.
@Suite("client assertions (RFC 7523)")
struct ClientAssertionTests {
    static let p256PEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgv/Fuk4ndMIKPJeme
        zsnaBwkdY61tL+jBu6J514QGexShRANCAAS6kVKqSHxkXtR8BcXq+yn6NbwQS0H7
        xrJ+0eoS2dPpw8T2SqDXG/facTpRQS3L43xfBwXqj+BVdLUfm3+vWVVT
        -----END PRIVATE KEY-----
        """
    static let p256PublicKey = Base64URL.decode(
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEupFSqkh8ZF7UfAXF6vsp-jW8EEtB-8ayftHqEtnT6cPE9kqg1xv32nE6UUEty-N8XwcF6o_gVXS1H5t_r1lVUw")!
    static let rsa1024PEM = """
        -----BEGIN PRIVATE KEY-----
        MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBAM8icEce9UJsQSoB
        2bYxOKyLiDxMY9KqO4jope+oOsPcgl7VqWZmfAHx2WaGdNFOBDcSCrc8d+3dNFEd
        mWZQhkkQBfRXnxF+amdTx9owUSLd1PVs0RvFPtTbDIBImzkhiUPFWGq19ejptR6n
        f5s8YLswfUdEiuKrrInkaHU6y8ePAgMBAAECgYAF0ZDX3p3DJOlbtbuY658M8cp8
        7yRquY98lBR9O/uSnvImmdftYXmgUFvsDmDftFJX/bDBXvh7fRhIIw25Gw/6ln4M
        ARtAjx3Ec6PdhmWnTnzVLbKOuT8DZ36qlEOPJWec+khq7nL2agOqfcC8sPD4KapQ
        WjeflwVBUlHvixWhQQJBAPFClJLd869uBSqMK7ljLKhNMgMWEi/ckfc0V0Mr6Uag
        Tlh3GA2gXqCcVQy2aKLAzuaAx84XSU+n0i9ZMqlyp+8CQQDbyh5kNvFCfrzoQBu5
        pqr19n9XaX4jiNP+Ha1pQciy5UpDYwgA7USfTLlG53MqkSsxTq1G5e3QtP3ZmGMa
        kjphAkEAlefJy0vPy1QwL5Sy4lkF+Xkltxcyq7yAkbpa8ijJpJGcvIkbT/Qyd9dL
        XT/F2kK1DDI+dAayDaV4CuWAfhr4zwJAe0cP6tfiVJCvtnkW0/fG1nTvEgFqrdW2
        SkctF+e9AZKYJ9npCFQM9GjdVwbE0vBf0KU3jZez3ydVZvIRTDsOoQJAeFSxVbg9
        US5iv5ErOI4sja4pmPj4vmn+/NBbZqZZOD9V6NP+ADNclfR+QhewTkxi+fHUAZbx
        5tHYuogOdmctWw==
        -----END PRIVATE KEY-----
        """

    func key(_ pem: String, listed: [String]? = nil) throws -> ClientAssertionKey {
        var bytes = Array(pem.utf8)
        return try ClientAssertionKey(pem: &bytes, keyID: "k1", listed: listed)
    }

    @Test("private-key-jwt-es256: a P-256 key signs ES256 assertions (R || S) that verify with its public key")
    func es256Assertion() throws {
        let signer = try key(Self.p256PEM)
        #expect(signer.algorithm == .es256)
        let jwt = try #require(signer.assertion(clientID: "machine", audience: "https://as.example/token", now: 1_800_000_000))
        let parts = jwt.split(separator: ".").map(String.init)
        let header = try #require(JSONValue.parseObject(Base64URL.decode(parts[0]) ?? []))
        let claims = try #require(JSONValue.parseObject(Base64URL.decode(parts[1]) ?? []))
        #expect(header["alg"] == .string("ES256") && header["kid"] == .string("k1"))
        #expect(claims["iss"] == .string("machine") && claims["sub"] == .string("machine"))
        #expect(claims["aud"] == .string("https://as.example/token"))
        #expect(claims["iat"] == .number(1_800_000_000) && claims["exp"] == .number(1_800_000_060))
        let raw = try #require(Base64URL.decode(parts[2]))
        #expect(raw.count == 64)
        let der = try #require(DER.ecdsaSignature(raw: raw, coordinateSize: 32))
        let result = try LibCrypto.verify(
            publicKey: Self.p256PublicKey, digest: .sha256, pss: false, message: Array((parts[0] + "." + parts[1]).utf8), signature: der)
        #expect(result.valid)
        let again = try #require(signer.assertion(clientID: "machine", audience: "https://as.example/token", now: 1_800_000_000))
        #expect(again != jwt, "a fresh jti (and ECDSA nonce) each time")
    }

    @Test("private-key-jwt-alg: a P-256 key where the provider lists only RS algorithms has no algorithm")
    func noAlgorithm() throws {
        #expect(throws: ClientAssertionKey.Failure.noAlgorithm(listed: ["RS256", "RS384", "RS512"])) {
            try key(Self.p256PEM, listed: ["RS256", "RS384", "RS512"])
        }
    }

    @Test("private-key-jwt-weak-key: an RSA key under 2048 bits is refused")
    func weakKey() throws {
        #expect(throws: ClientAssertionKey.Failure.weakKey(bits: 1024)) { try key(Self.rsa1024PEM) }
    }

    @Test("private-key-jwt-pem: not PEM, an encrypted key, a certificate in place of a key")
    func pemGate() throws {
        #expect(throws: ClientAssertionKey.Failure.notPEM) { try key("just text") }
        #expect(throws: ClientAssertionKey.Failure.encrypted) {
            try key("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n")
        }
        #expect(throws: ClientAssertionKey.Failure.notPEM) { try key("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n") }
        #expect(throws: ClientAssertionKey.Failure.notPEM) { try key("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
    }
}
