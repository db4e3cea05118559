import PingPlatform

/// The rule each protocol failure enforces, by the name its negative test starts with
/// (`discovery-issuer-mismatch: …`). A flow that turns one of these into a `PingCLIError` passes the
/// name on (`PingCLIError.rule`), so a test asserts which rule refused, not how the message words it.

extension DiscoveryError {
    public var rule: String {
        switch self {
        case .httpStatus: "discovery-http-error"
        case .redirected: "discovery-redirect"
        case .notJSON: "discovery-not-json"
        case .missingField: "discovery-missing-field"
        case .wrongType: "discovery-malformed-field"
        case .issuerMismatch: "discovery-issuer-mismatch"
        case .refusedEndpoint: "discovery-insecure-endpoint"
        case .s256Unsupported: "discovery-s256-unsupported"
        }
    }
}

extension TransportError {
    public var rule: String {
        switch self {
        case .unreachable: "server-unreachable"
        case .proxyFailed: "proxy-failed"
        case .responseTooLarge: "response-too-large"
        case .invalidURL: "url-invalid"
        case .libraryMissing: "libcurl-missing"
        case .pinMismatch: "pin-mismatch"
        case .clientCertificate: "mtls-client-certificate"
        case .optionRefused: "curl-option-refused"
        case .unsafeRequest: "request-splitting"
        }
    }
}

extension TokenEndpointError {
    public var rule: String {
        switch self {
        case .oauthError: "token-error-object"
        case .httpStatus: "token-http-error"
        case .notJSON: "token-not-json"
        case .missingAccessToken: "token-missing-access-token"
        case .unsupportedTokenType: "token-type-unsupported"
        case .notDPoPBound, .unexpectedDPoP: "dpop-token-type"
        case .invalidExpiresIn: "token-expires-in-invalid"
        case .invalidToken: "token-grammar"
        case .invalidScope: "scope-grammar"
        case .missingIDToken: "id-token-missing"
        case .idToken(let error): error.rule
        }
    }
}

extension IDTokenError {
    public var rule: String {
        switch self {
        case .notThreeParts: "id-token-not-jwt"
        case .badBase64URL: "id-token-bad-base64url"
        case .notJSON: "id-token-not-json"
        case .missingClaim: "id-token-missing-claim"
        case .issuerMismatch: "id-token-iss-mismatch"
        case .audienceMismatch: "id-token-aud-without-client"
        case .authorizedPartyMissing: "id-token-multiple-aud-no-azp"
        case .authorizedPartyMismatch: "id-token-wrong-azp"
        case .expired: "id-token-expired"
        case .issuedInFuture: "id-token-iat-future"
        case .nonceMissing: "missing-nonce"
        case .nonceMismatch: "invalid-nonce"
        case .subjectChanged: "refreshed-id-token-subject"
        }
    }
}

extension StepUpError {
    public var rule: String {
        switch self {
        case .authTimeMissing: "auth-time-missing"
        case .authTimeInFuture: "auth-time-future"
        case .authenticationTooOld: "auth-time-too-old"
        case .authTimeMovedBack: "auth-time-moved-back"
        case .acrMissing: "acr-missing"
        case .acrNotRequested: "acr-mismatch"
        }
    }
}

extension SignatureError {
    public var rule: String {
        switch self {
        case .malformedHeader: "id-token-header"
        case .algorithmNone: "id-token-none"
        case .unsupportedAlgorithm: "id-token-alg-unsupported"
        case .algorithmNotListed: "id-token-alg-not-listed"
        case .hmacWithoutSecret: "id-token-hmac-without-secret"
        case .criticalHeader: "id-token-crit"
        case .missingSignature: "id-token-signature-missing"
        case .unknownKeyID: "id-token-unknown-kid"
        case .keyDoesNotFit: "id-token-key-mismatch"
        case .noFittingKey: "id-token-no-key"
        case .weakKey: "id-token-weak-key"
        case .invalidSignature: "id-token-bad-signature"
        case .noJWKSURI: "id-token-no-jwks"
        case .libraryMissing: "libcrypto-missing"
        }
    }
}

extension JWKSet.Failure {
    public var rule: String {
        switch self {
        case .httpStatus: "jwks-http-error"
        case .notJSONMediaType: "jwks-media-type"
        case .tooLarge: "jwks-too-large"
        case .notAKeySet: "jwks-not-a-key-set"
        case .duplicateKeyID: "jwks-duplicate-kid"
        }
    }
}

extension AuthorizationResponseError {
    public var rule: String {
        switch self {
        case .issuerMismatch: "invalid-iss"
        case .issuerMissing: "missing-iss"
        case .stateMissing: "missing-state"
        case .stateMismatch: "invalid-state"
        case .errorResponse(let error, _): error.error == "access_denied" ? "access-denied" : "error-response"
        case .codeMissing: "missing-code"
        case .repeatedParameter: "repeated-parameter"
        }
    }
}

extension PushedAuthorizationError {
    public var rule: String {
        switch self {
        case .oauthError: "par-error-object"
        case .httpStatus: "par-http-error"
        case .notJSON: "par-not-json"
        case .missingRequestURI: "par-request-uri-missing"
        case .invalidRequestURI: "par-request-uri"
        case .invalidExpiresIn: "par-expires-in-invalid"
        }
    }
}

extension DeviceAuthorizationError {
    public var rule: String {
        switch self {
        case .oauthError: "device-error-object"
        case .httpStatus: "device-http-error"
        case .notJSON: "device-not-json"
        case .missing: "device-response-missing-field"
        case .invalidToken: "device-response-gate"
        case .refusedURL: "device-verification-uri"
        case .invalidNumber: "device-response-number"
        }
    }
}

extension UserInfoError {
    public var rule: String {
        switch self {
        case .invalidToken: "userinfo-401"
        case .insufficientScope: "userinfo-insufficient-scope"
        case .httpStatus: "userinfo-http-error"
        case .notJSON: "userinfo-not-json"
        case .missingSubject: "userinfo-missing-sub"
        case .subjectMismatch: "userinfo-sub-mismatch"
        }
    }
}

extension ClientAssertionKey.Failure {
    public var rule: String {
        switch self {
        case .notPEM: "private-key-jwt-pem"
        case .encrypted: "private-key-jwt-encrypted"
        case .unsupportedKey: "private-key-jwt-unsupported-key"
        case .weakKey: "private-key-jwt-weak-key"
        case .noAlgorithm: "private-key-jwt-alg"
        case .libraryMissing: "libcrypto-missing"
        }
    }
}
