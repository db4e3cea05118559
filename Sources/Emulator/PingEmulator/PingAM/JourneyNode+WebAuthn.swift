import EmulatorHTTP
import Foundation

/// The pages of PingAM's WebAuthn Registration and Authentication nodes in both forms
/// (`reference/am-webauthn.md` §1–2, the shapes of `WebAuthnRegistrationNode.getScriptContext`,
/// `WebAuthnAuthenticationNode.getScriptContext` and their scripts).
extension JourneyNode {
    func webAuthnCallbacks(run: JourneyRun, credentials: [WebAuthnCredential]) -> [EmulatorJSON] {
        switch self {
        case .webAuthnRegistration(let settings):
            let page = settings.script ? [registrationScript(settings, run: run)] : [registrationMetadata(settings, run: run)]
            return Self.withOutcome(page, settings: settings, recovery: false)
        case .webAuthnAuthentication(let settings):
            let allowed = settings.residentKey ? [] : credentials.map(\.credentialID)
            let page =
                settings.script
                ? [authenticationScript(settings, run: run, allowed: allowed)]
                : [authenticationMetadata(settings, run: run, allowed: allowed)]
            return Self.withOutcome(page, settings: settings, recovery: settings.recoveryCodes)
        default:
            return []
        }
    }

    /// The page's options, then the `webAuthnOutcome` hidden value (and the recovery code button).
    private static func withOutcome(_ page: [EmulatorJSON], settings: WebAuthnNodeSettings, recovery: Bool) -> [EmulatorJSON] {
        var callbacks = page
        if settings.script {
            callbacks.append(
                AMCallback.make(
                    "TextOutputCallback", position: callbacks.count,
                    output: [("message", "/* spinner */ document.getElementById('loader').style.display = 'block';"), ("messageType", "4")])
            )
        }
        callbacks.append(
            AMCallback.make(
                "HiddenValueCallback", position: callbacks.count, output: [("value", "false"), ("id", "webAuthnOutcome")],
                input: [("", "webAuthnOutcome")]))
        if recovery {
            callbacks.append(
                AMCallback.make(
                    "ConfirmationCallback", position: callbacks.count,
                    output: [
                        ("prompt", ""), ("messageType", 0), ("options", ["Use Recovery Code"]), ("optionType", -1), ("defaultOption", 100),
                    ],
                    input: [("", 100)]))
        }
        return callbacks
    }

    /// The Recovery Code Display node's script (the shape the JavaScript SDK's `FRRecoveryCodes` reads).
    static func recoveryCodesScript(_ codes: [String], deviceName: String) -> String {
        var lines = [
            "var newLocation = document.getElementById(\"wrapper\");",
            "var oldHtml = newLocation.getElementsByTagName(\"fieldset\")[0].innerHTML;",
            "newLocation.getElementsByTagName(\"fieldset\")[0].innerHTML = \"<div class=\\\"panel panel-default\\\">\\n\" +",
            "    \"        <h3>Your Recovery Codes</h3>\\n\" +",
            "    \"        <h4>You must make a copy of these WebAuthn authenticator recovery codes. They cannot be displayed again.</h4>\\n\" +",
        ]
        for code in codes {
            lines += ["    \"<div class=\\\"text-center\\\">\\n\" +", "    \"\(code)\\n\" +", "    \"</div>\\n\" +"]
        }
        lines.append(
            "    \"        <p>Use one of these codes to authenticate if you lose your device, which has been named: <em>\(deviceName)</em></p>\\n\" +"
        )
        lines.append("    \"</div>\" + oldHtml;\ndocument.body.appendChild(newLocation);")
        return lines.joined(separator: "\n")
    }

    static func signedList(_ bytes: [UInt8]) -> String { bytes.map { String(Int8(bitPattern: $0)) }.joined(separator: ", ") }

    /// The `allowCredentials: [...]` member of AM's options, each credential an `Int8Array` (the member
    /// names quoted with `quote`, as the metadata's text has them, or not, as the script's), after
    /// `before`; empty when none is allowed (usernameless).
    static func allowCredentials(_ allowed: [[UInt8]], quote: String, before: String) -> String {
        guard !allowed.isEmpty else { return "" }
        let items = allowed.map {
            "{ \(quote)type\(quote): \"public-key\", \(quote)id\(quote): new Int8Array([\(signedList($0))]).buffer }"
        }
        return before + "allowCredentials: [" + items.joined(separator: ",") + "]"
    }

    private static func userID(_ run: JourneyRun) -> String { Base64URL.encode(Array((run.user?.username ?? "").utf8)) }

    private func registrationMetadata(_ settings: WebAuthnNodeSettings, run: JourneyRun) -> EmulatorJSON {
        var selection: [String: EmulatorJSON] = ["userVerification": .string(settings.userVerification)]
        if let attachment = settings.attachment { selection["authenticatorAttachment"] = .string(attachment) }
        if settings.residentKey {
            selection["residentKey"] = "required"
            selection["requireResidentKey"] = true
        }
        let params = EmulatorJSON.array(settings.algorithms.map { ["type": "public-key", "alg": .number(Double($0))] })
        var data: [String: EmulatorJSON] = [
            "challenge": .string(Data(run.webAuthnChallenge).base64EncodedString()), "attestationPreference": .string(settings.attestation),
            "userName": .string(run.user?.username ?? ""), "userId": .string(Self.userID(run)), "relyingPartyName": "ForgeRock",
            "authenticatorSelection": .string(EmulatorJSON.object(selection).serialized), "pubKeyCredParams": .string(params.serialized),
            "timeout": "60000", "excludeCredentials": "", "displayName": .string(run.user?.username ?? ""),
            "relyingPartyId": .string(settings.rpID.map { "id: \"\($0)\"," } ?? ""), "extensions": [:],
        ]
        if settings.version != "7.0" {
            data["_action"] = "webauthn_registration"
            data["_type"] = "WebAuthn"
            data["_authenticatorSelection"] = .object(selection)
            data["_pubKeyCredParams"] = params
            data["_excludeCredentials"] = []
            data["_relyingPartyId"] = .string(settings.rpID ?? "")
        }
        if settings.version.hasPrefix("8") { data["supportsJsonResponse"] = true }
        return AMCallback.make("MetadataCallback", position: 0, output: [("data", .object(data))])
    }

