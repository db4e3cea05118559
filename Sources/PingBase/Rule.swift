/// The catalogue of rules pingcli enforces: every named failure carries one, by the stable name its
/// negative tests start with (`discovery-issuer-mismatch: …`) and docs/security.md lists ("Failure rules";
/// `RuleCatalogueTests` keeps the two the same). Tests assert the case, not the wording; a new rule is a
/// new case here, a line in docs/security.md and a test named after it.
public enum Rule: String, CaseIterable, Sendable {
    case accessDenied = "access-denied"

    case acrMismatch = "acr-mismatch"
    case acrMissing = "acr-missing"

    case apiFail = "api-fail"
    case apiRedirectLimit = "api-redirect-limit"
    case apiResponseLimit = "api-response-limit"
    case apiURLGate = "api-url-gate"

    case authTimeFuture = "auth-time-future"
    case authTimeMissing = "auth-time-missing"
    case authTimeMovedBack = "auth-time-moved-back"
    case authTimeTooOld = "auth-time-too-old"

    case cacheKeyMissing = "cache-key-missing"
    case cacheNotACache = "cache-not-a-cache"
    case cacheNotATokenSet = "cache-not-a-token-set"
    case cacheOlderFormat = "cache-older-format"
    case cacheRolledBack = "cache-rolled-back"
    case cacheTampered = "cache-tampered"
    case cacheTruncated = "cache-truncated"
    case cacheVersion = "cache-version"

    case clientAuthUnsupported = "client-auth-unsupported"
    case clientCredentialsNoSession = "client-credentials-no-session"

    case curlOptionRefused = "curl-option-refused"

    case deviceDenied = "device-denied"
    case deviceErrorObject = "device-error-object"
    case deviceExpired = "device-expired"
    case deviceExpiresIn = "device-expires-in"
    case deviceHTTPError = "device-http-error"
    case deviceNotJSON = "device-not-json"
    case deviceResponseGate = "device-response-gate"
    case deviceResponseMissingField = "device-response-missing-field"
    case deviceResponseNumber = "device-response-number"
    case deviceUnsupported = "device-unsupported"
    case deviceVerificationURI = "device-verification-uri"

    case discoveryHTTPError = "discovery-http-error"
    case discoveryInsecureEndpoint = "discovery-insecure-endpoint"
    case discoveryIssuerMismatch = "discovery-issuer-mismatch"
    case discoveryMalformedField = "discovery-malformed-field"
    case discoveryMissingField = "discovery-missing-field"
    case discoveryNotJSON = "discovery-not-json"
    case discoveryRedirect = "discovery-redirect"
    case discoveryS256Unsupported = "discovery-s256-unsupported"

    case dpopAlgorithmChoice = "dpop-algorithm-choice"
    case dpopKeyGeneration = "dpop-key-generation"
    case dpopTokenType = "dpop-token-type"
    case dpopUnannounced = "dpop-unannounced"

    case endpointPolicy = "endpoint-policy"

    case errorResponse = "error-response"

    case execNotInteractive = "exec-not-interactive"

    case generationDamaged = "generation-damaged"

    case gitPromptForbidden = "git-prompt-forbidden"

    case helperMachineProfile = "helper-machine-profile"
    case helperNoSettings = "helper-no-settings"
    case helperNoTerminal = "helper-no-terminal"
    case helperSignIn = "helper-sign-in"
    case helperSignInFailed = "helper-sign-in-failed"
    case helperSignInGate = "helper-sign-in-gate"
    case helperSignInOff = "helper-sign-in-off"

    case idTokenAlgNotListed = "id-token-alg-not-listed"
    case idTokenAlgUnsupported = "id-token-alg-unsupported"
    case idTokenAudWithoutClient = "id-token-aud-without-client"
    case idTokenBadBase64url = "id-token-bad-base64url"
    case idTokenBadSignature = "id-token-bad-signature"
    case idTokenCrit = "id-token-crit"
    case idTokenExpired = "id-token-expired"
    case idTokenHeader = "id-token-header"
    case idTokenHMACWithoutSecret = "id-token-hmac-without-secret"
    case idTokenIatFuture = "id-token-iat-future"
    case idTokenIssMismatch = "id-token-iss-mismatch"
    case idTokenKeyMismatch = "id-token-key-mismatch"
    case idTokenKeyRotationClock = "id-token-key-rotation-clock"
    case idTokenMissing = "id-token-missing"
    case idTokenMissingClaim = "id-token-missing-claim"
    case idTokenMultipleAudNoAzp = "id-token-multiple-aud-no-azp"
    case idTokenNoJWKS = "id-token-no-jwks"
    case idTokenNoKey = "id-token-no-key"
    case idTokenNone = "id-token-none"
    case idTokenNotJSON = "id-token-not-json"
    case idTokenNotJWT = "id-token-not-jwt"
    case idTokenNotRefreshed = "id-token-not-refreshed"
    case idTokenSignatureMissing = "id-token-signature-missing"
    case idTokenUnknownKID = "id-token-unknown-kid"
    case idTokenWeakKey = "id-token-weak-key"
    case idTokenWrongAzp = "id-token-wrong-azp"

