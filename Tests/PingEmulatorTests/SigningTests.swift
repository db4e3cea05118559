import Foundation
import Testing

@testable import PingEmulator

/// RS256 with an RSA JWKS by default, PS256 and EdDSA behind `signingAlgorithm`, `typ: at+jwt` behind
/// `accessTokenType` (docs/testing.md lists the Ping pages).
@Suite struct SigningTests {
    /// Signs in and returns the JWKS's only key, the ID token and the access token.
    func signedTokens(_ configuration: EmulatorConfiguration) throws -> (jwk: EmulatorJSON, idToken: String, accessToken: String) {
        try withEmulator(configuration) { emulator in
            let tokens = try #require(redeem(emulator, code: obtainCode(emulator)).json)
            let keys = try #require(http("GET", endpoint(emulator, .jwks)).json?["keys"]?.arrayValue)
            #expect(keys.count == 1)
            return (
                try #require(keys.first), try #require(tokens["id_token"]?.stringValue),
                try #require(tokens["access_token"]?.stringValue)
            )
        }
    }

    @Test("rs256-default: every layout publishes a 2048-bit RSA key and signs both tokens RS256", arguments: Layout.allCases)
    func rs256ByDefault(layout: Layout) throws {
        let (jwk, idToken, accessToken) = try signedTokens(.init(layout: layout))
        #expect(jwk["kty"] == "RSA" && jwk["alg"] == "RS256" && jwk["use"] == "sig" && jwk["kid"] != nil)
        #expect(jwk["e"] == "AQAB")
        #expect(jwk["n"]?.stringValue.flatMap(Base64URL.decode)?.count == 256)
        for token in [idToken, accessToken] {
            let header = try #require(JWSCheck.parts(token).header)
            #expect(header["alg"] == "RS256" && header["kid"] == jwk["kid"] && header["typ"] == "JWT")
            #expect(try JWSCheck.verifies(token, with: jwk))
        }
        // A signature from another key does not verify (the check can fail).
        let forged = idToken.split(separator: ".").prefix(2).joined(separator: ".") + "." + (accessToken.split(separator: ".").last ?? "")
        #expect(try !JWSCheck.verifies(String(forged), with: jwk))
    }

    @Test("ps256-switch: PingFederate's PS256 signs with RSASSA-PSS; PKCS#1 v1.5 verification fails")
    func ps256() throws {
        var configuration = EmulatorConfiguration(layout: .pingFederate)
        configuration.signingAlgorithm = .ps256
        let (jwk, idToken, accessToken) = try signedTokens(configuration)
        #expect(jwk["kty"] == "RSA" && jwk["alg"] == "PS256")
        #expect(JWSCheck.parts(idToken).header?["alg"] == "PS256")
        #expect(try JWSCheck.verifies(idToken, with: jwk) && JWSCheck.verifies(accessToken, with: jwk))
        var asRS256 = jwk
        if case .object(var members) = jwk {
            members["alg"] = "RS256"
            asRS256 = .object(members)
        }
        #expect(try !JWSCheck.verifies(idToken, with: asRS256))
    }

    @Test("eddsa-switch: the old Ed25519 key (kty OKP) is still available")
    func edDSA() throws {
        var configuration = EmulatorConfiguration()
        configuration.signingAlgorithm = .edDSA
        let (jwk, idToken, _) = try signedTokens(configuration)
        #expect(jwk["kty"] == "OKP" && jwk["crv"] == "Ed25519" && jwk["alg"] == "EdDSA")
        #expect(JWSCheck.parts(idToken).header?["alg"] == "EdDSA")
        #expect(try JWSCheck.verifies(idToken, with: jwk))
    }

    @Test("at-jwt-switch: access tokens carry typ at+jwt (PingOne from March 2027); ID tokens keep JWT")
    func atJWT() throws {
        var configuration = EmulatorConfiguration()
        configuration.accessTokenType = "at+jwt"
        let (jwk, idToken, accessToken) = try signedTokens(configuration)
        #expect(JWSCheck.parts(accessToken).header?["typ"] == "at+jwt")
        #expect(JWSCheck.parts(idToken).header?["typ"] == "JWT")
        #expect(try JWSCheck.verifies(accessToken, with: jwk))
    }

    @Test("discovery-algs: PingOne lists RS256 only; PingFederate lists RS, ES and PS algorithms")
    func advertisedAlgorithms() throws {
        let pingOne = try withEmulator { try #require(http("GET", endpoint($0, .discovery)).json) }
        #expect(pingOne["id_token_signing_alg_values_supported"] == ["RS256"])
        let pingFederate = try withEmulator(.init(layout: .pingFederate)) { try #require(http("GET", endpoint($0, .discovery)).json) }
        let algs = pingFederate["id_token_signing_alg_values_supported"]?.arrayValue ?? []
        #expect(algs.contains("RS256") && algs.contains("ES256") && algs.contains("PS256"))
    }

    @Test("userinfo-verifies: an access token whose signature is not the emulator's is refused")
    func userinfoChecksTheSignature() throws {
        try withEmulator { emulator in
            let first = try #require(redeem(emulator, code: obtainCode(emulator)).json?["access_token"]?.stringValue)
            let second = try #require(redeem(emulator, code: obtainCode(emulator)).json?["access_token"]?.stringValue)
            let userinfo = { (token: String) throws -> Int in
                try http("GET", endpoint(emulator, .userinfo), headers: ["Authorization": "Bearer \(token)"]).status
            }
            #expect(try userinfo(first) == 200)
            let spliced = first.split(separator: ".").prefix(2).joined(separator: ".") + "." + (second.split(separator: ".").last ?? "")
            #expect(try userinfo(String(spliced)) == 401)
            // The emulator's own check agrees with openssl's.
            #expect(emulator.key.verify(first) != nil && emulator.key.verify(String(spliced)) == nil)
        }
    }

    @Test("rsa-key-cache: one RSA key per process, however many emulators start (key generation is slow)")
    func oneKeyPerProcess() throws {
        let first = try signedTokens(.init()).jwk
        let second = try signedTokens(.init(layout: .pingFederate)).jwk
        #expect(first["n"] == second["n"])
    }
}
