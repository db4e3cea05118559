import Foundation
import Testing

@testable import PingEmulator

/// PingOne revokes only custom-resource tokens with a `sid`; PingFederate's JWT access tokens need the
/// access token manager's switches. A token that is kept is answered 200 and keeps working.
@Suite struct RevocationRuleTests {
    struct Session {
        var access: String
        var refresh: String
    }

    func signIn(_ emulator: Emulator, scope: String) throws -> Session {
        let tokens = try #require(redeem(emulator, code: obtainCode(emulator, scope: scope)).json)
        return Session(
            access: try #require(tokens["access_token"]?.stringValue), refresh: try #require(tokens["refresh_token"]?.stringValue))
    }

    /// A sign-in at an emulator with `configuration`, for `body`.
    func withSession<T>(
        _ configuration: EmulatorConfiguration = .init(), scope: String, _ body: (Emulator, Session) throws -> T
    ) throws -> T {
        try withEmulator(configuration) { emulator in try body(emulator, try signIn(emulator, scope: scope)) }
    }

    /// A sign-in (scope openid profile) at a PingFederate layout with `setting` turned on.
    func withPingFederateSession(_ setting: WritableKeyPath<EmulatorConfiguration, Bool>, _ body: (Emulator, Session) throws -> Void) throws
    {
        var configuration = EmulatorConfiguration(layout: .pingFederate)
        configuration[keyPath: setting] = true
        try withSession(configuration, scope: "openid profile", body)
    }

    func revoke(_ emulator: Emulator, _ token: String, form extra: [(String, String)] = [("client_id", "pingcli-test")]) throws -> Int {
        try http("POST", endpoint(emulator, .revoke), form: [("token", token)] + extra).status
    }

    func userinfo(_ emulator: Emulator, _ token: String) throws -> Int {
        try http("GET", endpoint(emulator, .userinfo), headers: ["Authorization": "Bearer \(token)"]).status
    }

    @Test("pingone-api-token: aud is only the PingOne API; revocation answers 200, and both tokens keep working")
    func pingOneAPITokenIsKept() throws {
        try withSession(scope: "openid profile email") { (emulator: Emulator, session: Session) throws in
            #expect(JWSCheck.parts(session.access).claims?["aud"] == [.string(Emulator.pingOneAPIAudience)])
            #expect(try revoke(emulator, session.refresh) == 200)
            #expect(try revoke(emulator, session.access) == 200)
            #expect(emulator.isActive(token: session.access) && emulator.isActive(token: session.refresh))
            #expect(try userinfo(emulator, session.access) == 200)
            #expect(try refresh(emulator, session.refresh).status == 200)
        }
    }

    @Test("pingone-custom-resource: the revoke scope puts the SDK Revoke Resource in aud; revoking the refresh token ends the grant")
    func pingOneCustomResourceIsRevoked() throws {
        try withSession(scope: "openid profile revoke") { (emulator: Emulator, session: Session) throws in
            let claims = try #require(JWSCheck.parts(session.access).claims)
            #expect(claims["aud"] == ["https://api.example.com"])
            #expect(claims["sid"]?.stringValue?.isEmpty == false)
            #expect(try revoke(emulator, session.refresh) == 200)
            #expect(!emulator.isActive(token: session.access) && !emulator.isActive(token: session.refresh))
            #expect(try userinfo(emulator, session.access) == 401)
            #expect(try refresh(emulator, session.refresh).json?["error"] == "invalid_grant")
        }
    }

    @Test("pingone-no-sid: a client_credentials token for the custom resource has no sid and is kept")
    func pingOneClientCredentialsIsKept() throws {
        let client = RegisteredClient(clientID: "machine", clientSecret: "s3cret")
        try withEmulator(.init(clients: [client])) { emulator in
            let credentials = [("client_id", "machine"), ("client_secret", "s3cret")]
            let tokens = try #require(
                http("POST", endpoint(emulator, .token), form: [("grant_type", "client_credentials"), ("scope", "revoke")] + credentials)
                    .json)
            let access = try #require(tokens["access_token"]?.stringValue)
            let claims = try #require(JWSCheck.parts(access).claims)
            #expect(claims["aud"] == ["https://api.example.com"] && claims["sid"] == nil)
            #expect(try revoke(emulator, access, form: credentials) == 200)
            #expect(emulator.isActive(token: access))
        }
    }

    @Test("pingone-resources: a configured resource owns its own scopes")
    func pingOneConfiguredResource() throws {
        var configuration = EmulatorConfiguration()
        configuration.resources = [CustomResource(name: "Orders", audience: "https://orders.example.com", scopes: ["email"])]
        try withSession(configuration, scope: "openid email revoke") { (emulator: Emulator, session: Session) throws in
            #expect(JWSCheck.parts(session.access).claims?["aud"] == ["https://orders.example.com"])
            #expect(try revoke(emulator, session.access) == 200)
            #expect(!emulator.isActive(token: session.access))
        }
    }

    @Test("pingfederate-default: a JWT access token is not revoked directly; revoking the refresh token leaves it valid")
    func pingFederateDefault() throws {
        try withSession(.init(layout: .pingFederate), scope: "openid profile") { (emulator: Emulator, session: Session) throws in
            #expect(try revoke(emulator, session.access) == 200)
            #expect(emulator.isActive(token: session.access))
            #expect(try revoke(emulator, session.refresh) == 200)
            #expect(!emulator.isActive(token: session.refresh))
            #expect(try refresh(emulator, session.refresh).json?["error"] == "invalid_grant")
            #expect(emulator.isActive(token: session.access))
            #expect(try userinfo(emulator, session.access) == 200)
        }
    }

    @Test("pingfederate-token-revocation: with Enable Token Revocation the JWT access token is revoked directly")
    func pingFederateDirectRevocation() throws {
        try withPingFederateSession(\.accessTokenRevocation) { (emulator: Emulator, session: Session) throws in
            #expect(try revoke(emulator, session.access) == 200)
            #expect(!emulator.isActive(token: session.access))
            #expect(try userinfo(emulator, session.access) == 401)
            #expect(emulator.isActive(token: session.refresh), "revoking an access token leaves the grant")
        }
    }

    @Test("pingfederate-grant-guid: with an Access Grant GUID claim, revoking the refresh token rejects its access tokens")
    func pingFederateIndirectRevocation() throws {
        try withPingFederateSession(\.accessGrantGUIDClaim) { (emulator: Emulator, session: Session) throws in
            #expect(try revoke(emulator, session.access) == 200)
            #expect(emulator.isActive(token: session.access), "still not directly revocable")
            #expect(try revoke(emulator, session.refresh) == 200)
            #expect(!emulator.isActive(token: session.access))
            #expect(try userinfo(emulator, session.access) == 401)
        }
    }

    @Test("pingam: every token is revocable")
    func pingAM() throws {
        try withSession(.init(layout: .pingAM), scope: "openid profile") { (emulator: Emulator, session: Session) throws in
            #expect(try revoke(emulator, session.access) == 200)
            #expect(!emulator.isActive(token: session.access))
        }
    }
}
