import Foundation
import Testing

@testable import PingCrypto
@testable import PingHTTP
@testable import PingOAuth

/// ID token signatures against the RFC examples: RFC 7515 Appendix A (A.1 HS256, A.2 RS256, A.3 ES256,
/// A.4 ES512), RFC 8037 Appendix A.4 (Ed25519), and the refusals of RFC 7515 §5.2 / OIDC Core §3.1.3.7.
@Suite("JWS signatures (RFC 7515, 7518, 8037)")
struct SignatureTests {
    static let payload = "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    static let rsaModulus =
        "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
    static let rs256 =
        "eyJhbGciOiJSUzI1NiJ9.\(payload).cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
    static let es256 =
        "eyJhbGciOiJFUzI1NiJ9.\(payload).DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    static let es512 =
        "eyJhbGciOiJFUzUxMiJ9.UGF5bG9hZA.AdwMgeerwtHoh-l192l60hp9wAHZFVJbLfD_UxMi70cwnZOYaRI1bKPWROc-mZZqwqT2SI-KGDKB34XO0aw_7XdtAG8GaSwFKdCAPZgoXD2YBJZCPEX3xKpRwcdOO8KpEHwJjyqOgzDO7iKvU8vcnwNrmxYbSW9ERBXukOXolLzeO_Jn"
    static let ed25519 =
        "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"

    static func keySet(_ json: String) throws -> JWKSet { try JWKSet.parse(Array(json.utf8)) }
    static let rsaSet = #"{"keys":[{"kty":"RSA","kid":"2010-12-29","n":"\#(rsaModulus)","e":"AQAB"}]}"#
    static let ecSet =
        #"{"keys":[{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}"#
    static let p521Set =
        #"{"keys":[{"kty":"EC","crv":"P-521","x":"AekpBQ8ST8a8VcfVOTNl353vSrDCLLJXmPk06wTjxrrjcBpXp5EOnYG_NjFZ6OvLFV1jSfS9tsz4qUxcWceqwQGk","y":"ADSmRA43Z1DSNx_RvcLI87cdL07l6jQyyBXMoxVg_l2Th-x3S1WDhjDly79ajL4Kkd0AZMaZmh9ubmf63e3kyMj2"}]}"#
    static let okpSet = #"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#

    func verify(_ token: String, _ set: String, listed: [String]? = nil, secret: String? = nil) throws -> JWSAlgorithm {
        try IDTokenSignature.verify(token, listed: listed, keys: try Self.keySet(set), clientSecret: secret)
    }

    func refusal(_ token: String, _ set: String, listed: [String]? = nil, secret: String? = nil) throws -> SignatureError? {
        do {
            _ = try IDTokenSignature.verify(token, listed: listed, keys: try Self.keySet(set), clientSecret: secret)
            return nil
        } catch let error as SignatureError {
            return error
        }
    }

    @Test("RFC 7515 A.2: RS256 verifies with the example key (RS256 is the default when discovery lists none)")
    func rs256Example() throws {
        #expect(try verify(Self.rs256, Self.rsaSet) == .rs256)
    }

    @Test("RFC 7515 A.3: ES256 verifies, R || S turned into DER")
    func es256Example() throws {
        #expect(try verify(Self.es256, Self.ecSet, listed: ["ES256"]) == .es256)
    }

    @Test("RFC 7515 A.4: ES512 on P-521 (66-byte halves) verifies")
    func es512Example() throws {
        #expect(try verify(Self.es512, Self.p521Set, listed: ["ES512"]) == .es512)
    }

    @Test("RFC 8037 A.4: EdDSA with Ed25519 verifies through libsodium")
    func ed25519Example() throws {
        #expect(try verify(Self.ed25519, Self.okpSet, listed: ["EdDSA"]) == .edDSA)
    }

    @Test("RFC 7515 A.1: the HMAC-SHA-256 of the example signing input with the example key")
    func hs256Example() throws {
        let key = Base64URL.decode("AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow")!
        let input = Array("eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.\(Self.payload)".utf8)
        #expect(try LibCrypto.hmac(.sha256, key: key, message: input) == Base64URL.decode("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")!)
    }

