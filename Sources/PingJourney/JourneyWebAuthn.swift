import PingAM
import PingAuthenticators
import PingBase
import PingCrypto
import PingFlowCore
import PingWebAuthn

/// A WebAuthn Registration or Authentication step answered in the terminal (`reference/am-webauthn.md`):
/// the RP id checked against the origin, clientDataJSON built, an authenticator chosen (this machine's
/// TPM or a security key), its answer or its failure written into `webAuthnOutcome` so the tree can
/// branch. Nothing secret (PIN, key, signature input) is shown or kept outside the TPM and the sealed store.
extension JourneyPrompter {
    package func webAuthn(_ step: JourneyStep, _ request: WebAuthnStep) throws(PingCLIError) -> [Int: [JSONValue]] {
        var answers: [Int: [JSONValue]] = [:]
        guard let outcomeCallback = step.callbacks.first(where: { $0.position == request.outcomePosition }) else { return answers }
        show(step.callbacks)
        guard let passkeys else {
            console.err("pingcli: this step asks for a passkey, and passkeys are not available here: telling the journey so.")
            answers[request.outcomePosition] = outcomeCallback.values(.text(WebAuthnOutcome.unsupported.value(json: false)))
            return answers
        }
        if let position = request.recoveryCodePosition, let confirmation = step.callbacks.first(where: { $0.position == position }),
            try menu("Sign in with", ["a passkey", "a recovery code"], 0) == 1
        {
            answers[position] = confirmation.values(.index(0))
            answers[request.outcomePosition] = outcomeCallback.values(.text(""))
            return answers
        }
        let rpID = try passkeys.rpID(request)
        let outcome: WebAuthnOutcome
        switch request.ceremony {
        case .registration(let registration): outcome = try register(request, registration, rpID: rpID, passkeys)
        case .authentication(let allowed): outcome = try authenticate(request, allowed, rpID: rpID, passkeys)
        }
        answers[request.outcomePosition] = outcomeCallback.values(.text(outcome.value(json: request.supportsJSONResponse)))
        return answers
    }

    /// The TPM as an authenticator, with this machine's passkeys; nil (and one line) when there is none.
    private func platform(_ passkeys: JourneyPasskeys, doing: String) throws(PingCLIError) -> TPMPlatformAuthenticator? {
        let access: TPM2.Access
        do { access = try passkeys.tpm.checked() } catch { throw error.cliError }
        let opened: TPM2.Session?
        do { opened = try TPM2.open(access) } catch { throw error.cliError(access, doing: doing) }
        guard let session = opened else { return nil }
        let cacheKey = try passkeys.key.get(create: true)
        let authenticator = TPMPlatformAuthenticator(passkeys: passkeys, session: session, cacheKey: cacheKey) { console.err($0) }
        if !passkeys.store.ids().isEmpty {
            let (records, failures) = try SealedAdvice.all(passkeys.store.readAll(key: cacheKey))
            for failure in failures { console.err("pingcli: skipping a passkey: \(failure.message)") }
            authenticator.candidates = records
        }
        return authenticator
    }

