import EmulatorHTTP
import Foundation

/// PingAM's bound devices of a user, the records its Device Binding nodes keep:
/// `GET /am/json/realms/root/realms/{realm}/users/{user}/devices/2fa/binding?_queryFilter=true` lists them,
/// `DELETE …/binding/{uuid}` removes one (https://docs.pingidentity.com/pingam/8/am-authentication/device-binding.html;
/// the shapes as the Ping SDKs' device client reads them: `result[]` of `_id`, `_rev`, `createdDate`,
/// `lastAccessDate`, `deviceId`, `deviceName`, `uuid`, `key` (the JWK), `deviceManagementStatus`).
/// The person's own session authorises it, in the header named after the cookie or in `Cookie`: a
/// missing, ended or expired session is 401, another user's records 403.
extension Emulator {
    /// The `…/users/{user}/devices/2fa/binding[/{uuid}]` paths of this realm.
    func isBoundDevicesPath(_ path: String) -> Bool {
        guard vendor.servesJourneys, let rest = boundDevicesParts(path) else { return false }
        return rest.uuid.map { !$0.isEmpty && !$0.contains("/") } ?? true
    }

    /// The user segment (percent-decoded) and the record id, when `path` is a bound-devices path (or,
    /// `webAuthn`, a WebAuthn devices path: `…/devices/2fa/webauthn[/{uuid}]`, the credentials WebAuthn
    /// Registration nodes keep, listed with `credentialId` and `deviceName`).
    private func boundDevicesParts(_ path: String) -> (user: String, uuid: String?, webAuthn: Bool)? {
        let prefix = "/am/json/realms/root/realms/\(configuration.realm)/users/"
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        let webAuthn = rest.range(of: "/devices/2fa/webauthn") != nil
        guard let end = rest.range(of: "/devices/2fa/binding") ?? rest.range(of: "/devices/2fa/webauthn") else { return nil }
        let user = String(rest[..<end.lowerBound])
        let tail = rest[end.upperBound...]
        guard !user.isEmpty, !user.contains("/"), let decoded = user.removingPercentEncoding else { return nil }
        if tail.isEmpty { return (decoded, nil, webAuthn) }
        guard tail.hasPrefix("/") else { return nil }
        return (decoded, String(tail.dropFirst()), webAuthn)
    }

    func boundDevicesEndpoint(_ request: HTTPRequest) -> HTTPResponse {
        if let refusal = Self.checkAPIVersion(request, accepting: ["1.0"]) { return refusal }
        guard let (user, uuid, webAuthn) = boundDevicesParts(request.path) else {
            return Self.amError(404, "Not Found", "Resource not found")
        }
        guard let token = presentedSession(request), let session = activeSession(token) else {
            return Self.amError(401, "Unauthorized", "Access Denied")
        }
        guard user == session.user.sub || user == session.user.username else {
            return Self.amError(403, "Forbidden", "User not authorized.")
        }
        if webAuthn { return webAuthnDevices(request, uuid: uuid, sub: session.user.sub) }
        switch (request.method, uuid) {
        case ("GET", nil):
            guard request.query["_queryFilter"] == "true" else {
                return Self.amError(400, "Bad Request", "Query request must have a _queryFilter")
            }
            let devices = state.withLock { $0.boundDevices.values.filter { $0.userSub == session.user.sub } }
                .sorted { ($0.created, $0.keyID) < ($1.created, $1.keyID) }
            return .json([
                "result": .array(devices.map(Self.deviceObject)), "resultCount": .number(Double(devices.count)),
                "pagedResultsCookie": .null, "totalPagedResultsPolicy": "NONE", "totalPagedResults": -1,
                "remainingPagedResults": -1,
            ])
        case ("DELETE", let uuid?):
            let removed = state.withLock { s -> BoundDevice? in
                guard let device = s.boundDevices[uuid], device.userSub == session.user.sub else { return nil }
                s.boundDevices[uuid] = nil
                return device
            }
            guard let removed else { return Self.amError(404, "Not Found", "Device not found") }
            return .json(Self.deviceObject(removed))
        default:
            return Self.amError(405, "Method Not Allowed", "Method not allowed")
        }
    }

    private func webAuthnDevices(_ request: HTTPRequest, uuid: String?, sub: String) -> HTTPResponse {
        func object(_ credential: WebAuthnCredential) -> EmulatorJSON {
            let millis = EmulatorJSON.number((credential.created * 1000).rounded())
            return .object([
                "_id": .string(credential.uuid), "_rev": "1", "createdDate": millis, "lastAccessDate": millis,
                "credentialId": .string(Base64URL.encode(credential.credentialID)), "deviceName": .string(credential.deviceName),
                "uuid": .string(credential.uuid), "deviceManagementStatus": false,
            ])
        }
        switch (request.method, uuid) {
        case ("GET", nil):
            guard request.query["_queryFilter"] == "true" else {
                return Self.amError(400, "Bad Request", "Query request must have a _queryFilter")
            }
            let credentials = state.withLock { $0.webAuthnCredentials.values.filter { $0.userSub == sub } }.sorted {
                $0.created < $1.created
            }
            return .json(["result": .array(credentials.map(object)), "resultCount": .number(Double(credentials.count))])
        case ("DELETE", let uuid?):
            let removed = state.withLock { s -> WebAuthnCredential? in
                guard let (key, credential) = s.webAuthnCredentials.first(where: { $0.value.uuid == uuid && $0.value.userSub == sub })
                else {
                    return nil
                }
                s.webAuthnCredentials[key] = nil
                return credential
            }
            guard let removed else { return Self.amError(404, "Not Found", "Device not found") }
            return .json(object(removed))
        default:
            return Self.amError(405, "Method Not Allowed", "Method not allowed")
        }
    }

    /// One record as AM lists it: the key id is its `_id` and `uuid`.
    private static func deviceObject(_ device: BoundDevice) -> EmulatorJSON {
        let millis = EmulatorJSON.number((device.created * 1000).rounded())
        return .object([
            "_id": .string(device.keyID), "_rev": "1", "createdDate": millis, "lastAccessDate": millis,
            "deviceId": .string(device.deviceID), "deviceName": .string(device.deviceName), "uuid": .string(device.keyID),
            "key": .object(device.jwk), "deviceManagementStatus": false,
        ])
    }
}
