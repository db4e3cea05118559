import EmulatorHTTP
import Foundation

extension Emulator {
    // MARK: Control endpoints (/__emulator/…)

    func handleControl(_ request: HTTPRequest) -> HTTPResponse {
        let ok: EmulatorJSON = ["ok": true]
        if let journeys = handleJourneyControl(request) { return journeys }
        switch (request.method, request.path) {
        case ("GET", "/__emulator/requests"):
            return Self.encodeJSON(requests)
        case ("DELETE", "/__emulator/requests"):
            clearRequests()
            return .json(ok)
        case ("GET", "/__emulator/arrivals"):
            let counts = state.withLock { $0.arrivals }
            return .json(.object(Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, EmulatorJSON.number(Double($0.value))) })))
        case ("GET", "/__emulator/faults"):
            return Self.encodeJSON(faults)
        case ("PUT", "/__emulator/faults"):
            do {
                faults = try JSONDecoder().decode(Faults.self, from: Data(request.body))
                return .json(ok)
            } catch {
                return .oauthError("invalid_request", "invalid Faults JSON: \(error)")
            }
        case ("PUT", "/__emulator/settings"):
            return putSettings(request)
        case ("POST", "/__emulator/device/approve"), ("POST", "/__emulator/device/deny"):
            guard let userCode = request.form["user_code"],
                approveDevice(userCode: userCode, approve: request.path.hasSuffix("approve"))
            else { return .oauthError("invalid_request", "no pending device authorization with that user_code") }
            return .json(ok)
        case ("POST", "/__emulator/rotate-keys"):
            // A new signing key (kid), the old one still published: what a provider's key rotation looks like.
            return .json(["ok": true, "kid": .string(rotateKeys())])
        case ("POST", "/__emulator/expire-access-tokens"):
            expireAccessTokens()
            return .json(ok)
        case ("POST", "/__emulator/introspect"):
            guard let token = request.form["token"] else { return .oauthError("invalid_request", "token is required") }
            return .json(introspectionJSON(token))
        case ("GET", "/__emulator/latest-tokens"):
            // Introspection of the newest access and refresh token, without their values: for the demo.
            var report: [String: EmulatorJSON] = [:]
            if let access = issuedAccessTokens.last { report["access_token"] = introspectionJSON(access) }
            if let refresh = issuedRefreshTokens.last { report["refresh_token"] = introspectionJSON(refresh) }
            return .json(.object(report))
        case ("GET", "/__emulator/tokens"):
            return .json([
                "access": .array(issuedAccessTokens.map { .string($0) }),
                "refresh": .array(issuedRefreshTokens.map { .string($0) }),
            ])
        default:
            return .json(["error": "not_found", "error_description": .string("no such control endpoint")], status: 404)
        }
    }

    /// `PUT /__emulator/settings`: `accessTokenLifetime`, whole seconds, for tokens issued from now on.
    private func putSettings(_ request: HTTPRequest) -> HTTPResponse {
        guard case .object(let settings)? = EmulatorJSON.parse(Data(request.body)) else {
            return .oauthError("invalid_request", "expected a JSON object")
        }
        if let lifetime = settings["accessTokenLifetime"] {
            guard let seconds = lifetime.numberValue, let value = Int(exactly: seconds) else {
                return .oauthError("invalid_request", "accessTokenLifetime must be an integer")
            }
            accessTokenLifetime = value
        }
        return .json(["ok": true, "accessTokenLifetime": .number(Double(accessTokenLifetime))])
    }

    static func encodeJSON<T: Encodable>(_ value: T) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "application/json")],
                body: [UInt8](try encoder.encode(value)))
        } catch {
            return .oauthError("server_error", "encoding failed: \(error)", status: 500)
        }
    }
}