    private func register(
        _ request: WebAuthnStep, _ registration: WebAuthnStep.Registration, rpID: String, _ passkeys: JourneyPasskeys
    ) throws(PingCLIError) -> WebAuthnOutcome {
        let clientData = ClientData.json(.create, challenge: request.challenge, origin: passkeys.origin)
        let who = displaySafe(registration.userName.isEmpty ? registration.displayName : registration.userName, limit: 80)
        let key = registration.attachment == .platform ? nil : passkeys.securityKey?()
        let tpm =
            key == nil && registration.attachment != .crossPlatform ? try platform(passkeys, doing: "create a passkey in the TPM") : nil
        guard let authenticator: any WebAuthnAuthenticator = key ?? tpm else {
            let wanted =
                registration.attachment == .crossPlatform
                ? "a security key, and none is plugged in"
                : "a passkey, and this machine has no TPM pingcli can use (TPM2TOOLS_TCTI is unset and there is no /dev/tpmrm0 this user can open; pingcli does not fall back to software)"
            console.err("pingcli: this step registers \(wanted): telling the journey so.")
            restart.block("no authenticator can answer the journey's passkey step (walking the tree again would not make one appear)")
            return .error(name: "NotAllowedError", message: "no authenticator is available")
        }
        console.err(
            "pingcli: registering a passkey for \(who) at \(displaySafe(rpID, limit: 100)) with \(tpm != nil ? "this machine's TPM" : "your security key")."
        )
        tpm?.attestation = registration.attestation
        let creation = CredentialCreationRequest(
            clientDataHash: Sodium.sha256(clientData), relyingParty: RelyingParty(id: rpID, name: registration.relyingPartyName),
            user: WebAuthnUser(id: Array(registration.userID.utf8), name: registration.userName, displayName: registration.displayName),
            algorithms: registration.algorithms, excludeCredentials: registration.excludeCredentials, residentKey: registration.residentKey,
            userVerification: request.userVerification)
        let interaction = PasskeyInteraction(self, pinPrompt: tpm != nil ? "PIN for this machine's passkey" : "PIN for your security key")
        let created: CreatedCredential
        do throws(AuthenticatorFailure) {
            created = try authenticator.makeCredential(creation, interaction: interaction)
        } catch {
            return try failed(error, tpm, interaction)
        }
        if let tpm, let record = tpm.record {
            try SealedAdvice.worded(passkeys.store.create(record, key: tpm.cacheKey, session: tpm.session))
            console.err(
                "pingcli: passkey \(record.id) (ES256) lives in this machine's TPM, behind the PIN the TPM checks; only the TPM's wrapped blob is on disk, sealed."
            )
        }
        return .registration(
            clientDataJSON: clientData, attestationObject: created.attestationObject, credentialID: created.credentialId,
            deviceName: passkeys.deviceName, attachment: created.attachment)
    }

    private func authenticate(
        _ request: WebAuthnStep, _ allowed: [[UInt8]], rpID: String, _ passkeys: JourneyPasskeys
    ) throws(PingCLIError) -> WebAuthnOutcome {
        let clientData = ClientData.json(.get, challenge: request.challenge, origin: passkeys.origin)
        let tpm = try platform(passkeys, doing: "sign in with a passkey in the TPM")
        let mine = (tpm?.candidates ?? []).filter { $0.rpID == rpID && (allowed.isEmpty || allowed.contains($0.credentialID)) }
        var authenticator: (any WebAuthnAuthenticator)? = nil
        var allow = allowed
        if let tpm, !mine.isEmpty {
            let chosen = try choosePasskey(mine, usernameless: allowed.isEmpty)
            allow = [chosen.credentialID]
            authenticator = tpm
            console.err("pingcli: signing in with passkey \(chosen.id) of this machine's TPM.")
        } else if !allowed.isEmpty, let key = passkeys.securityKey?() {
            authenticator = key
            console.err("pingcli: signing in with your security key.")
        }
        guard let authenticator else {
            console.err(
                "pingcli: no passkey for \(displaySafe(rpID, limit: 100)) on this machine\(tpm == nil ? " (it has no TPM pingcli can use)" : "") and no security key: telling the journey so."
            )
            restart.block("no authenticator can answer the journey's passkey step (walking the tree again would not make one appear)")
            return .error(name: "NotAllowedError", message: "no credential is available")
        }
        let assertion = AssertionRequest(
            clientDataHash: Sodium.sha256(clientData), rpId: rpID, allowCredentials: allow, userVerification: request.userVerification)
        let interaction = PasskeyInteraction(
            self,
            pinPrompt: tpm != nil && allow.count == 1 && !mine.isEmpty ? "PIN for this machine's passkey" : "PIN for your security key")
        let signed: Assertion
        do throws(AuthenticatorFailure) {
            signed = try authenticator.getAssertion(assertion, interaction: interaction)
        } catch {
            return try failed(error, tpm, interaction)
        }
        // The counter is kept before the signature leaves: it never goes back.
        if let tpm, let record = tpm.record {
            try SealedAdvice.worded(passkeys.store.update(record, key: tpm.cacheKey, session: tpm.session))
        }
        return .assertion(
            clientDataJSON: clientData, authenticatorData: signed.authenticatorData, signature: signed.signature,
            credentialID: signed.credentialId, userHandle: signed.userHandle, attachment: signed.attachment)
    }

