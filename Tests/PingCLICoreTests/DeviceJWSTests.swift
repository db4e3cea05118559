import Foundation
import Testing

@testable import PingAM
@testable import PingCrypto
@testable import PingOAuth

/// The device-binding JWSs, verified by the same code that verifies a provider's ID tokens, with the
/// public key taken from the bind JWS's own header through the JWK Set gate.
@Suite("device binding JWS")
struct DeviceJWSTests {
    func parts(_ jws: String) throws -> (header: [String: Any], claims: [String: Any]) {
        let pieces = jws.split(separator: ".", omittingEmptySubsequences: false)
        try #require(pieces.count == 3)
        func object(_ part: Substring) throws -> [String: Any] {
            let bytes = try #require(Base64URL.decode(part))
            return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        }
        return (try object(pieces[0]), try object(pieces[1]))
    }

    func verify(_ jws: String, jwk: Any) throws -> JWSAlgorithm {
        let set = try JSONSerialization.data(withJSONObject: ["keys": [jwk]])
        let keys = try JWKSet.parse(Array(set))
        return try IDTokenSignature.verify(jws, listed: ["ES256", "RS512"], keys: keys, clientSecret: nil)
    }

    @Test("device-bind-jws: ES256 and RS512 software keys; header alg, kid, jwk; the claims; the signature verifies; a change does not")
    func bind() throws {
        for algorithm in DeviceKeyAlgorithm.allCases {
            let key = try #require(SoftwareDeviceKey.generate(algorithm))
            let jws = try DeviceJWS.bind(
                key: key, kid: "kid-1", userID: "id=demo,ou=user", issuer: "com.example.pingcli", challenge: "c-123", now: 1_700_000_000.7,
                timeout: 60, platform: "linux")
            let (header, claims) = try parts(jws)
            #expect(
                Set(header.keys) == ["alg", "kid", "jwk"] && header["alg"] as? String == algorithm.rawValue
                    && header["kid"] as? String == "kid-1")
            let jwk = try #require(header["jwk"] as? [String: Any])
            #expect(
                jwk["use"] as? String == "sig" && jwk["kid"] as? String == "kid-1"
                    && jwk["kty"] as? String == (algorithm == .es256 ? "EC" : "RSA"))
            #expect(jwk["d"] == nil && jwk["p"] == nil, "no private member")
            #expect(claims["sub"] as? String == "id=demo,ou=user" && claims["iss"] as? String == "com.example.pingcli")
            #expect(claims["challenge"] as? String == "c-123" && claims["platform"] as? String == "linux")
            #expect(
                claims["iat"] as? Int == 1_700_000_000 && claims["nbf"] as? Int == 1_700_000_000 && claims["exp"] as? Int == 1_700_000_060)
            #expect(try verify(jws, jwk: jwk).rawValue == algorithm.rawValue)
            var tampered = Array(jws)
            let dot = try #require(tampered.firstIndex(of: "."))
            tampered[dot + 2] = tampered[dot + 2] == "A" ? "B" : "A"
            #expect(throws: SignatureError.self) { try verify(String(tampered), jwk: jwk) }
        }
    }

    @Test("device-sign-jws: header alg and kid only; custom claims added; a reserved name refused (device-custom-claims)")
    func sign() throws {
        let key = try #require(SoftwareDeviceKey.generate(.es256))
        let bound = try parts(
            DeviceJWS.bind(key: key, kid: "k", userID: "u", issuer: "i", challenge: "c", now: 10, timeout: 5, platform: "linux"))
        let jws = try DeviceJWS.sign(
            key: key, kid: "k", userID: "u", issuer: "i", challenge: "c2", now: 100, timeout: 30, custom: ["amount": .string("12.50")])
        let (header, claims) = try parts(jws)
        #expect(Set(header.keys) == ["alg", "kid"])
        #expect(claims["amount"] as? String == "12.50" && claims["challenge"] as? String == "c2" && claims["exp"] as? Int == 130)
        #expect(claims["platform"] == nil)
        #expect(try verify(jws, jwk: try #require(bound.header["jwk"])) == .es256)
        for reserved in ["sub", "iss", "iat", "nbf", "exp", "challenge", "platform"] {
            #expect(throws: DeviceJWS.Failure.reservedClaim(reserved)) {
                try DeviceJWS.sign(
                    key: key, kid: "k", userID: "u", issuer: "i", challenge: "c", now: 1, timeout: 1, custom: [reserved: .string("x")])
            }
        }
    }
}
