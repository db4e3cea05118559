import PingWebAuthn

extension SoftwareAuthenticator {
    /// authenticatorMakeCredential (CTAP 2.1 §6.1.2).
    func makeCredential(_ parameters: CBOR) -> Result<CBOR?, CTAPError> {
        guard let clientDataHash = parameters[intKey: 1]?.bytesValue, let rpId = parameters[intKey: 2]?["id"]?.textValue,
            let user = parameters[intKey: 3], let userId = user["id"]?.bytesValue, let algorithms = parameters[intKey: 4]?.arrayValue
        else { return .failure(CTAPError(Status.missingParameter)) }
        // The first of the platform's algorithms this key has (CTAP 2.1 §6.1.2 step 3).
        guard
            let algorithm = algorithms.lazy.filter({ $0["type"]?.textValue == "public-key" }).compactMap({ $0["alg"]?.intValue })
                .first(where: { self.configuration.algorithms.contains($0) })
        else { return .failure(CTAPError(Status.unsupportedAlgorithm)) }
        let options = parameters[intKey: 7]
        let resident = options?["rk"] == .bool(true)
        if resident && !configuration.residentKeys { return .failure(CTAPError(Status.unsupportedOption)) }
        if options?["uv"] == .bool(true) { return .failure(CTAPError(Status.unsupportedOption)) }
        let verified: Bool
        switch checkPINAuth(parameters, clientDataHash: clientDataHash, authIndex: 8, protocolIndex: 9) {
        case .failure(let error): return .failure(error)
        case .success(let result): verified = result
        }
        if configuration.pin != nil && !verified { return .failure(CTAPError(Status.pinRequired)) }
        let excluded = (parameters[intKey: 5]?.arrayValue ?? []).compactMap { $0["id"]?.bytesValue }
        if credentials.contains(where: { $0.rpId == rpId && excluded.contains($0.id) }) {
            if case .failure(let error) = touch() { return .failure(error) }
            return .failure(CTAPError(Status.credentialExcluded))
        }
        if case .failure(let error) = touch() { return .failure(error) }
        let key = algorithm == -8 ? TestCrypto.ed25519() : TestCrypto.p256()
        let credential = Credential(
            id: TestCrypto.random(32), rpId: rpId, userId: userId, userName: user["name"]?.textValue ?? "", resident: resident,
            algorithm: algorithm, scalar: key.scalar, x: key.x, y: key.y)
        credentials.append(credential)
        counter += 1
        let cose =
            algorithm == -8
            ? CBOR.map([1: .int(1), 3: .int(-8), -1: .int(6), -2: .bytes(key.x)]).encoded()
            : CBOR.map([1: .int(2), 3: .int(-7), -1: .int(1), -2: .bytes(key.x), -3: .bytes(key.y)]).encoded()
        let attested = Self.aaguid + [UInt8(credential.id.count >> 8), UInt8(credential.id.count & 0xff)] + credential.id + cose
        let authData = authenticatorData(rpId, flags: 0x41 | (verified ? 0x04 : 0)) + attested
        let signature = sign(credential, authData + clientDataHash)
        return .success(
            .map([1: .text("packed"), 2: .bytes(authData), 3: .map(["alg": .int(algorithm), "sig": .bytes(signature)])]))
    }

    /// authenticatorGetAssertion (CTAP 2.1 §6.2.2): the allow list's credentials of `rpId`, or its resident
    /// ones (newest first) when there is no allow list.
    func getAssertion(_ parameters: CBOR) -> Result<CBOR?, CTAPError> {
        guard let rpId = parameters[intKey: 1]?.textValue, let clientDataHash = parameters[intKey: 2]?.bytesValue else {
            return .failure(CTAPError(Status.missingParameter))
        }
        if parameters[intKey: 5]?["uv"] == .bool(true) { return .failure(CTAPError(Status.unsupportedOption)) }
        let verified: Bool
        switch checkPINAuth(parameters, clientDataHash: clientDataHash, authIndex: 6, protocolIndex: 7) {
        case .failure(let error): return .failure(error)
        case .success(let result): verified = result
        }
        let allowed = (parameters[intKey: 3]?.arrayValue ?? []).compactMap { $0["id"]?.bytesValue }
        let discoverable = allowed.isEmpty
        let matching =
            discoverable
            ? credentials.filter { $0.rpId == rpId && $0.resident }.reversed()
            : credentials.filter { $0.rpId == rpId && allowed.contains($0.id) }
        guard !matching.isEmpty else { return .failure(CTAPError(Status.noCredentials)) }
        if case .failure(let error) = touch() { return .failure(error) }
        let responses = matching.map { credential in
            assertion(credential, rpId: rpId, clientDataHash: clientDataHash, verified: verified, discoverable: discoverable)
        }
        pending = Array(responses.dropFirst().map { $0.encoded() })
        guard case .map(var first) = responses[0] else { return .failure(CTAPError(Status.invalidParameter)) }
        if responses.count > 1 { first.append(CBORPair(.int(5), .int(Int64(responses.count)))) }
        return .success(.map(first))
    }

    /// authenticatorGetNextAssertion (CTAP 2.1 §6.3).
    func nextAssertion() -> Result<CBOR?, CTAPError> {
        guard !pending.isEmpty, let next = try? CBOR.decode(pending.removeFirst()) else {
            return .failure(CTAPError(Status.notAllowed))
        }
        return .success(next)
    }

    private func assertion(_ credential: Credential, rpId: String, clientDataHash: [UInt8], verified: Bool, discoverable: Bool) -> CBOR {
        counter += 1
        let authData = authenticatorData(rpId, flags: 0x01 | (verified ? 0x04 : 0))
        let signature = sign(credential, authData + clientDataHash)
        var pairs: [CBORPair] = [
            CBORPair(.int(1), .map(["id": .bytes(credential.id), "type": .text("public-key")])),
            CBORPair(.int(2), .bytes(authData)), CBORPair(.int(3), .bytes(signature)),
        ]
        if discoverable { pairs.append(CBORPair(.int(4), .map(["id": .bytes(credential.userId)]))) }
        return .map(pairs)
    }

    private func sign(_ credential: Credential, _ message: [UInt8]) -> [UInt8] {
        credential.algorithm == -8 ? TestCrypto.signEd25519(credential.scalar, message) : TestCrypto.sign(credential.scalar, message)
    }

    private func authenticatorData(_ rpId: String, flags: UInt8) -> [UInt8] {
        TestCrypto.sha256(Array(rpId.utf8)) + [flags] + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: counter >> $0) }
    }
}