    @Test("HS256 with the client secret verifies; without a secret it is refused (id-token-hmac-without-secret)")
    func hs256WithClientSecret() throws {
        let input = "eyJhbGciOiJIUzI1NiJ9.\(Self.payload)"
        let mac = try LibCrypto.hmac(.sha256, key: Array("s3cret".utf8), message: Array(input.utf8))
        let token = input + "." + Base64URL.encode(mac)
        #expect(try verify(token, Self.rsaSet, listed: ["HS256"], secret: "s3cret") == .hs256)
        #expect(try refusal(token, Self.rsaSet, listed: ["HS256"]) == .hmacWithoutSecret("HS256"))
        #expect(try refusal(token, Self.rsaSet, listed: ["HS256"], secret: "other") == .invalidSignature)
    }

    @Test("id-token-bad-signature: one changed bit in the payload")
    func forged() throws {
        let forged = Self.rs256.replacingOccurrences(of: "eyJpc3MiOiJqb2Ui", with: "eyJpc3MiOiJqb2Ij")
        #expect(try refusal(forged, Self.rsaSet) == .invalidSignature)
        let forgedEC = Self.es256.replacingOccurrences(of: "DtEh", with: "DtEi")
        #expect(try refusal(forgedEC, Self.ecSet, listed: ["ES256"]) == .invalidSignature)
    }

    @Test("id-token-alg-none and id-token-signature-missing")
    func unsigned() throws {
        #expect(try refusal("eyJhbGciOiJub25lIn0.\(Self.payload).", Self.rsaSet, listed: ["none", "RS256"]) == .algorithmNone)
        let stripped = String(Self.rs256[...Self.rs256.lastIndex(of: ".")!])
        #expect(try refusal(stripped, Self.rsaSet) == .missingSignature)
    }

    @Test("id-token-alg-not-listed: RS256 when discovery lists only ES256; ES256 when it lists nothing")
    func notListed() throws {
        #expect(try refusal(Self.rs256, Self.rsaSet, listed: ["ES256"]) == .algorithmNotListed("RS256", listed: ["ES256"]))
        #expect(try refusal(Self.es256, Self.ecSet) == .algorithmNotListed("ES256", listed: ["RS256"]))
    }

    @Test("RS256/HS256 confusion: an HS256 token keyed with the public key never verifies")
    func confusion() throws {
        let input = "eyJhbGciOiJIUzI1NiJ9.\(Self.payload)"
        let publicKey = DER.rsaPublicKey(modulus: Base64URL.decode(Self.rsaModulus)!, exponent: [1, 0, 1])
        let token = input + "." + Base64URL.encode(try LibCrypto.hmac(.sha256, key: publicKey, message: Array(input.utf8)))
        #expect(try refusal(token, Self.rsaSet, listed: ["RS256", "HS256"]) == .hmacWithoutSecret("HS256"))
        #expect(try refusal(token, Self.rsaSet, listed: ["RS256", "HS256"], secret: "client-secret") == .invalidSignature)
    }

