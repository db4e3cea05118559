import EmulatorHTTP
import Foundation

/// PingAM's Device Binding and Device Signing Verifier nodes, and its OATH Registration and OATH Token
/// Verifier nodes, as the seed documentation and AM's callbacks page describe them: the binding JWS
/// (header `alg`, `kid`, `jwk`; claims `sub`, `iss`, `iat`, `nbf`, `exp`, `challenge`, `platform`) is
/// verified against the key in its header and the key kept by its `kid`; a signing JWS (header `alg`,
/// `kid`) against the kept key. A `clientError` takes the node's failure.
extension JourneyNode {
    func deviceCallbacks(run: JourneyRun) -> [EmulatorJSON] {
        let texts: [(String, EmulatorJSON)] = [
            ("title", "Authentication required"), ("subtitle", "Cryptography device binding"),
            ("description", "Please complete with biometric to proceed"),
        ]
        switch self {
        case .deviceBinding(let type, let timeout):
            return [
                AMCallback.make(
                    "DeviceBindingCallback", position: 0,
                    output: [
                        ("userId", .string(run.user?.sub ?? "")), ("username", .string(run.user?.username ?? "")),
                        ("authenticationType", .string(type)), ("challenge", .string(run.challenge)),
                    ] + texts + [("timeout", .number(Double(timeout))), ("attestation", false)],
                    input: [("jws", ""), ("deviceName", ""), ("deviceId", ""), ("clientError", "")])
            ]
        case .deviceSigning(let timeout):
            return [
                AMCallback.make(
                    "DeviceSigningVerifierCallback", position: 0,
                    output: [("userId", .string(run.user?.sub ?? "")), ("challenge", .string(run.challenge))] + texts + [
                        ("timeout", .number(Double(timeout)))
                    ],
                    input: [("jws", ""), ("clientError", "")])
            ]
        case .oathRegistration(let issuer):
            let account = run.user?.username ?? "user"
            let uri =
                "otpauth://totp/\(issuer):\(account)?secret=\(run.oathSecret)&issuer=\(issuer)&period=30&digits=6&algorithm=SHA1&b=032b75"
            return [
                AMCallback.make(
                    "TextOutputCallback", position: 0,
                    output: [
                        (
                            "message",
                            "Scan the QR code image below with the ForgeRock Authenticator app to register your device with your login."
                        ),
                        ("messageType", "0"),
                    ]),
                AMCallback.make(
                    "TextOutputCallback", position: 1,
                    output: [("message", "window.QRCodeReader.createCode({id: 'callback_0', text: '…'});"), ("messageType", "4")]),
                AMCallback.make(
                    "HiddenValueCallback", position: 2, output: [("value", .string(uri)), ("id", "mfaDeviceRegistration")],
                    input: [("", "mfaDeviceRegistration")]),
                AMCallback.make(
                    "ConfirmationCallback", position: 3,
                    output: [("prompt", ""), ("messageType", 0), ("options", ["Next"]), ("optionType", -1), ("defaultOption", 0)],
                    input: [("", 0)]),
            ]
        case .oathVerifier(let prompt):
            return [AMCallback.make("NameCallback", position: 0, output: [("prompt", .string(prompt))], input: [("", "")])]
        default:
            return []
        }
    }
}

extension Emulator {
    /// A new challenge (or OATH secret) each time a device or registration node is shown.
    func prepareDeviceNode(_ node: JourneyNode, _ run: inout JourneyRun) {
        switch node {
        case .deviceBinding, .deviceSigning: run.challenge = Crypto.randomToken(32)
        case .oathRegistration: run.oathSecret = Self.base32(Crypto.randomBytes(20))
        case .webAuthnRegistration, .webAuthnAuthentication:
            run.webAuthnChallenge = Crypto.randomBytes(32)
            let sub = run.user?.sub
            run.credentials = state.withLock { Array($0.webAuthnCredentials.values) }.filter { $0.userSub == sub }
                .sorted { $0.created < $1.created }
        default: return
        }
    }

    /// What the answers to a device or OATH node do; nil for the other nodes.
    func evaluateDeviceNode(_ node: JourneyNode, _ inputs: [String: EmulatorJSON], run: JourneyRun, now: Double) -> NodeOutcome? {
        let clientError = inputs[AMCallback.inputName(0, "clientError")]?.stringValue ?? ""
        let jws = inputs[AMCallback.inputName(0, "jws")]?.stringValue ?? ""
        switch node {
        case .deviceBinding:
            guard clientError.isEmpty, let user = run.user, let device = verifyBinding(jws, user: user, run: run, now: now) else {
                return .fail
            }
            let named = BoundDevice(
                keyID: device.keyID, userSub: user.sub, algorithm: device.algorithm, jwk: device.jwk,
                deviceName: inputs[AMCallback.inputName(0, "deviceName")]?.stringValue ?? "",
                deviceID: inputs[AMCallback.inputName(0, "deviceId")]?.stringValue ?? "", created: now)
            state.withLock { $0.boundDevices[named.keyID] = named }
            return .advance(user: nil, then: [])
        case .deviceSigning:
            guard clientError.isEmpty, let sub = verifySignature(jws, run: run, now: now),
                let user = configuration.users.first(where: { $0.sub == sub })
            else { return .fail }
            return .advance(user: user, then: [])
        case .oathRegistration:
            guard let user = run.user, !run.oathSecret.isEmpty else { return .fail }
            let secret = run.oathSecret
            state.withLock { $0.oathSecrets[user.username] = secret }
            return .advance(user: nil, then: [])
        case .oathVerifier:
            guard let user = run.user, let code = inputs[AMCallback.inputName(0, "")]?.stringValue,
                let secret = state.withLock({ $0.oathSecrets[user.username] }) ?? user.totpSecret,
                OneTimeCode.verify(code, secret: secret, at: now)
            else { return .fail }
            return .advance(user: nil, then: [])
        default:
            return nil
        }
    }

