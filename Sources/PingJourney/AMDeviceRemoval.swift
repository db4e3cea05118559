import PingAM
import PingAuthenticators
import PingBase
import PingCrypto
import PingFlowCore
import PingHTTP
import PingOAuth
import PingPlatform
import PingSession
import PingState

/// `devices remove`'s part at AM: the record AM keeps of a key bound on this machine, removed with the
/// person's own AM session, as the Ping SDKs' `FRUserKeys.delete` does. The session is one a journey
/// left in a profile's encrypted cache for the same AM origin and realm; it goes only to that origin, in
/// the header named after the cookie, and never into a message or a trace. Nothing here stops the
/// local removal: the caller removes the local key whatever the outcome.
package struct AMDeviceRemoval {
    package let context: SessionContext

    package init(context: SessionContext) { self.context = context }

    package enum Outcome: Sendable {
        /// AM removed its record, with the AM session saved in `profile`.
        case removed(profile: ProfileName)
        /// AM answered, with the session of `profile`, that it holds no record of the key.
        case notAtAM(profile: ProfileName)
        /// No profile holds an AM session for the key's origin and realm that AM still takes.
        case noSession
        /// AM could not be asked, or its answer was refused (the error's rule says which).
        case failed(PingCLIError)
    }

    /// Which record at AM: where, whose, in which collection, and how it is recognised.
    package struct Target {
        var origin: String
        var realm: String
        var userID: String
        var collection: AMBoundDevices.Collection
        var matches: (AMBoundDevices.Record) -> Bool
    }

    /// Removes AM's record of `record`'s key with the first saved session AM takes for its user.
    package func remove(_ record: DeviceKeyRecord, key: CommandKey) -> Outcome {
        let keyID = record.keyID
        return remove(
            Target(
                origin: record.origin, realm: record.realm, userID: record.userID, collection: .binding,
                matches: { $0.keyID == keyID || $0.uuid == keyID }), key: key)
    }

    /// Removes AM's record of a passkey (its WebAuthn device, found by credential id). The user is the
    /// one the user handle names (base64url of the identity's name or id, as AM makes `userId`).
    package func remove(passkey: PasskeyRecord, key: CommandKey) -> Outcome {
        let credentialID = Base64URL.encode(passkey.credentialID)
        let handle = String(decoding: passkey.userHandle, as: UTF8.self)
        let user = Base64URL.decode(handle).flatMap { String(validating: $0, as: UTF8.self) } ?? passkey.userName
        return remove(
            Target(
                origin: passkey.origin, realm: passkey.realm, userID: user, collection: .webAuthn,
                matches: { $0.credentialID == credentialID }), key: key)
    }

    private func remove(_ record: Target, key: CommandKey) -> Outcome {
        var failure: PingCLIError? = nil
        for (name, profile, target, session) in sessions(for: record, key: key) {
            let transport = context.transports.transport(caFile: profile.caFile, tls: profile.clientTLS, timeout: 30)
            do {
                return try remove(record, at: target, session: session, transport: transport)
                    ? .removed(profile: name) : .notAtAM(profile: name)
            } catch {
                switch error {
                case .endpoint(.sessionRefused): continue  // ended, expired or another person's: another may still be good
                case .endpoint(let refused): failure = failure ?? .failure(refused.message, rule: refused.rule)
                case .transport(let unreachable): failure = failure ?? unreachable
                }
            }
        }
        return failure.map(Outcome.failed) ?? .noSession
    }

    /// Query, then delete the record bound with the key's id; false when AM holds none.
    private func remove(
        _ record: Target, at target: AMSessionTarget, session: SSOToken, transport: any HTTPTransport
    ) throws(AMRemovalError) -> Bool {
        let query = AMBoundDevices.queryRequest(
            target.realm, userID: record.userID, cookieName: target.cookieName, session: session, collection: record.collection)
        let answer = try send(query, transport)
        let records: [AMBoundDevices.Record]
        do { records = try AMBoundDevices.processQuery(answer) } catch { throw .endpoint(error) }
        guard let found = records.first(where: record.matches) else { return false }
        let delete = AMBoundDevices.deleteRequest(
            target.realm, userID: record.userID, record: found, cookieName: target.cookieName, session: session,
            collection: record.collection)
        let deleted = try send(delete, transport)
        do { try AMBoundDevices.processDelete(deleted) } catch { throw .endpoint(error) }
        return true
    }

    private func send(_ request: HTTPRequest, _ transport: any HTTPTransport) throws(AMRemovalError) -> HTTPResponse {
        do { return try transport.send(request) } catch {
            throw .transport(error.asCLIError(doing: "removing the device key's record at AM", endpoint: "AM device", url: request.url))
        }
    }

    /// The profiles whose journey saved an AM session for the key's origin and realm, by name.
    private func sessions(
        for record: Target, key: CommandKey
    ) -> [(ProfileName, Profile, AMSessionTarget, SSOToken)] {
        context.store.profileNames().compactMap { name in
            guard let profile = try? context.store.readProfile(name), let target = AMSessionTarget(profile),
                target.realm.origin == record.origin, target.realm.realmName == record.realm,
                let session = (try? context.store.readTokens(name, profile: profile, key: key))?.amSession
            else { return nil }
            return (name, profile, target, session)
        }
    }
}

/// AM's answer refused, or no answer.
package enum AMRemovalError: Error {
    case endpoint(AMBoundDevicesError)
    case transport(PingCLIError)
}
