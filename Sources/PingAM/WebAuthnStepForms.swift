import PingBase
import PingCrypto
import PingWebAuthn

/// The two forms of a WebAuthn step read into `WebAuthnStep.Parts` (`reference/am-webauthn.md` §1–2).
extension WebAuthnStep.Parts {
    /// The metadata form's `data`: the `_…` members AM ≥ 7.1 sends, else the JSON texts and JavaScript
    /// fragments of earlier versions.
    init(metadata data: [String: JSONValue]) throws(JourneyError) {
        func string(_ name: String) -> String? { data[name]?.stringValue }
        let action = string("_action")
        let registration =
            action.map { $0 == "webauthn_registration" } ?? (data["pubKeyCredParams"] != nil || data["_pubKeyCredParams"] != nil)
        if let action, action != "webauthn_registration" && action != "webauthn_authentication" {
            throw Self.fail("_action is neither webauthn_registration nor webauthn_authentication")
        }
        guard let challengeText = string("challenge"), challengeText.utf8.count <= 4 * WebAuthnStep.maximumChallenge else {
            throw Self.fail("challenge is missing")
        }
        challenge = try Self.challenge(Sodium.decodeBase64(challengeText) ?? Base64URL.decode(challengeText))
        rpID = try Self.rpID(string("_relyingPartyId") ?? Self.fragmentHost(string("relyingPartyId")))
        timeout = Self.timeout(JourneyCallback.integer(data["timeout"]))
        json = data["supportsJsonResponse"]?.boolValue == true
        if registration {
            let selection = Self.object(data["_authenticatorSelection"] ?? data["authenticatorSelection"])
            userVerification = Self.userVerification(selection?["userVerification"]?.stringValue)
            ceremony = .registration(try Self.registration(data, selection: selection))
        } else {
            userVerification = Self.userVerification(string("userVerification"))
            let ids = try Self.credentials(data["_allowCredentials"], text: string("allowCredentials"), name: "allowCredentials")
            ceremony = .authentication(allowCredentials: ids)
        }
    }

    private static func registration(
        _ data: [String: JSONValue], selection: [String: JSONValue]?
    ) throws(JourneyError) -> WebAuthnStep.Registration {
        guard let userID = data["userId"]?.stringValue, (1...256).contains(userID.utf8.count) else {
            throw fail("userId is not 1 to 256 bytes")
        }
        guard let params = (data["_pubKeyCredParams"] ?? data["pubKeyCredParams"]).flatMap(array), params.count <= 32 else {
            throw fail("pubKeyCredParams is not a list of at most 32")
        }
        var numbers: [Int] = []
        for param in params {
            guard let object = param.objectValue, let alg = JourneyCallback.integer(object["alg"]) else {
                throw fail("pubKeyCredParams holds an entry without an alg")
            }
            if object["type"]?.stringValue ?? "public-key" == "public-key" { numbers.append(alg) }
        }
        let exclude = try credentials(
            data["_excludeCredentials"], text: data["excludeCredentials"]?.stringValue, name: "excludeCredentials")
        return WebAuthnStep.Registration(
            relyingPartyName: try text(data["relyingPartyName"]?.stringValue, "relyingPartyName"),
            userID: userID, userName: try text(data["userName"]?.stringValue, "userName"),
            displayName: try text(data["displayName"]?.stringValue, "displayName"), algorithms: algorithms(numbers),
            offered: numbers.count, attestation: data["attestationPreference"]?.stringValue ?? "none",
            attachment: (selection?["authenticatorAttachment"]?.stringValue).flatMap(AuthenticatorAttachment.init(rawValue:)),
            residentKey: selection?["requireResidentKey"]?.boolValue == true || selection?["residentKey"]?.stringValue == "required",
            excludeCredentials: exclude)
    }

    /// An object, or a JSON text holding one (at most 16 KiB).
    private static func object(_ value: JSONValue?) -> [String: JSONValue]? {
        if let object = value?.objectValue { return object }
        guard let text = value?.stringValue, text.utf8.count <= 16 * 1024 else { return nil }
        return JSONValue.parseObject(Array(text.utf8))
    }

    /// An array, or a JSON text holding one (at most 16 KiB).
    private static func array(_ value: JSONValue) -> [JSONValue]? {
        if let array = value.arrayValue { return array }
        guard let text = value.stringValue, text.utf8.count <= 16 * 1024 else { return nil }
        return JSONReader.parse(Array(text.utf8))?.arrayValue
    }

    /// The host in a fragment such as `rpId: "example.com",` or `id: "example.com",`, or a bare host.
    static func fragmentHost(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        guard text.containsText("\"") else { return text }
        let script = WebAuthnScriptText(text)
        return script.quoted(at: script.property("rpId", in: script.all) ?? script.property("id", in: script.all), limit: 253)
    }

