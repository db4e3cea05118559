import PingBase
import PingCrypto

/// The rule each protocol failure enforces, by the name its negative test starts with
/// (`discovery-issuer-mismatch: …`). A flow that turns one of these into a `PingCLIError` passes the
/// name on (`PingCLIError.rule`), so a test asserts which rule refused, not how the message words it.

extension DiscoveryError {
    public var rule: Rule {
        switch self {
        case .httpStatus: .discoveryHTTPError
        case .redirected: .discoveryRedirect
        case .notJSON: .discoveryNotJSON
        case .missingField: .discoveryMissingField
        case .wrongType: .discoveryMalformedField
        case .issuerMismatch: .discoveryIssuerMismatch
        case .refusedEndpoint: .discoveryInsecureEndpoint
        case .s256Unsupported: .discoveryS256Unsupported
        }
    }
}

extension TokenEndpointError {
    public var rule: Rule {
        switch self {
        case .oauthError: .tokenErrorObject
        case .httpStatus: .tokenHTTPError
        case .notJSON: .tokenNotJSON
        case .missingAccessToken: .tokenMissingAccessToken
        case .unsupportedTokenType: .tokenTypeUnsupported
        case .notDPoPBound, .unexpectedDPoP: .dpopTokenType
        case .invalidExpiresIn: .tokenExpiresInInvalid
        case .invalidToken: .tokenGrammar
        case .invalidScope: .scopeGrammar
        case .missingIDToken: .idTokenMissing
        case .idToken(let error): error.rule
        case .issuedTokenType: .targetIssuedType
        }
    }
}

extension IDTokenError {
    public var rule: Rule {
        switch self {
        case .notThreeParts: .idTokenNotJWT
        case .badBase64URL: .idTokenBadBase64url
        case .notJSON: .idTokenNotJSON
        case .missingClaim: .idTokenMissingClaim
        case .issuerMismatch: .idTokenIssMismatch
        case .audienceMismatch: .idTokenAudWithoutClient
        case .authorizedPartyMissing: .idTokenMultipleAudNoAzp
        case .authorizedPartyMismatch: .idTokenWrongAzp
        case .expired: .idTokenExpired
        case .issuedInFuture: .idTokenIatFuture
        case .nonceMissing: .missingNonce
        case .nonceMismatch: .invalidNonce
        case .subjectChanged: .refreshedIDTokenSubject
        }
    }
}

extension StepUpError {
    public var rule: Rule {
        switch self {
        case .authTimeMissing: .authTimeMissing
        case .authTimeInFuture: .authTimeFuture
        case .authenticationTooOld: .authTimeTooOld
        case .authTimeMovedBack: .authTimeMovedBack
        case .acrMissing: .acrMissing
        case .acrNotRequested: .acrMismatch
        }
    }
}

extension SignatureError {
    public var rule: Rule {
        switch self {
        case .malformedHeader: .idTokenHeader
        case .algorithmNone: .idTokenAlgNone
        case .unsupportedAlgorithm: .idTokenAlgUnsupported
        case .algorithmNotListed: .idTokenAlgNotListed
        case .hmacWithoutSecret: .idTokenHMACWithoutSecret
        case .criticalHeader: .idTokenCrit
        case .missingSignature: .idTokenSignatureMissing
        case .unknownKeyID: .idTokenUnknownKID
        case .keyDoesNotFit: .idTokenKeyMismatch
        case .noFittingKey: .idTokenNoKey
        case .weakKey: .idTokenWeakKey
        case .invalidSignature: .idTokenBadSignature
        case .noJWKSURI: .idTokenNoJWKS
        case .libraryMissing: .libcryptoMissing
        }
    }
}

extension JWKSet.Failure {
    public var rule: Rule {
        switch self {
        case .httpStatus: .jwksHTTPError
        case .notJSONMediaType: .jwksMediaType
        case .tooLarge: .jwksTooLarge
        case .notAKeySet: .jwksNotAKeySet
        case .duplicateKeyID: .jwksDuplicateKID
        }
    }
}

extension AuthorizationResponseError {
    public var rule: Rule {
        switch self {
        case .issuerMismatch: .invalidIss
        case .issuerMissing: .missingIss
        case .stateMissing: .missingState
        case .stateMismatch: .invalidState
        case .errorResponse(let error, _): error.code == .accessDenied ? .accessDenied : .errorResponse
        case .codeMissing: .missingCode
        case .repeatedParameter: .repeatedParameter
        }
    }
}

extension PushedAuthorizationError {
    public var rule: Rule {
        switch self {
        case .oauthError: .parErrorObject
        case .httpStatus: .parHTTPError
        case .notJSON: .parNotJSON
        case .missingRequestURI: .parRequestURIMissing
        case .invalidRequestURI: .parRequestURI
        case .invalidExpiresIn: .parExpiresInInvalid
        }
    }
}

extension DeviceAuthorizationError {
    public var rule: Rule {
        switch self {
        case .oauthError: .deviceErrorObject
        case .httpStatus: .deviceHTTPError
        case .notJSON: .deviceNotJSON
        case .missing: .deviceResponseMissingField
        case .invalidToken: .deviceResponseGate
        case .refusedURL: .deviceVerificationURI
        case .invalidNumber: .deviceResponseNumber
        }
    }
}

extension UserInfoError {
    public var rule: Rule {
        switch self {
        case .invalidToken: .userinfo401
        case .insufficientScope: .userinfoInsufficientScope
        case .httpStatus: .userinfoHTTPError
        case .notJSON: .userinfoNotJSON
        case .missingSubject: .userinfoMissingSub
        case .subjectMismatch: .userinfoSubMismatch
        }
    }
}

extension ClientAssertionKey.Failure {
    public var rule: Rule {
        switch self {
        case .notPEM: .privateKeyJWTPEM
        case .encrypted: .privateKeyJWTEncrypted
        case .unsupportedKey: .privateKeyJWTUnsupportedKey
        case .weakKey: .privateKeyJWTWeakKey
        case .noAlgorithm: .privateKeyJWTAlg
        case .libraryMissing: .libcryptoMissing
        }
    }
}