    /// The binding JWS checked: its header's key verifies it, `sub` is the user, the challenge is this
    /// run's, `exp` is ahead and `iat`/`nbf` are not; the key id not bound yet.
    private func verifyBinding(_ jws: String, user: User, run: JourneyRun, now: Double) -> BoundDevice? {
        guard let (header, claims) = Self.verifiedParts(jws, jwk: nil), let keyID = header["kid"]?.stringValue,
            let jwk = header["jwk"]?.objectValue, let algorithm = header["alg"]?.stringValue,
            claims["sub"]?.stringValue == user.sub, Self.fresh(claims, challenge: run.challenge, now: now),
            claims["platform"]?.stringValue != nil, state.withLock({ $0.boundDevices[keyID] }) == nil
        else { return nil }
        return BoundDevice(keyID: keyID, userSub: user.sub, algorithm: algorithm, jwk: jwk, deviceName: "", deviceID: "")
    }

    /// The signing JWS checked against the key its `kid` names (bound to the run's user, when there is
    /// one); the signer's `sub`.
    private func verifySignature(_ jws: String, run: JourneyRun, now: Double) -> String? {
        guard let headerPart = jws.split(separator: ".").first, let headerBytes = Base64URL.decode(String(headerPart)),
            let header = EmulatorJSON.parse(Data(headerBytes))?.objectValue, header["jwk"] == nil,
            let keyID = header["kid"]?.stringValue, let device = state.withLock({ $0.boundDevices[keyID] }),
            header["alg"]?.stringValue == device.algorithm, run.user.map({ $0.sub == device.userSub }) ?? true,
            let (_, claims) = Self.verifiedParts(jws, jwk: device.jwk), claims["sub"]?.stringValue == device.userSub,
            Self.fresh(claims, challenge: run.challenge, now: now)
        else { return nil }
        return device.userSub
    }

    private static func fresh(_ claims: [String: EmulatorJSON], challenge: String, now: Double) -> Bool {
        guard claims["challenge"]?.stringValue == challenge, !challenge.isEmpty, claims["iss"]?.stringValue?.isEmpty == false,
            let exp = claims["exp"]?.numberValue, let iat = claims["iat"]?.numberValue, let nbf = claims["nbf"]?.numberValue
        else { return false }
        return now < exp && iat <= now + 60 && nbf <= now + 60
    }

    /// Header and claims of a compact JWS whose signature verifies under `jwk` (nil: the header's own `jwk`).
    private static func verifiedParts(
        _ jws: String, jwk given: [String: EmulatorJSON]?
    ) -> ([String: EmulatorJSON], [String: EmulatorJSON])? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]), let header = EmulatorJSON.parse(Data(headerBytes))?.objectValue,
            let claims = EmulatorJSON.parse(Data(claimBytes))?.objectValue, let algorithm = header["alg"]?.stringValue,
            let jwk = given ?? header["jwk"]?.objectValue
        else { return nil }
        let input = Array((parts[0] + "." + parts[1]).utf8)
        switch algorithm {
        case "ES256":
            guard ProofKey.verify(signature, of: input, jwk: jwk, alg: "ES256") else { return nil }
        case "RS512":
            guard let members = ProofKey.members(jwk, alg: "RS256"),
                let n = members.first(where: { $0.0 == "n" }).flatMap({ Base64URL.decode($0.1) }),
                let e = members.first(where: { $0.0 == "e" }).flatMap({ Base64URL.decode($0.1) }), n.count >= 256,
                let key = OpenSSLKey.publicKey(der: ProofKey.spki(n: n, e: e)), key.verify(signature, of: input, digest: 2, pss: false)
            else { return nil }
        default: return nil
        }
        return (header, claims)
    }

    /// RFC 4648 §6 base32, unpadded, as AM's registration URIs carry secrets.
    static func base32(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var output = ""
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return output
    }

    /// The keys device binding bound, for tests and the demo.
    public func boundDevices() -> [BoundDeviceRecord] {
        let users = configuration.users
        return state.withLock { $0.boundDevices.values.map { $0 } }.map { device in
            BoundDeviceRecord(
                keyID: device.keyID, username: users.first { $0.sub == device.userSub }?.username ?? "", algorithm: device.algorithm,
                deviceName: device.deviceName, deviceID: device.deviceID)
        }.sorted { $0.keyID < $1.keyID }
    }
}

extension Emulator {
    /// The OATH secret `username` registered through an OATH Registration node (base32), for tests.
    public func oathSecret(for username: String) -> String? { state.withLock { $0.oathSecrets[username] } }
}