    @Test("a kid selects that key only: a kid of an EC key for an RS256 token, and an unknown kid")
    func kidSelection() throws {
        let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"ec-1"}"#.utf8))
        let signature = String(Self.rs256.split(separator: ".")[2])
        let token = "\(header).\(Self.payload).\(signature)"
        let set =
            #"{"keys":[{"kty":"EC","kid":"ec-1","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},{"kty":"RSA","kid":"rsa-1","n":"\#(Self.rsaModulus)","e":"AQAB"}]}"#
        #expect(try refusal(token, set) == .keyDoesNotFit(kid: "ec-1", alg: "RS256"))
        let unknown = "\(Base64URL.encode(Array(#"{"alg":"RS256","kid":"gone"}"#.utf8))).\(Self.payload).\(signature)"
        #expect(try refusal(unknown, set) == .unknownKeyID("gone"))
        #expect(try refusal(unknown, set)?.wantsFreshKeys == true)
    }

    @Test("a key whose use, key_ops or alg says otherwise does not verify")
    func keyRestrictions() throws {
        for restriction in [#""use":"enc""#, #""key_ops":["encrypt"]"#, #""alg":"PS256""#] {
            let set = #"{"keys":[{"kty":"RSA",\#(restriction),"n":"\#(Self.rsaModulus)","e":"AQAB"}]}"#
            #expect(try refusal(Self.rs256, set) == .noFittingKey("RS256"), "\(restriction)")
        }
    }

    @Test("id-token-crit: an unknown critical header is refused")
    func critical() throws {
        let header = Base64URL.encode(Array(#"{"alg":"RS256","crit":["exp"],"exp":1}"#.utf8))
        #expect(try refusal("\(header).\(Self.payload).AAAA", Self.rsaSet) == .criticalHeader)
    }

    @Test("id-token-weak-key: an RSA key under 2048 bits is refused")
    func weakKey() throws {
        let short = Base64URL.encode([0xc1] + [UInt8](repeating: 0x5b, count: 127))
        let set = #"{"keys":[{"kty":"RSA","n":"\#(short)","e":"AQAB"}]}"#
        #expect(try refusal(Self.rs256, set) == .weakKey(bits: 1024))
    }

    @Test("the JWK Set gate: size, media type, status, duplicate kid; private and symmetric keys left out")
    func keySetGate() throws {
        let big = HTTPResponse(
            status: 200, headers: ["content-type": "application/json"],
            body: Array(#"{"keys":[],"pad":""#.utf8) + [UInt8](repeating: 0x61, count: 256 * 1024) + Array(#""}"#.utf8))
        #expect(throws: JWKSet.Failure.tooLarge) { try JWKSet.process(big) }
        let html = HTTPResponse(status: 200, headers: ["content-type": "text/html"], body: Array(Self.rsaSet.utf8))
        #expect(throws: JWKSet.Failure.notJSONMediaType("text/html")) { try JWKSet.process(html) }
        let missing = HTTPResponse(status: 404, headers: ["content-type": "application/json"], body: Array("{}".utf8))
        #expect(throws: JWKSet.Failure.httpStatus(404)) { try JWKSet.process(missing) }
        let jwkSet = HTTPResponse(status: 200, headers: ["content-type": "application/jwk-set+json"], body: Array(Self.rsaSet.utf8))
        #expect(try JWKSet.process(jwkSet).keys.count == 1)
        let twice =
            #"{"keys":[{"kty":"RSA","kid":"a","n":"\#(Self.rsaModulus)","e":"AQAB"},{"kty":"RSA","kid":"a","n":"\#(Self.rsaModulus)","e":"AQAB"}]}"#
        #expect(throws: JWKSet.Failure.duplicateKeyID("a")) { try Self.keySet(twice) }
        let mixed =
            #"{"keys":[{"kty":"oct","k":"c2VjcmV0"},{"kty":"RSA","d":"AQAB","n":"\#(Self.rsaModulus)","e":"AQAB"},{"kty":"EC","crv":"P-256","x":"AA","y":"AA"},{"kty":"RSA","n":"\#(Self.rsaModulus)","e":"AQAB"}]}"#
        #expect(try Self.keySet(mixed).keys.count == 1)
        #expect(throws: JWKSet.Failure.notAKeySet) { try Self.keySet(#"{"keys":{}}"#) }
    }

    @Test("ECDSA signatures: DER to R || S and back keep fixed-size halves")
    func ecdsaConversion() throws {
        let raw = [UInt8](repeating: 0, count: 31) + [0x80] + [UInt8](repeating: 0x7f, count: 32)
        let der = try #require(DER.ecdsaSignature(raw: raw, coordinateSize: 32))
        #expect(DER.rawECDSASignature(der: der, coordinateSize: 32) == raw)
        #expect(DER.ecdsaSignature(raw: Array(raw.dropLast()), coordinateSize: 32) == nil)
    }
}
