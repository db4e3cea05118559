import EmulatorHTTP
import Foundation

/// A fixed answer for an endpoint, replacing its normal behaviour.
public struct CannedResponse: Sendable, Codable, Hashable {
    public var status: Int
    public var contentType: String?
    public var body: String
    /// The body is repeated this many times (for oversized responses).
    public var bodyRepeat: Int?
    public var headers: [String: String]?
    /// Answer only this many times, then behave normally again (nil = until cleared).
    public var times: Int?

    public init(
        status: Int, contentType: String? = "text/html", body: String = "", bodyRepeat: Int? = nil,
        headers: [String: String]? = nil, times: Int? = nil
    ) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.bodyRepeat = bodyRepeat
        self.headers = headers
        self.times = times
    }
}

/// An OAuth error the token endpoint should answer with.
public struct CannedOAuthError: Sendable, Codable, Hashable {
    public var status: Int
    public var error: String
    public var errorDescription: String?
    public var errorURI: String?

    enum CodingKeys: String, CodingKey {
        case status, error
        case errorDescription = "error_description"
        case errorURI = "error_uri"
    }

    public init(status: Int = 400, error: String, errorDescription: String? = nil, errorURI: String? = nil) {
        self.status = status
        self.error = error
        self.errorDescription = errorDescription
        self.errorURI = errorURI
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = try c.decodeIfPresent(Int.self, forKey: .status) ?? 400
        error = try c.decode(String.self, forKey: .error)
        errorDescription = try c.decodeIfPresent(String.self, forKey: .errorDescription)
        errorURI = try c.decodeIfPresent(String.self, forKey: .errorURI)
    }
}

/// Fault switches, settable at runtime (`emulator.faults = …` or `PUT /__emulator/faults`).
/// Every field is optional in JSON; missing fields take their defaults.
public struct Faults: Sendable, Codable, Hashable {
    /// Merged into the discovery document; `null` removes a key.
    public var discoveryOverrides: [String: EmulatorJSON] = [:]
    /// Applied to the successful authorization redirect's query; nil removes a parameter.
    public var authorizationResponseOverrides: [String: String?] = [:]
    /// Applied to ID token claims before signing; `null` removes a claim.
    public var idTokenClaimOverrides: [String: EmulatorJSON] = [:]
    /// Merged into successful token responses; `null` removes a member.
    public var tokenResponseOverrides: [String: EmulatorJSON] = [:]
    /// Answer an endpoint with a canned response instead.
    public var responseOverrides: [EndpointKind: CannedResponse] = [:]
    /// Seconds to sleep before answering an endpoint.
    public var delays: [EndpointKind: Double] = [:]
    /// Answer a token request with this grant_type with this error.
    public var tokenErrors: [String: CannedOAuthError] = [:]
    /// The next N refresh_token grants fail with invalid_grant (token not consumed).
    public var failNextRefreshes: Int = 0
    /// Errors answered, in order, to the next device-code polls (`authorization_pending`, `slow_down`,
    /// `access_denied`, `expired_token`), before the device code's own state decides.
    public var deviceErrors: [String] = []
    /// A broken ID token signature: `forged` (a changed byte), `stripped` (no signature), `none`
    /// (`alg: none`), `hs256-public-key` (HS256 keyed with the published RSA key's DER, the RS256/HS256
    /// confusion), `foreign-kid` (signed by the current key, naming another published key's kid).
    public var idTokenSignature: String? = nil

    public init(
        discoveryOverrides: [String: EmulatorJSON] = [:],
        authorizationResponseOverrides: [String: String?] = [:],
        idTokenClaimOverrides: [String: EmulatorJSON] = [:],
        tokenResponseOverrides: [String: EmulatorJSON] = [:],
        responseOverrides: [EndpointKind: CannedResponse] = [:],
        delays: [EndpointKind: Double] = [:],
        tokenErrors: [String: CannedOAuthError] = [:],
        failNextRefreshes: Int = 0,
        deviceErrors: [String] = []
    ) {
        self.discoveryOverrides = discoveryOverrides
        self.authorizationResponseOverrides = authorizationResponseOverrides
        self.idTokenClaimOverrides = idTokenClaimOverrides
        self.tokenResponseOverrides = tokenResponseOverrides
        self.responseOverrides = responseOverrides
        self.delays = delays
        self.tokenErrors = tokenErrors
        self.failNextRefreshes = failNextRefreshes
        self.deviceErrors = deviceErrors
    }

    enum CodingKeys: String, CodingKey {
        case discoveryOverrides, authorizationResponseOverrides, idTokenClaimOverrides, tokenResponseOverrides
        case responseOverrides, delays, tokenErrors, failNextRefreshes, deviceErrors, idTokenSignature
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        discoveryOverrides = try c.decodeIfPresent([String: EmulatorJSON].self, forKey: .discoveryOverrides) ?? [:]
        authorizationResponseOverrides =
            try c.decodeIfPresent([String: String?].self, forKey: .authorizationResponseOverrides) ?? [:]
        idTokenClaimOverrides = try c.decodeIfPresent([String: EmulatorJSON].self, forKey: .idTokenClaimOverrides) ?? [:]
        tokenResponseOverrides = try c.decodeIfPresent([String: EmulatorJSON].self, forKey: .tokenResponseOverrides) ?? [:]
        responseOverrides = try c.decodeIfPresent([EndpointKind: CannedResponse].self, forKey: .responseOverrides) ?? [:]
        delays = try c.decodeIfPresent([EndpointKind: Double].self, forKey: .delays) ?? [:]
        tokenErrors = try c.decodeIfPresent([String: CannedOAuthError].self, forKey: .tokenErrors) ?? [:]
        failNextRefreshes = try c.decodeIfPresent(Int.self, forKey: .failNextRefreshes) ?? 0
        deviceErrors = try c.decodeIfPresent([String].self, forKey: .deviceErrors) ?? []
        idTokenSignature = try c.decodeIfPresent(String.self, forKey: .idTokenSignature)
    }
}