    case invalidIss = "invalid-iss"
    case invalidNonce = "invalid-nonce"
    case invalidState = "invalid-state"

    case issuerSwitchDeclined = "issuer-switch-declined"
    case issuerSwitchRefused = "issuer-switch-refused"

    case journeyAnswerNumber = "journey-answer-number"
    case journeyAnswerOption = "journey-answer-option"
    case journeyAnswersFile = "journey-answers-file"
    case journeyAuthSessionTimeout = "journey-auth-session-timeout"
    case journeyAuthorizeStatus = "journey-authorize-status"
    case journeyConsentRequired = "journey-consent-required"
    case journeyCookieName = "journey-cookie-name"
    case journeyEndpoint = "journey-endpoint"
    case journeyEndpointStatus = "journey-endpoint-status"
    case journeyLoginFailure = "journey-login-failure"
    case journeyMalformed = "journey-malformed"
    case journeyNoAnswer = "journey-no-answer"
    case journeyNotAm = "journey-not-am"
    case journeyRealmPath = "journey-realm-path"
    case journeySessionNotAccepted = "journey-session-not-accepted"
    case journeySessionOrigin = "journey-session-origin"
    case journeySuspended = "journey-suspended"
    case journeySuspendedExpired = "journey-suspended-expired"
    case journeySuspendedId = "journey-suspended-id"
    case journeyTreeName = "journey-tree-name"
    case journeyUnsupported = "journey-unsupported"

    case jwksDuplicateKID = "jwks-duplicate-kid"
    case jwksHTTPError = "jwks-http-error"
    case jwksMediaType = "jwks-media-type"
    case jwksNotAKeySet = "jwks-not-a-key-set"
    case jwksTooLarge = "jwks-too-large"
    case jwksUnavailable = "jwks-unavailable"

    case keyCommand = "key-command"
    case keyCommandOutputBounded = "key-command-output-bounded"
    case keyCommandStatus = "key-command-status"
    case keyCommandTimeout = "key-command-timeout"
    case keyFileDamaged = "key-file-damaged"
    case keyStoreEnv = "key-store-env"
    case keyStoreSetting = "key-store-setting"

    case keyringCopiedHome = "keyring-copied-home"
    case keyringFailed = "keyring-failed"
    case keyringItemDamaged = "keyring-item-damaged"
    case keyringKeyDamaged = "keyring-key-damaged"
    case keyringLocked = "keyring-locked"
    case keyringUnavailable = "keyring-unavailable"

    case libcryptoMissing = "libcrypto-missing"

    case libcurlMissing = "libcurl-missing"

    case libsecretMissing = "libsecret-missing"

    case lockBounded = "lock-bounded"

    case loginTimeout = "login-timeout"

    case logoutAMSession = "logout-am-session"
    case logoutBrowserFails = "logout-browser-fails"
    case logoutNoRevocationEndpoint = "logout-no-revocation-endpoint"
    case logoutRevocationRefused = "logout-revocation-refused"
    case logoutUnverifiedProfile = "logout-unverified-profile"

    case missingCode = "missing-code"
    case missingIss = "missing-iss"
    case missingNonce = "missing-nonce"
    case missingState = "missing-state"

    case mtlsClientCertificate = "mtls-client-certificate"

    case notLoggedIn = "not-logged-in"

    case overrideEndpointPolicy = "override-endpoint-policy"

    case parErrorObject = "par-error-object"
    case parExpiresInInvalid = "par-expires-in-invalid"
    case parHTTPError = "par-http-error"
    case parNotJSON = "par-not-json"
    case parRequestURI = "par-request-uri"
    case parRequestURIMissing = "par-request-uri-missing"
    case parRequired = "par-required"

    case pinMismatch = "pin-mismatch"

    case pingoneNoSID = "pingone-no-sid"