    /// Credential ids: `[{type, id: [signed bytes]}]`, or the JavaScript text with `new Int8Array([…])`.
    private static func credentials(_ value: JSONValue?, text: String?, name: String) throws(JourneyError) -> [[UInt8]] {
        if let list = value?.arrayValue {
            guard list.count <= WebAuthnStep.maximumCredentials else {
                throw fail("\(name) has more than \(WebAuthnStep.maximumCredentials) entries")
            }
            var ids: [[UInt8]] = []
            for entry in list {
                guard let numbers = entry.objectValue?["id"]?.arrayValue, (1...1024).contains(numbers.count) else {
                    throw fail("\(name) holds an entry without an id")
                }
                var id: [UInt8] = []
                for number in numbers {
                    guard let value = JourneyCallback.integer(number), (-128...255).contains(value) else {
                        throw fail("\(name) holds an id that is not bytes")
                    }
                    id.append(UInt8(truncatingIfNeeded: value))
                }
                ids.append(id)
            }
            return ids
        }
        guard let text, !text.isEmpty else { return [] }
        guard text.utf8.count <= 256 * 1024 else { throw fail("\(name) is too long") }
        let script = WebAuthnScriptText(text)
        guard let ids = script.credentialIDs(in: script.all, limit: WebAuthnStep.maximumCredentials) else {
            throw fail("\(name) holds an id that is not a byte array")
        }
        return ids
    }

    /// The script form: AM's JavaScript with the options inline (`script-text.mock.data.ts`'s shapes).
    init(script text: String) throws(JourneyError) {
        let script = WebAuthnScriptText(text)
        let all = script.all
        challenge = try Self.challenge(script.byteArray(at: script.property("challenge", in: all), limit: WebAuthnStep.maximumChallenge))
        timeout = Self.timeout(script.integer(at: script.property("timeout", in: all)))
        if script.contains("navigator.credentials.create") {
            let selection = script.enclosed(at: script.property("authenticatorSelection", in: all))
            userVerification = Self.userVerification(selection.flatMap { script.quoted(at: script.property("userVerification", in: $0)) })
            rpID = try Self.rpID(
                script.enclosed(at: script.property("rp", in: all)).flatMap { script.quoted(at: script.property("id", in: $0), limit: 253) }
            )
            ceremony = .registration(try Self.registration(script, selection: selection))
        } else {
            userVerification = Self.userVerification(script.quoted(at: script.property("userVerification", in: all)))
            rpID = try Self.rpID(script.quoted(at: script.property("rpId", in: all), limit: 253))
            var list = script.enclosed(at: script.property("allowCredentials", in: all))
            if list == nil, script.contains("acceptableCredentials") {
                list = script.enclosed(at: script.property("acceptableCredentials", in: all))
            }
            guard let ids = list.map({ script.credentialIDs(in: $0, limit: WebAuthnStep.maximumCredentials) }) ?? [] else {
                throw Self.fail("allowCredentials holds an id that is not a byte array")
            }
            ceremony = .authentication(allowCredentials: ids)
        }
    }

    private static func registration(_ script: WebAuthnScriptText, selection: Range<Int>?) throws(JourneyError) -> WebAuthnStep.Registration
    {
        let all = script.all
        let rp = script.enclosed(at: script.property("rp", in: all))
        guard let user = script.enclosed(at: script.property("user", in: all)), let idStart = script.property("id", in: user),
            script.bytes[idStart...].starts(with: Array("Uint8Array.from(".utf8)),
            let userID = script.quoted(at: idStart + 16, limit: 256), !userID.isEmpty
        else { throw fail("user.id is not Uint8Array.from(\"…\")") }
        guard let params = script.enclosed(at: script.property("pubKeyCredParams", in: all)) else {
            throw fail("pubKeyCredParams is missing")
        }
        var numbers: [Int] = []
        var from = params.lowerBound
        while let start = script.property("alg", in: from..<params.upperBound), numbers.count < 32 {
            guard let alg = script.integer(at: start) else { throw fail("pubKeyCredParams holds an alg that is not a number") }
            numbers.append(alg)
            from = start
        }
        let excluded = script.enclosed(at: script.property("excludeCredentials", in: all))
        guard let exclude = excluded.map({ script.credentialIDs(in: $0, limit: WebAuthnStep.maximumCredentials) }) ?? [] else {
            throw fail("excludeCredentials holds an id that is not a byte array")
        }
        let attachment = selection.flatMap { script.quoted(at: script.property("authenticatorAttachment", in: $0)) }
        let resident =
            selection.map {
                script.literal(at: script.property("requireResidentKey", in: $0)) == true
                    || script.quoted(at: script.property("residentKey", in: $0)) == "required"
            } ?? false
        return WebAuthnStep.Registration(
            relyingPartyName: try text(rp.flatMap { script.quoted(at: script.property("name", in: $0)) }, "rp.name"), userID: userID,
            userName: try text(script.quoted(at: script.property("name", in: user)), "user.name"),
            displayName: try text(script.quoted(at: script.property("displayName", in: user)), "user.displayName"),
            algorithms: algorithms(numbers), offered: numbers.count,
            attestation: script.quoted(at: script.property("attestation", in: all)) ?? "none",
            attachment: attachment.flatMap(AuthenticatorAttachment.init(rawValue:)), residentKey: resident, excludeCredentials: exclude)
    }
}
