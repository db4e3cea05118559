import PingBase
import PingCrypto
import PingHTTP

/// An authorization code request with PKCE, state and nonce
/// ([RFC 6749 §4.1.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1), [RFC 7636 §4.3](https://www.rfc-editor.org/rfc/rfc7636#section-4.3),
/// [OIDC Core §3.1.2.1](https://openid.net/specs/openid-connect-core-1_0.html#AuthRequest)).
public struct AuthorizationRequest: Sendable {
    public var clientID: String
    public var redirectURI: String
    public var scopes: [String]
    public var state: String
    public var nonce: String?
    public var pkce: PKCE
    /// Optional parameters in order: acr_values, login_hint, prompt and --param pairs.
    public var extraParameters: [FormEncoding.Pair]

    /// Parameters pingcli sets itself; `--param` may not replace them.
    public static let reservedParameters: Set<String> = [
        "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge",
        "code_challenge_method", "request_uri", "client_secret",
    ]

    public init(
        clientID: String, redirectURI: String, scopes: [String], state: String = RandomValue.generate(),
        nonce: String? = RandomValue.generate(), pkce: PKCE = .generate(), extraParameters: [FormEncoding.Pair] = []
    ) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.state = state
        self.nonce = scopes.contains("openid") ? nonce : nil
        self.pkce = pkce
        self.extraParameters = extraParameters
    }

    /// The URL to open in the browser.
    public func url(authorizationEndpoint: EndpointURL) -> String {
        Self.url(authorizationEndpoint, parameters)
    }

    /// The URL to open after a pushed request ([RFC 9126 §4](https://www.rfc-editor.org/rfc/rfc9126#section-4)):
    /// only `client_id` and `request_uri`, so `state`, `nonce` and the PKCE challenge stay off the
    /// browser's command line.
    public func url(authorizationEndpoint: EndpointURL, requestURI: RequestURI) -> String {
        Self.url(authorizationEndpoint, [("client_id", clientID), ("request_uri", requestURI.value)])
    }

    /// The pushed authorization request ([RFC 9126 §2.1](https://www.rfc-editor.org/rfc/rfc9126#section-2.1)):
    /// every parameter in the body, with the client's authentication as at the token endpoint.
    public func pushRequest(endpoint: EndpointURL, client: ClientCredentials) -> HTTPRequest {
        client.form(endpoint.value, parameters.filter { $0.name != "client_id" }, alwaysClientID: true)
    }

    private static func url(_ authorizationEndpoint: EndpointURL, _ pairs: [FormEncoding.Pair]) -> String {
        // The endpoint may carry its own query (RFC 6749 §3.1); keep it and append ours.
        let separator = authorizationEndpoint.query == nil ? "?" : "&"
        return authorizationEndpoint.value + separator + FormEncoding.encode(pairs)
    }

    /// Every parameter of the request, in order.
    package var parameters: [FormEncoding.Pair] {
        var pairs: [FormEncoding.Pair] = [
            ("response_type", "code"),
            ("client_id", clientID),
            ("redirect_uri", redirectURI),
            ("scope", scopes.joined(separator: " ")),
            ("state", state),
        ]
        if let nonce { pairs.append(("nonce", nonce)) }
        pairs.append(("code_challenge", pkce.codeChallenge))
        pairs.append(("code_challenge_method", pkce.codeChallengeMethod))
        pairs += extraParameters
        return pairs
    }
}

/// Why an authorization response was not accepted; the receiver decides whether it ends the login.
public enum AuthorizationResponseError: Error, Sendable, Equatable {
    /// `iss` differs from the issuer (RFC 9207 §2.4): a mix-up attack or a misconfigured server.
    case issuerMismatch(received: String)
    /// `iss` absent although the server advertises `authorization_response_iss_parameter_supported` (RFC 9207 §2.4).
    case issuerMissing
    /// `state` absent: not an answer to our request.
    case stateMissing
    /// `state` different: not an answer to our request (CSRF, or an old tab).
    case stateMismatch
    /// The server said no (RFC 6749 §4.1.2.1). `issuerMissing`: the `iss` the server promises was not
    /// there either; an error ends the login anyway and carries no code, so that is only a note.
    case errorResponse(OAuthErrorResponse, issuerMissing: Bool = false)
    /// Neither `code` nor `error`.
    case codeMissing
    /// A parameter appeared twice (RFC 6749 §3.1: parameters must not be repeated).
    case repeatedParameter(String)
}

/// The server's error fields, kept as sent ([RFC 6749 §5.2](https://www.rfc-editor.org/rfc/rfc6749#section-5.2)).
public struct OAuthErrorResponse: Sendable, Equatable {
    public var error: String
    public var errorDescription: String?
    public var errorURI: String?

    public init(error: String, errorDescription: String? = nil, errorURI: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription
        self.errorURI = errorURI
    }

    /// `error: description (see uri)`, made safe for one terminal line.
    public var summary: String {
        var text = displaySafe(error, limit: 80)
        if let errorDescription, !errorDescription.isEmpty { text += ": " + displaySafe(errorDescription) }
        if let errorURI, !errorURI.isEmpty { text += " (see \(displaySafe(errorURI, limit: 200)))" }
        return text
    }
}

/// Validates the redirect's query in the order RFC 9207 and oauth4webapi use: `iss`, then `state`,
/// then `error`, then `code`. Returns the authorization code.
public func validateAuthorizationResponse(
    _ parameters: [FormEncoding.Pair], expectedState: String, issuer: String, issParameterRequired: Bool
) throws(AuthorizationResponseError) -> String {
    var values: [String: String] = [:]
    for (name, value) in parameters {
        if values[name] != nil, ["iss", "state", "code", "error"].contains(name) { throw .repeatedParameter(name) }
        values[name] = value
    }
    var issuerMissing = false
    if let iss = values["iss"] {
        guard iss == issuer else { throw .issuerMismatch(received: iss) }
    } else if issParameterRequired {
        issuerMissing = true
    }
    guard let state = values["state"] else { throw .stateMissing }
    guard stateMatches(state, expectedState) else { throw .stateMismatch }
    if let error = values["error"] {
        throw .errorResponse(
            OAuthErrorResponse(error: error, errorDescription: values["error_description"], errorURI: values["error_uri"]),
            issuerMissing: issuerMissing)
    }
    // A success response without the promised iss is refused (RFC 9207 §2.4): it may come from a mix-up.
    if issuerMissing { throw .issuerMissing }
    guard let code = values["code"], !code.isEmpty else { throw .codeMissing }
    return code
}

/// Whether a callback carries exactly our `state` (compared in constant time). Only such a callback is
/// an answer to our request: anything on this machine can reach the loopback port, so a callback without
/// it is answered and ignored, whatever else it says, and cannot end or hijack the login.
public func stateMatches(_ received: String?, _ expected: String) -> Bool {
    guard let received else { return false }
    return Sodium.constantTimeEquals(Array(received.utf8), Array(expected.utf8))
}