    case privateKeyJWTAlg = "private-key-jwt-alg"
    case privateKeyJWTEncrypted = "private-key-jwt-encrypted"
    case privateKeyJWTFileGate = "private-key-jwt-file-gate"
    case privateKeyJWTPEM = "private-key-jwt-pem"
    case privateKeyJWTUnsupportedKey = "private-key-jwt-unsupported-key"
    case privateKeyJWTWeakKey = "private-key-jwt-weak-key"

    case profileBinding = "profile-binding"
    case profileEndpointPolicy = "profile-endpoint-policy"
    case profileJSONRefused = "profile-json-refused"

    case proxyFailed = "proxy-failed"

    case refreshBackoff = "refresh-backoff"
    case refreshClientError = "refresh-client-error"
    case refreshUnavailable = "refresh-unavailable"
    case refreshUnreachable = "refresh-unreachable"
    case refreshUnreadable = "refresh-unreadable"

    case refreshedIDTokenSubject = "refreshed-id-token-subject"

    case repeatedParameter = "repeated-parameter"

    case requestSplitting = "request-splitting"

    case responseTooLarge = "response-too-large"

    case schemeDowngradeRedirect = "scheme-downgrade-redirect"

    case scopeGrammar = "scope-grammar"

    case serverUnreachable = "server-unreachable"

    case sessionBus = "session-bus"
    case sessionExpired = "session-expired"

    case signOffNoEndpoint = "sign-off-no-endpoint"
    case signOffPortTaken = "sign-off-port-taken"
    case signOffTimeout = "sign-off-timeout"

    case ssrfControl = "ssrf-control"

    case targetAudienceGrammar = "target-audience-grammar"
    case targetClientError = "target-client-error"
    case targetExchangeRefused = "target-exchange-refused"
    case targetIDToken = "target-id-token"
    case targetInvalidScope = "target-invalid-scope"
    case targetInvalidTarget = "target-invalid-target"
    case targetIssuedType = "target-issued-type"
    case targetNoExchange = "target-no-exchange"
    case targetNoGrant = "target-no-grant"
    case targetResourceURI = "target-resource-uri"
    case targetScopeGrammar = "target-scope-grammar"
    case targetUnavailable = "target-unavailable"
    case targetUnreachable = "target-unreachable"
    case targetUnreadable = "target-unreadable"

    case tokenErrorObject = "token-error-object"
    case tokenExpiresInInvalid = "token-expires-in-invalid"
    case tokenGrammar = "token-grammar"
    case tokenHTTPError = "token-http-error"
    case tokenMissingAccessToken = "token-missing-access-token"
    case tokenNotJSON = "token-not-json"
    case tokenTypeUnsupported = "token-type-unsupported"

    case urlInvalid = "url-invalid"

    case userinfo401 = "userinfo-401"
    case userinfo401Twice = "userinfo-401-twice"
    case userinfoHTTPError = "userinfo-http-error"
    case userinfoInsufficientScope = "userinfo-insufficient-scope"
    case userinfoMissingSub = "userinfo-missing-sub"
    case userinfoNoEndpoint = "userinfo-no-endpoint"
    case userinfoNotJSON = "userinfo-not-json"
    case userinfoSubMismatch = "userinfo-sub-mismatch"
    case userinfoWithoutOpenid = "userinfo-without-openid"

    case deviceKeyDamaged = "device-key-damaged"
    case deviceKeyId = "device-key-id"
    case deviceKeyTampered = "device-key-tampered"
    case deviceKeyUnknown = "device-key-unknown"
    case devicePin = "device-pin"
    case deviceSign = "device-sign"
    case otpAlgorithm = "otp-algorithm"
    case otpCounter = "otp-counter"
    case otpDigits = "otp-digits"
    case otpDuplicateParameter = "otp-duplicate-parameter"
    case otpIssuerMismatch = "otp-issuer-mismatch"
    case otpLabel = "otp-label"
    case otpLibcrypto = "otp-libcrypto"
    case otpName = "otp-name"
    case otpNameTaken = "otp-name-taken"
    case otpNoAccount = "otp-no-account"
    case otpPeriod = "otp-period"
    case otpSecretBase32 = "otp-secret-base32"
    case otpSecretLength = "otp-secret-length"
    case otpSecretMissing = "otp-secret-missing"
    case otpStoreDamaged = "otp-store-damaged"
    case otpStoreTampered = "otp-store-tampered"
    case otpStoreVersion = "otp-store-version"
    case otpUriArgv = "otp-uri-argv"
    case otpUriCharacters = "otp-uri-characters"
    case otpUriScheme = "otp-uri-scheme"
    case otpUriSize = "otp-uri-size"
    case otpUriType = "otp-uri-type"

    case inputBounded = "input-bounded"
}
