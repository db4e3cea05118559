import Testing

@testable import PingAM
@testable import PingBase
@testable import PingCrypto
@testable import PingHTTP
@testable import PingWebAuthn

/// The WebAuthn step's gate, the answer AM reads, clientDataJSON and the RP id rule.
@Suite("WebAuthn: the step gate, the outcome, client data, the RP id rule")
struct WebAuthnTests {
    /// A page with `data` in a MetadataCallback and the outcome's hidden value.
    static func page(_ data: String, outcome: Bool = true) throws(JourneyError) -> JourneyResponse {
        let hidden = """
            ,{"type":"HiddenValueCallback","output":[{"name":"value","value":"false"},{"name":"id","value":"webAuthnOutcome"}],"input":[{"name":"IDToken2","value":"webAuthnOutcome"}]}
            """
        let body = """
            {"authId":"a.b.c","callbacks":[{"type":"MetadataCallback","output":[{"name":"data","value":\(data)}]}\(outcome ? hidden : "")]}
            """
        return try JourneyResponse.process(HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(body.utf8)))
    }

    static let challenge = "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="

    @Test(
        "webauthn-step-malformed: a WebAuthn page with a bad challenge, an RP id that is not a host, or no outcome is refused (journey-malformed)"
    )
    func malformed() {
        let cases = [
            #"{"_action":"webauthn_authentication","_type":"WebAuthn","challenge":"not base64!","_allowCredentials":[]}"#,
            #"{"_action":"webauthn_authentication","_type":"WebAuthn","challenge":"AAAA","_allowCredentials":[]}"#,
            #"{"_action":"webauthn_authentication","_type":"WebAuthn","challenge":"\#(Self.challenge)","_relyingPartyId":"https://x.example/"}"#,
            #"{"_action":"webauthn_authentication","_type":"WebAuthn","challenge":"\#(Self.challenge)","_allowCredentials":[{"id":[1,999]}]}"#,
            #"{"_action":"webauthn_registration","_type":"WebAuthn","challenge":"\#(Self.challenge)","userId":"","_pubKeyCredParams":[]}"#,
            #"{"_action":"webauthn_other","_type":"WebAuthn","challenge":"\#(Self.challenge)"}"#,
        ]
        for data in cases {
            #expect(throws: JourneyError.self, "\(data)") { _ = try Self.page(data) }
            do { _ = try Self.page(data) } catch { #expect(error.rule == .journeyMalformed) }
        }
        #expect(throws: JourneyError.self) {
            _ = try Self.page(#"{"_action":"webauthn_authentication","_type":"WebAuthn","challenge":"\#(Self.challenge)"}"#, outcome: false)
        }
    }

    @Test("webauthn-outcome: the :: string with signed bytes and base64url, the JSON form, ERROR:: and unsupported")
    func outcome() {
        let registration = WebAuthnOutcome.registration(
            clientDataJSON: Array("{}".utf8), attestationObject: [0xA3, 0x01, 0x7F, 0x80], credentialID: [0xFB, 0xFF],
            deviceName: "pingcli on a::b", attachment: .platform)
        #expect(registration.value(json: false) == "{}::-93,1,127,-128::-_8::pingcli on a:b")
        #expect(
            registration.value(json: true)
                == #"{"authenticatorAttachment":"platform","legacyData":"{}::-93,1,127,-128::-_8::pingcli on a:b"}"#)
        let assertion = WebAuthnOutcome.assertion(
            clientDataJSON: Array("c".utf8), authenticatorData: [1], signature: [0xFF], credentialID: [1], userHandle: Array("dXNlcg".utf8),
            attachment: .platform)
        #expect(assertion.value(json: false) == "c::1::-1::AQ::dXNlcg")
        #expect(WebAuthnOutcome.error(name: "NotAllowedError", message: "no").value(json: true) == "ERROR::NotAllowedError:no")
        #expect(WebAuthnOutcome.unsupported.value(json: true) == "unsupported")
    }

    @Test("webauthn-client-data: type, the challenge in base64url without padding, the origin, crossOrigin false, in that order")
    func clientData() {
        let json = String(
            decoding: ClientData.json(.create, challenge: [0xFB, 0xFF, 0xFE], origin: "https://am.example.com"), as: UTF8.self)
        #expect(json == #"{"type":"webauthn.create","challenge":"-__-","origin":"https://am.example.com","crossOrigin":false}"#)
    }

    @Test(
        "webauthn-rp-id: the origin's host or a registrable suffix of it; never a public suffix, another domain, or a guess without the list"
    )
    func relyingPartyRule() {
        let list = PublicSuffixList(Array("// comment\ncom\nuk\nco.uk\n*.ck\n!www.ck\n".utf8))
        func ok(_ rp: String, _ host: String, _ suffixes: PublicSuffixList? = list) -> Bool {
            (try? RelyingPartyRule.check(rpID: rp, host: host, suffixes: suffixes)) != nil
        }
        #expect(ok("login.example.co.uk", "login.example.co.uk") && ok("example.co.uk", "login.example.co.uk"))
        #expect(!ok("co.uk", "login.example.co.uk") && !ok("uk", "login.example.co.uk") && !ok("example.org", "login.example.com"))
        #expect(!ok("ample.com", "login.example.com") && !ok("example.com", "login.example.com", nil) && ok("127.0.0.1", "127.0.0.1"))
        #expect(!ok("foo.ck", "a.foo.ck") && ok("www.ck", "a.www.ck") && !ok("https://example.com", "example.com"))
        #expect(list.isPublicSuffix("com") && list.isPublicSuffix("anything") && !list.isPublicSuffix("example.com"))
    }

    @Test("webauthn-cbor-attestation: authenticator data and a none attestation object in CTAP2 canonical CBOR, read back")
    func attestationObject() throws {
        let key = COSEKey.es256(x: [UInt8](repeating: 1, count: 32), y: [UInt8](repeating: 2, count: 32))
        // RFC 8152 / CTAP2 canonical order: 1, 3, -1, -2, -3.
        #expect(Array(key.encoded().prefix(7)) == [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01])
        let data = AuthenticatorData(
            rpID: "example.com", flags: AuthenticatorData.userPresent | AuthenticatorData.userVerified, signCount: 1,
            attested: .init(credentialID: [9, 9], publicKey: key))
        #expect(data.bytes.count == 37 + 16 + 2 + 2 + key.encoded().count && data.bytes[32] == 0x45)
        let object = try CBOR.decode(AttestationObject.none(authenticatorData: data.bytes))
        #expect(object["fmt"] == .text("none") && object["attStmt"] == .map([]) && object["authData"] == .bytes(data.bytes))
    }
}
