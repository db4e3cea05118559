import PingAM
import PingBase
import PingCrypto
import PingHTTP
import PingWebAuthn

extension FuzzEntryPoints {
    /// The WebAuthn step gate, both forms: the first byte chooses the form (even: the bytes after it are a
    /// `MetadataCallback`'s `data`; odd: the script of a `messageType` 4 `TextOutputCallback`), put on a
    /// page with the `webAuthnOutcome` hidden value (and a recovery button) and read through
    /// `JourneyResponse.process`. Invariants (a violation traps): a step read has a challenge of 16 to
    /// 1024 bytes, at most 64 credential ids of 1 to 1024 bytes each, an RP id that is a host name, a
    /// timeout within a second and ten minutes, and the outcome it leads to goes into the page's hidden
    /// value as a JSON string; the RP id rule never accepts a public suffix or another site's domain.
    public static func webAuthn(_ bytes: [UInt8]) {
        let body = Array(bytes.dropFirst())
        let text = String(decoding: body, as: UTF8.self)
        let options: JSONValue
        if (bytes.first ?? 0) % 2 == 0 {
            let data = JSONReader.parse(body) ?? .string(text)
            options = .object(["type": .string("MetadataCallback"), "output": .array([.object(["name": .string("data"), "value": data])])])
        } else {
            options = .object([
                "type": .string("TextOutputCallback"),
                "output": .array([
                    .object(["name": .string("message"), "value": .string(text)]),
                    .object(["name": .string("messageType"), "value": .string("4")]),
                ]),
            ])
        }
        let hidden = JSONValue.object([
            "type": .string("HiddenValueCallback"),
            "output": .array([
                .object(["name": .string("value"), "value": .string("false")]),
                .object(["name": .string("id"), "value": .string("webAuthnOutcome")]),
            ]),
            "input": .array([.object(["name": .string("IDToken2"), "value": .string("webAuthnOutcome")])]),
        ])
        let page = JSONValue.object(["authId": .string("a.b.c"), "callbacks": .array([options, hidden])])
        let response = HTTPResponse(
            status: 200, headers: ["content-type": "application/json"], body: Array(page.rendered(pretty: false).utf8))
        guard case .step(let step)? = try? JourneyResponse.process(response), let request = step.webAuthn else { return }
        precondition((16...1024).contains(request.challenge.count))
        precondition((1000...600_000).contains(request.timeout))
        if let rpID = request.rpID { precondition(RelyingPartyRule.hostName(rpID) == rpID) }
        let ids: [[UInt8]]
        switch request.ceremony {
        case .registration(let registration): ids = registration.excludeCredentials
        case .authentication(let allowed): ids = allowed
        }
        precondition(ids.count <= 64 && ids.allSatisfy { (1...1024).contains($0.count) })
        let outcome = WebAuthnOutcome.assertion(
            clientDataJSON: ClientData.json(.get, challenge: request.challenge, origin: "https://am.example.com"), authenticatorData: [1],
            signature: [0x80], credentialID: ids.first ?? [1], userHandle: Array(text.utf8.prefix(64)), attachment: .platform)
        let value = outcome.value(json: request.supportsJSONResponse)
        let answered = step.body(answers: [request.outcomePosition: [.string(value)]])
        precondition(JSONValue.parseObject(answered) != nil)
        if let rpID = request.rpID {
            precondition(
                (try? RelyingPartyRule.check(rpID: rpID, host: "login.example.co.uk", suffixes: fuzzSuffixes)) == nil
                    || rpID == "example.co.uk" || rpID == "login.example.co.uk")
        }
    }

    private static let fuzzSuffixes = PublicSuffixList(Array("uk\nco.uk\n*.ck\n!www.ck\ncom\n".utf8))
}
