import EmulatorHTTP
import Foundation

/// What PingAM's WebAuthn nodes check of the `webAuthnOutcome` (`reference/am-webauthn.md` §3, §5;
/// `RegisterFlow.accept`, `AuthenticationFlow.accept`): the client data's type, challenge (base64url) and
/// origin (the node's origin domains, else the request's `Origin` header), the RP id hash, UP and (when
/// required) UV, the attested credential data and attestation `none` or `packed` self attestation at
/// registration, the credential's owner, its signature (ES256, DER) and counter at authentication.
/// `unsupported` and `ERROR::…` take the node's Client Error or Unsupported outcome.
extension Emulator {
    func evaluateWebAuthnNode(
        _ node: JourneyNode, _ inputs: [String: EmulatorJSON], run: inout JourneyRun, origin: String?, now: Double
    ) -> NodeOutcome? {
        let settings: WebAuthnNodeSettings
        let registering: Bool
        switch node {
        case .webAuthnRegistration(let s): (settings, registering) = (s, true)
        case .webAuthnAuthentication(let s): (settings, registering) = (s, false)
        case .recoveryCode: return recoveryCode(inputs[AMCallback.inputName(0, "")]?.stringValue ?? "", run: run)
        default: return nil
        }
        let outcomePosition = settings.script ? 2 : 1
        if !registering && settings.recoveryCodes, inputs[AMCallback.inputName(outcomePosition + 1, "")]?.indexValue == 0 {
            return .advance(user: nil, then: [.recoveryCode])
        }
        var value = inputs[AMCallback.inputName(outcomePosition, "")]?.stringValue ?? ""
        state.withLock { $0.webAuthnAnswers.append(value) }
        if value.hasPrefix("{"), let object = EmulatorJSON.parse(Data(value.utf8))?.objectValue {
            if let error = object["error"]?.stringValue {
                value = "ERROR::" + error
            } else {
                value = object["legacyData"]?.stringValue ?? ""
            }
        }
        if value.isEmpty || value == "webAuthnOutcome" { return .again(failedPolicies: []) }
        if value == "unsupported" || value.hasPrefix("ERROR::") {
            return settings.onError.isEmpty ? .fail : .advance(user: nil, then: settings.onError)
        }
        let parts = value.components(separatedBy: "::")
        let check = WebAuthnCheck(
            settings: settings, challenge: run.webAuthnChallenge, origin: origin, host: URL(string: baseURL)?.host ?? "127.0.0.1")
        if registering {
            guard let user = run.user, (3...4).contains(parts.count), let credential = check.registration(parts, user: user, now: now)
            else { return .fail }
            state.withLock { $0.webAuthnCredentials[Base64URL.encode(credential.credentialID)] = credential }
            guard settings.recoveryCodes else { return .advance(user: nil, then: []) }
            // "Generate recovery codes": ten codes, shown once by the display node that follows.
            let codes = (0..<10).map { _ in String(Base64URL.encode(Crypto.randomBytes(8)).filter { $0.isLetter || $0.isNumber }.prefix(10))
            }
            state.withLock { $0.recoveryCodes[user.username] = codes }
            run.recoveryCodes = codes
            run.deviceName = credential.deviceName.isEmpty ? "New Security Key" : credential.deviceName
            return .advance(user: nil, then: [.recoveryCodesDisplay])
        }
        return authenticate(parts, settings: settings, check: check, run: run)
    }

    /// An assertion of one of the user's credentials (usernameless: of the user its user handle names).
    private func authenticate(_ parts: [String], settings: WebAuthnNodeSettings, check: WebAuthnCheck, run: JourneyRun) -> NodeOutcome {
        guard (4...5).contains(parts.count), let id = Base64URL.decode(parts[3]),
            var credential = state.withLock({ $0.webAuthnCredentials[Base64URL.encode(id)] })
        else { return .fail }
        // Username from device: the fifth field is base64url of the user's name; else the user is known.
        let owner: User?
        if settings.residentKey {
            let name = parts.count == 5 ? Base64URL.decode(parts[4]).flatMap { String(bytes: $0, encoding: .utf8) } : nil
            owner = configuration.users.first { $0.username == name }
        } else {
            owner = run.user
        }
        guard let owner, owner.sub == credential.userSub, let count = check.assertion(parts, credential: credential) else { return .fail }
        credential.signCount = count
        let stored = credential
        state.withLock { $0.webAuthnCredentials[Base64URL.encode(stored.credentialID)] = stored }
        return .advance(user: owner, then: [])
    }

    /// A recovery code of the run's user, used up.
    private func recoveryCode(_ code: String, run: JourneyRun) -> NodeOutcome {
        guard let user = run.user else { return .fail }
        let used = state.withLock { s -> Bool in
            guard let index = s.recoveryCodes[user.username]?.firstIndex(of: code) else { return false }
            s.recoveryCodes[user.username]?.remove(at: index)
            return true
        }
        return used ? .advance(user: nil, then: []) : .fail
    }

    /// The unused recovery codes of `username`, for tests.
    public func recoveryCodes(for username: String) -> [String] { state.withLock { $0.recoveryCodes[username] ?? [] } }

    /// The credentials WebAuthn registration registered, for tests and the demo.
    public func webAuthnCredentials() -> [WebAuthnCredentialRecord] {
        let users = configuration.users
        return state.withLock { Array($0.webAuthnCredentials.values) }.map { credential in
            WebAuthnCredentialRecord(
                credentialID: Base64URL.encode(credential.credentialID), uuid: credential.uuid,
                username: users.first { $0.sub == credential.userSub }?.username ?? "", signCount: credential.signCount,
                deviceName: credential.deviceName, rpID: credential.rpID)
        }.sorted { $0.credentialID < $1.credentialID }
    }

