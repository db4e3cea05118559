import PingWebAuthn

extension SoftwareAuthenticator {
    /// authenticatorClientPIN (CTAP 2.1 §6.5): getPINRetries (1), getKeyAgreement (2), getPinToken (5),
    /// getPinUvAuthTokenUsingPinWithPermissions (9).
    func clientPIN(_ parameters: CBOR) -> Result<CBOR?, CTAPError> {
        guard let version = parameters[intKey: 1]?.intValue, configuration.pinProtocols.contains(Int(version)),
            let subcommand = parameters[intKey: 2]?.intValue
        else { return .failure(CTAPError(Status.missingParameter)) }
        let protocolVersion = PINProtocol(version: Int(version))
        switch subcommand {
        case 1: return .success(.map([3: .int(Int64(retries))]))
        case 2:
            return .success(
                .map([1: .map([1: .int(2), 3: .int(-25), -1: .int(1), -2: .bytes(keyAgreement.x), -3: .bytes(keyAgreement.y)])]))
        case 5, 9:
            if subcommand == 9 && !configuration.permissions { return .failure(CTAPError(Status.invalidParameter)) }
            return pinToken(parameters, protocolVersion)
        default: return .failure(CTAPError(Status.invalidParameter))
        }
    }

    private func pinToken(_ parameters: CBOR, _ pinProtocol: PINProtocol) -> Result<CBOR?, CTAPError> {
        guard let pin = configuration.pin else { return .failure(CTAPError(Status.pinNotSet)) }
        guard let platform = parameters[intKey: 3], let x = platform[intKey: -2]?.bytesValue, let y = platform[intKey: -3]?.bytesValue,
            let pinHashEnc = parameters[intKey: 6]?.bytesValue
        else { return .failure(CTAPError(Status.missingParameter)) }
        guard retries > 0 else { return .failure(CTAPError(Status.pinBlocked)) }
        guard consecutiveWrong < 3 else { return .failure(CTAPError(Status.pinAuthBlocked)) }
        guard let z = TestCrypto.ecdh(keyAgreement.scalar, x: x, y: y) else { return .failure(CTAPError(Status.invalidParameter)) }
        let shared = pinProtocol.kdf(z)
        record.pinAttempts += 1
        retries -= 1
        guard let hash = pinProtocol.decrypt(shared, pinHashEnc), hash == Array(TestCrypto.sha256(Array(pin.utf8)).prefix(16)) else {
            keyAgreement = TestCrypto.p256()
            consecutiveWrong += 1
            if retries == 0 { return .failure(CTAPError(Status.pinBlocked)) }
            return .failure(CTAPError(consecutiveWrong >= 3 ? Status.pinAuthBlocked : Status.pinInvalid))
        }
        retries = configuration.pinRetries
        consecutiveWrong = 0
        let token = TestCrypto.random(32)
        pinToken = token
        tokenProtocol = pinProtocol.version
        guard let encrypted = pinProtocol.encrypt(shared, token) else { return .failure(CTAPError(Status.invalidParameter)) }
        return .success(.map([2: .bytes(encrypted)]))
    }

    /// Checks a MakeCredential / GetAssertion's pinUvAuthParam: true when it is there and right.
    func checkPINAuth(_ parameters: CBOR, clientDataHash: [UInt8], authIndex: Int64, protocolIndex: Int64) -> Result<Bool, CTAPError> {
        guard let param = parameters[intKey: authIndex]?.bytesValue else {
            record.lastHadPINAuth = false
            return .success(false)
        }
        record.lastHadPINAuth = true
        guard let version = parameters[intKey: protocolIndex]?.intValue else { return .failure(CTAPError(Status.missingParameter)) }
        guard let token = pinToken, Int(version) == tokenProtocol,
            PINProtocol(version: tokenProtocol).authenticate(token, clientDataHash) == param
        else { return .failure(CTAPError(Status.pinAuthInvalid)) }
        return .success(true)
    }
}
