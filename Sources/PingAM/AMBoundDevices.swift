import PingBase
import PingHTTP
import PingOAuth

/// AM's records of the keys Device Binding nodes bound to a user, as its REST API names them:
/// `{base}/json/realms/root/realms/{realm}/users/{user}/devices/2fa/binding`, queried with
/// `_queryFilter=true` and deleted by the record's `uuid`
/// (https://docs.pingidentity.com/pingam/8/am-authentication/device-binding.html; the path and
/// `Accept-API-Version: resource=1.0` as the Ping SDKs send them). The person's own AM session, in the
/// header named after the cookie, authorises both. The `uuid` AM answers with becomes a path segment
/// of the next request, so it passes a gate first.
public enum AMBoundDevices {
    /// One bound-device record AM holds (`result[]`): only what removal needs; never the public key.
    public struct Record: Sendable, Equatable {
        /// The record's id, for `DELETE …/binding/{uuid}`: checked, safe as a path segment.
        public let uuid: String
        /// The key id (`key.kid`) it was bound with; AM makes `uuid` the same.
        public let keyID: String?
        /// A WebAuthn device's `credentialId` (base64url).
        public var credentialID: String? = nil
    }

    /// Which of a user's device collections: keys Device Binding bound, or credentials WebAuthn
    /// Registration registered (`…/devices/2fa/webauthn`, the same shapes with `credentialId`).
    public enum Collection: String, Sendable {
        case binding
        case webAuthn = "webauthn"
    }

    /// `…/users/{user}/devices/2fa/binding`, the user id percent-encoded as one path segment.
    package static func collectionURL(_ realm: AMRealm, userID: String, _ collection: Collection = .binding) -> String {
        realm.base + "/json/" + realm.realmPath + "/users/" + FormEncoding.escape(userID) + "/devices/2fa/" + collection.rawValue
    }

    package static func headers(_ cookieName: AMCookieName, _ session: SSOToken) -> [(name: String, value: String)] {
        [("Accept", "application/json"), ("Accept-API-Version", "resource=1.0"), (cookieName.value, session.value)]
    }

    /// `GET …/binding?_queryFilter=true`: the user's bound devices.
    public static func queryRequest(
        _ realm: AMRealm, userID: String, cookieName: AMCookieName, session: SSOToken, collection: Collection = .binding
    ) -> HTTPRequest {
        HTTPRequest(
            method: .get, url: collectionURL(realm, userID: userID, collection) + "?_queryFilter=true",
            headers: headers(cookieName, session))
    }

    /// `DELETE …/binding/{uuid}`: AM forgets the record (its public key no longer verifies a signature).
    public static func deleteRequest(
        _ realm: AMRealm, userID: String, record: Record, cookieName: AMCookieName, session: SSOToken, collection: Collection = .binding
    ) -> HTTPRequest {
        HTTPRequest(
            method: HTTPRequest.Method(rawValue: "DELETE"), url: collectionURL(realm, userID: userID, collection) + "/" + record.uuid,
            headers: headers(cookieName, session))
    }

    /// The records of a query's answer, through their gate: HTTP 200, a JSON object whose `result` is an
    /// array of objects, each with a `uuid` (or `_id`) of 1 to 128 unreserved characters, never `.` or `..`.
    /// A 401 or 403 says AM does not take the session for this user.
    public static func processQuery(_ response: HTTPResponse) throws(AMBoundDevicesError) -> [Record] {
        try checkStatus(response)
        guard let object = response.jsonObject else { throw .notJSON(contentType: response.contentType) }
        guard let entries = object["result"]?.arrayValue else { throw .malformed("it has no result array") }
        var records: [Record] = []
        for entry in entries {
            guard let fields = entry.objectValue else { throw .malformed("an entry of result is not an object") }
            guard let uuid = fields["uuid"]?.stringValue ?? fields["_id"]?.stringValue else {
                throw .malformed("an entry has no uuid")
            }
            guard isRecordID(uuid) else { throw .malformed("an entry's uuid is not a record id (unreserved characters only)") }
            records.append(
                Record(
                    uuid: uuid, keyID: fields["key"]?.objectValue?["kid"]?.stringValue,
                    credentialID: fields["credentialId"]?.stringValue))
        }
        return records
    }

    /// The record bound with `keyID`, among `records`.
    public static func record(forKey keyID: String, in records: [Record]) -> Record? {
        records.first { $0.keyID == keyID || $0.uuid == keyID }
    }

    /// Whether AM removed the record: 200 (the removed record in the body) or 204.
    public static func processDelete(_ response: HTTPResponse) throws(AMBoundDevicesError) {
        guard response.status != 204 else { return }
        try checkStatus(response)
    }

    private static func checkStatus(_ response: HTTPResponse) throws(AMBoundDevicesError) {
        switch response.status {
        case 200: return
        case 401, 403: throw .sessionRefused(response.status)
        default: throw .httpStatus(response.status, contentType: response.contentType)
        }
    }

    /// A record id safe as one path segment: RFC 3986 unreserved characters, 1 to 128 of them, not a dot segment.
    package static func isRecordID(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 128, text != ".", text != ".." else { return false }
        return text.utf8.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || "-._~".utf8.contains($0) }
    }
}

/// Why AM's bound-device endpoint gave no usable answer.
public enum AMBoundDevicesError: Error, Sendable, Equatable {
    /// 401 or 403: the session ended, expired, or is not this user's.
    case sessionRefused(Int)
    case httpStatus(Int, contentType: String?)
    case notJSON(contentType: String?)
    /// A JSON object that is not AM's query answer, or a record id refused at its gate.
    case malformed(String)

    public var message: String {
        switch self {
        case .sessionRefused(let status): "AM's device endpoint refused the saved AM session (HTTP \(status)): it ended or expired"
        case .httpStatus(let status, let contentType): EndpointAnswer.status("AM's device endpoint", status, contentType: contentType)
        case .notJSON(let contentType): EndpointAnswer.notJSON("AM's device endpoint's answer", contentType: contentType)
        case .malformed(let reason): "AM's device endpoint's answer was refused: \(reason)"
        }
    }

    public var rule: Rule { .amDeviceRecord }
}