    private func authenticationMetadata(_ settings: WebAuthnNodeSettings, run: JourneyRun, allowed: [[UInt8]]) -> EmulatorJSON {
        let text = Self.allowCredentials(allowed, quote: "\"", before: "")
        var data: [String: EmulatorJSON] = [
            "challenge": .string(Data(run.webAuthnChallenge).base64EncodedString()), "allowCredentials": .string(text),
            "timeout": "60000", "userVerification": .string(settings.userVerification),
            "relyingPartyId": .string(settings.rpID.map { "rpId: \"\($0)\"," } ?? ""),
        ]
        if settings.version != "7.0" {
            data["_action"] = "webauthn_authentication"
            data["_type"] = "WebAuthn"
            data["_allowCredentials"] = .array(
                allowed.map { ["type": "public-key", "id": .array($0.map { .number(Double(Int8(bitPattern: $0))) })] })
            data["_relyingPartyId"] = .string(settings.rpID ?? "")
        }
        if settings.version.hasPrefix("8") { data["supportsJsonResponse"] = true }
        return AMCallback.make("MetadataCallback", position: 0, output: [("data", .object(data))])
    }

    private func registrationScript(_ settings: WebAuthnNodeSettings, run: JourneyRun) -> EmulatorJSON {
        let user = run.user?.username ?? ""
        var selection = "{\"userVerification\":\"\(settings.userVerification)\""
        if let attachment = settings.attachment { selection += ",\"authenticatorAttachment\":\"\(attachment)\"" }
        if settings.residentKey { selection += ",\"residentKey\":\"required\",\"requireResidentKey\":true" }
        selection += "}"
        let params = settings.algorithms.map { "{ \"type\": \"public-key\", \"alg\": \($0) }" }.joined(separator: ", ")
        let script = """
            if (!window.PublicKeyCredential) {
                document.getElementById('webAuthnOutcome').value = "unsupported";
                document.getElementById("loginButton_0").click();
            }

            var publicKey = {
                challenge: new Int8Array([\(Self.signedList(run.webAuthnChallenge))]).buffer,
                // Relying Party:
                rp: {
                    \(settings.rpID.map { "id: \"\($0)\",\n        " } ?? "")name: "ForgeRock"
                },
                // User:
                user: {
                    id: Uint8Array.from("\(Self.userID(run))", function (c) { return c.charCodeAt(0) }),
                    name: "\(user)",
                    displayName: "\(user)"
                },
                pubKeyCredParams: [ \(params) ],
                attestation: "\(settings.attestation)",
                timeout: 60000,
                excludeCredentials: [],
                authenticatorSelection: \(selection)
            };

            navigator.credentials.create({publicKey: publicKey})
                .then(function (newCredentialInfo) {
                    var rawId = newCredentialInfo.id;
                    var clientData = String.fromCharCode.apply(null, new Uint8Array(newCredentialInfo.response.clientDataJSON));
                    var keyData = new Int8Array(newCredentialInfo.response.attestationObject).toString();
                    document.getElementById('webAuthnOutcome').value = clientData + "::" + keyData + "::" + rawId;
                    document.getElementById("loginButton_0").click();
                }).catch(function (err) {
                    document.getElementById('webAuthnOutcome').value = "ERROR" + "::" + err;
                    document.getElementById("loginButton_0").click();
                });
            """
        return AMCallback.make("TextOutputCallback", position: 0, output: [("message", .string(script)), ("messageType", "4")])
    }

    private func authenticationScript(_ settings: WebAuthnNodeSettings, run: JourneyRun, allowed: [[UInt8]]) -> EmulatorJSON {
        let allow = Self.allowCredentials(allowed, quote: "", before: ",\n    ")
        let script = """
            if (!window.PublicKeyCredential) {
               document.getElementById('webAuthnOutcome').value = "unsupported";
               document.getElementById("loginButton_0").click();
            }

            var options = {
               \(settings.rpID.map { "rpId: \"\($0)\",\n   " } ?? "")challenge: new Int8Array([\(Self.signedList(run.webAuthnChallenge))]).buffer,
               timeout: 60000,
               userVerification: "\(settings.userVerification)"\(allow)
            };

            navigator.credentials.get({ "publicKey" : options })
               .then(function (assertion) {
                   var clientData = String.fromCharCode.apply(null, new Uint8Array(assertion.response.clientDataJSON));
                   var authenticatorData = new Int8Array(assertion.response.authenticatorData).toString();
                   var signature = new Int8Array(assertion.response.signature).toString();
                   var rawId = assertion.id;
                   var userHandle = String.fromCharCode.apply(null, new Uint8Array(assertion.response.userHandle));
                   document.getElementById('webAuthnOutcome').value = clientData + "::" + authenticatorData + "::" + signature + "::" + rawId + "::" + userHandle;
                   document.getElementById("loginButton_0").click();
               }).catch(function (err) {
                   document.getElementById('webAuthnOutcome').value = "ERROR" + "::" + err;
                   document.getElementById("loginButton_0").click();
               });
            """
        return AMCallback.make("TextOutputCallback", position: 0, output: [("message", .string(script)), ("messageType", "4")])
    }
}
