import Testing

@testable import PingCrypto
@testable import PingOAuth
@testable import PingPlatform

/// RFC 8705 pieces that need no server: the alias gate, the method choice, the certificate reader,
/// the pin gate.
@Suite("mutual TLS and key pins (RFC 8705, CURLOPT_PINNEDPUBLICKEY)")
struct MutualTLSUnitTests {
    let issuer = "https://auth.example.com/as"

    @Test("mtls-aliases: the aliases of discovery replace the plain endpoints for a client with a certificate; unknown members are ignored")
    func aliases() throws {
        let document = discoveryDocument(
            issuer: issuer,
            [
                "revocation_endpoint": "\"\(issuer)/revoke\"",
                "mtls_endpoint_aliases":
                    "{\"token_endpoint\":\"https://mtls.example.com/as/token\",\"revocation_endpoint\":\"https://mtls.example.com/as/revoke\",\"other\":7}",
            ])
        let metadata = try ProviderMetadata.process(document, expectedIssuer: issuer)
        #expect(metadata.tokenEndpoint.value == issuer + "/token", "the plain endpoint stays for clients without a certificate")
        let mutual = metadata.usingMutualTLSAliases()
        #expect(mutual.tokenEndpoint.value == "https://mtls.example.com/as/token")
        #expect(mutual.revocationEndpoint?.value == "https://mtls.example.com/as/revoke")
        #expect(mutual.userinfoEndpoint?.value == issuer + "/userinfo", "no alias: the plain endpoint")
    }

    @Test(
        "mtls-alias-gate: an alias goes through the URL gate and endpoint policy like any endpoint",
        arguments: ["\"http://mtls.example.com/token\"", "\"https://127.0.0.1/token\"", "7"])
    func aliasGate(value: String) {
        let document = discoveryDocument(issuer: issuer, ["mtls_endpoint_aliases": "{\"token_endpoint\":\(value)}"])
        #expect(throws: DiscoveryError.self) { try ProviderMetadata.process(document, expectedIssuer: issuer) }
        let notObject = discoveryDocument(issuer: issuer, ["mtls_endpoint_aliases": "[]"])
        #expect(throws: DiscoveryError.wrongType("mtls_endpoint_aliases")) {
            try ProviderMetadata.process(notObject, expectedIssuer: issuer)
        }
    }

    @Test("mtls-method: a self-signed certificate prefers self_signed_tls_client_auth, a CA's tls_client_auth; neither listed is refused")
    func methodChoice() {
        let both = ["client_secret_basic", "tls_client_auth", "self_signed_tls_client_auth"]
        #expect(ClientAuthMethod.chooseMutualTLS(from: both, selfSigned: true) == .selfSignedTLSClientAuth)
        #expect(ClientAuthMethod.chooseMutualTLS(from: both, selfSigned: false) == .tlsClientAuth)
        #expect(ClientAuthMethod.chooseMutualTLS(from: ["tls_client_auth"], selfSigned: true) == .tlsClientAuth)
        #expect(ClientAuthMethod.chooseMutualTLS(from: ["client_secret_basic"], selfSigned: false) == nil)
        let request = ClientCredentials(clientID: "machine", method: .tlsClientAuth).form(
            "https://a.example/token", [("grant_type", "client_credentials")])
        #expect(String(decoding: request.body ?? [], as: UTF8.self) == "grant_type=client_credentials&client_id=machine")
        #expect(!request.headers.contains { $0.name == "Authorization" })
    }

    @Test(
        "pin-gate: exactly sha256// and 44 characters of padded base64 holding 32 bytes",
        arguments: [
            ("sha256//" + String(repeating: "A", count: 43) + "=", true),
            ("sha256//" + String(repeating: "A", count: 43), false),
            ("SHA256//" + String(repeating: "A", count: 43) + "=", false),
            ("sha256//" + String(repeating: "A", count: 40) + "AA==", false),
            ("sha256//" + String(repeating: "A", count: 43) + "=;sha256//" + String(repeating: "A", count: 43) + "=", false),
            ("/etc/ssl/key.pem", false),
            ("sha256//" + String(repeating: "-", count: 43) + "=", false),
        ])
    func pinGate(text: String, valid: Bool) {
        #expect(((try? KeyPin(checking: text)) != nil) == valid, "\(text)")
    }

    @Test("pin-curl-value: several pins are joined with ; as CURLOPT_PINNEDPUBLICKEY takes them")
    func pinValue() throws {
        let one = try KeyPin(checking: "sha256//" + String(repeating: "A", count: 43) + "=")
        let two = try KeyPin(checking: "sha256//" + String(repeating: "B", count: 42) + "A=")
        #expect(KeyPin.curlValue([one, two]) == one.value + ";" + two.value)
    }

    @Test("x509-validity: UTCTime and GeneralizedTime of a certificate's validity read as seconds since 1970")
    func validityTimes() {
        func time(_ tag: UInt8, _ text: String) -> Double? {
            var reader = DERReader(ArraySlice([tag, UInt8(text.utf8.count)] + Array(text.utf8)))
            return reader.nextTime()
        }
        #expect(time(0x17, "200102000000Z") == 1_577_923_200)
        #expect(time(0x17, "491231235959Z") == 2_524_607_999)
        #expect(time(0x17, "500101000000Z") == -631_152_000)
        #expect(time(0x18, "20380119031408Z") == 2_147_483_648)
        #expect(time(0x17, "201302000000Z") == nil, "month 13")
        #expect(time(0x17, "2001020000Z") == nil, "too short")
        #expect(time(0x18, "200102000000Z") == nil, "GeneralizedTime needs four year digits")
    }

    @Test("x509-gate: a PEM without a certificate, or a block that is not DER, is refused")
    func certificateGate() {
        #expect(throws: ClientCertificateError.noCertificate) {
            try ClientCertificate(pem: Array("-----BEGIN PRIVATE KEY-----\nAA==\n".utf8))
        }
        #expect(throws: ClientCertificateError.notDER) {
            try ClientCertificate(pem: Array("-----BEGIN CERTIFICATE-----\nMAMCAQE=\n-----END CERTIFICATE-----\n".utf8))
        }
        #expect(throws: ClientCertificateError.notDER) {
            try ClientCertificate(pem: Array("-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n".utf8))
        }
    }

    @Test("mtls-binding: a token bound to another certificate is refused; an unbound one passes")
    func binding() throws {
        func token(_ payload: String) -> String { "eyJhbGciOiJSUzI1NiJ9." + Base64URL.encode(Array(payload.utf8)) + ".c2ln" }
        let thumbprint = Base64URL.encode([UInt8](repeating: 7, count: 32))
        #expect(CertificateBinding.thumbprint(ofAccessToken: token("{\"cnf\":{\"x5t#S256\":\"\(thumbprint)\"}}")) == thumbprint)
        #expect(CertificateBinding.thumbprint(ofAccessToken: token("{\"sub\":\"a\"}")) == nil)
        #expect(CertificateBinding.thumbprint(ofAccessToken: "opaque-token") == nil)
        #expect(throws: CertificateBinding.Failure.noCertificate(doing: "login")) {
            try CertificateBinding.verify(token("{\"cnf\":{\"x5t#S256\":\"\(thumbprint)\"}}"), certificate: nil, doing: "login")
        }
        #expect(CertificateBinding.Failure.noCertificate(doing: "login").rule == .certificateBinding)
        try CertificateBinding.verify(token("{\"sub\":\"a\"}"), certificate: nil, doing: "login")
    }
}