    /// For a known user the newest passkey; usernameless, the person's choice when there are several.
    private func choosePasskey(_ records: [PasskeyRecord], usernameless: Bool) throws(PingCLIError) -> PasskeyRecord {
        try chooseNewest(records, usernameless: usernameless, order: { ($0.created, $0.id) }) { record in
            "\(displaySafe(record.userName.isEmpty ? record.displayName : record.userName, limit: 80)) (passkey \(record.id.prefix(8)), made \(formatUTC(Double(record.created))))"
        }
    }

    /// An authenticator's failure as the outcome the tree branches on; a failure on the person's side of
    /// `interaction` (the terminal, Ctrl-C), the TPM's own failures and the PIN try that would lock it out
    /// end the sign-in in one line instead, as device keys do.
    private func failed(
        _ failure: AuthenticatorFailure, _ tpm: TPMPlatformAuthenticator?, _ interaction: PasskeyInteraction
    ) throws(PingCLIError) -> WebAuthnOutcome {
        if let failure = interaction.failure { throw failure }
        let access = (try? passkeys?.tpm.checked()) ?? .absent
        if let tpm, let (failures, maximum) = tpm.lockoutNear {
            throw .failure(
                "\(access.name) has counted \(failures) of the \(maximum) wrong authorisations it allows: one more wrong PIN for the passkey would lock it out (every key of every program on this machine), so pingcli asks for none: not signed in; try again once the TPM has forgiven a failure",
                rule: .tpmLockoutNear)
        }
        var failure = failure
        if let error = tpm?.tpmFailure {
            // A PIN the TPM refused, and no right one after it: the tries are over, the passkey is kept.
            guard case .authorizationFailed = error else { throw error.cliError(access, doing: "use the passkey in the TPM") }
            failure = .wrongPIN(retries: nil)
        }
        switch failure {
        case .excluded:
            console.err("pingcli: this authenticator already holds a passkey of yours for this site: telling the journey so.")
            return .error(name: "InvalidStateError", message: "an excluded credential already exists")
        case .notSupported:
            console.err("pingcli: the step allows no algorithm or feature this authenticator has: telling the journey so.")
            return .error(name: "NotSupportedError", message: "no supported algorithm")
        case .wrongPIN:
            let kept = tpm != nil ? "the passkey is kept" : "the security key's credential is kept"
            console.err("pingcli: the PIN was wrong: telling the journey so (\(kept); pingcli login tries again).")
            restart.block("the PIN tries are used up (\(tpm != nil ? "the TPM" : "the security key") counts each wrong one)")
            return .error(name: "NotAllowedError", message: "user verification failed")
        case .pinBlocked, .pinAuthBlocked:
            let why =
                failure == .pinAuthBlocked
                ? "takes no more PINs until it is unplugged and plugged in again"
                : "has its PIN blocked, or one more wrong PIN would block it (reset it with its maker's tool)"
            console.err("pingcli: the security key \(why): telling the journey so.")
            restart.block("the security key \(why)")
            return .error(name: "NotAllowedError", message: "user verification is blocked")
        default:
            console.err("pingcli: no passkey was made or used: telling the journey so.")
            return .error(name: "NotAllowedError", message: "the operation was not allowed")
        }
    }
}