    /// Every `webAuthnOutcome` posted, as received, for tests.
    public func webAuthnAnswers() -> [String] { state.withLock { $0.webAuthnAnswers } }
}

/// The checks of one answer, independent of pingcli's own code.
struct WebAuthnCheck {
    let settings: WebAuthnNodeSettings
    let challenge: [UInt8]
    let origin: String?
    let host: String

    var rpID: String {
        if let rpID = settings.rpID { return rpID }
        if let origin, let host = URL(string: origin)?.host { return host }
        return host
    }

    static func bytes(_ list: String) -> [UInt8]? {
        var out: [UInt8] = []
        for part in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let value = Int8(part.trimmingCharacters(in: .whitespaces)) else { return nil }
            out.append(UInt8(bitPattern: value))
        }
        return out
    }

    /// The client data: type, challenge (base64url, no other alphabet), an origin the node permits.
    func clientData(_ text: String, type: String) -> Bool {
        guard let object = EmulatorJSON.parse(Data(text.utf8))?.objectValue, object["type"]?.stringValue == type,
            let sent = object["challenge"]?.stringValue, !sent.contains("+"), !sent.contains("/"), !sent.contains("="),
            Base64URL.decode(sent) == challenge, let claimed = object["origin"]?.stringValue
        else { return false }
        let permitted = settings.origins.isEmpty ? [origin].compactMap { $0 } : settings.origins
        return permitted.contains(claimed)
    }

    /// The flags and RP id hash of authenticator data.
    func flagsOK(_ data: [UInt8], attested: Bool) -> Bool {
        guard data.count >= 37, Array(data[0..<32]) == Crypto.sha256(Array(rpID.utf8)) else { return false }
        let flags = data[32]
        guard flags & 0x01 != 0, flags & 0x40 != 0 || !attested, attested || flags & 0x40 == 0 else { return false }
        return settings.userVerification != "required" || flags & 0x04 != 0
    }

    func registration(_ parts: [String], user: User, now: Double) -> WebAuthnCredential? {
        guard clientData(parts[0], type: "webauthn.create"), let attestation = Self.bytes(parts[1]),
            let (object, used) = EmuCBOR.decode(attestation), used == attestation.count, let format = object[.text("fmt")]?.text,
            let statement = object[.text("attStmt")], let data = object[.text("authData")]?.bytes, flagsOK(data, attested: true),
            data.count >= 55
        else { return nil }
        let idLength = Int(data[53]) << 8 | Int(data[54])
        guard data.count >= 55 + idLength else { return nil }
        let credentialID = Array(data[55..<(55 + idLength)])
        guard let (key, keyLength) = EmuCBOR.decode(data, at: 55 + idLength), 55 + idLength + keyLength == data.count,
            key[.int(1)]?.integer == 2, key[.int(3)]?.integer == -7, key[.int(-1)]?.integer == 1, let x = key[.int(-2)]?.bytes,
            let y = key[.int(-3)]?.bytes, x.count == 32, y.count == 32, Base64URL.decode(parts[2]) == credentialID
        else { return nil }
        switch format {
        case "none":
            guard settings.attestation != "direct", statement == .map([]) else { return nil }
        case "packed":
            guard statement[.text("x5c")] == nil, statement[.text("alg")]?.integer == -7, let signature = statement[.text("sig")]?.bytes,
                Self.verify(signature, of: data + Crypto.sha256(Array(parts[0].utf8)), x: x, y: y)
            else { return nil }
        default: return nil
        }
        return WebAuthnCredential(
            credentialID: credentialID, uuid: UUID().uuidString.lowercased(), userSub: user.sub, x: x, y: y,
            signCount: UInt32(data[33]) << 24 | UInt32(data[34]) << 16 | UInt32(data[35]) << 8 | UInt32(data[36]),
            deviceName: parts.count == 4 ? parts[3] : "", rpID: rpID, created: now)
    }

    /// The assertion's new counter when it verifies; nil otherwise.
    func assertion(_ parts: [String], credential: WebAuthnCredential) -> UInt32? {
        guard clientData(parts[0], type: "webauthn.get"), let data = Self.bytes(parts[1]), data.count == 37,
            flagsOK(data, attested: false), let signature = Self.bytes(parts[2]),
            Self.verify(signature, of: data + Crypto.sha256(Array(parts[0].utf8)), x: credential.x, y: credential.y)
        else { return nil }
        let count = UInt32(data[33]) << 24 | UInt32(data[34]) << 16 | UInt32(data[35]) << 8 | UInt32(data[36])
        // A counter that does not move forward is a cloned authenticator (WebAuthn Level 2 §6.1.1).
        guard count > credential.signCount || (count == 0 && credential.signCount == 0) else { return nil }
        return count
    }

    /// An ES256 signature as ASN.1 DER (AM checks the DER shape), verified with the P-256 key.
    static func verify(_ der: [UInt8], of message: [UInt8], x: [UInt8], y: [UInt8]) -> Bool {
        guard der.first == 0x30, let key = OpenSSLKey.publicKey(der: ProofKey.spki(ecX: x, y: y)) else { return false }
        return key.verify(der, of: message, digest: 0, pss: false)
    }
}
