import Foundation
import PingEmulator
import Testing

/// pingcli against the PingOne layout as Ping documents it (docs/testing.md): RS256, revocation only of
/// custom-resource tokens with a sid, sign-off URIs matched exactly.
@Suite("PingOne fidelity, end to end")
struct PingOneFidelityTests {
    @Test("pingone-api-token: login, refresh, userinfo; logout --revoke leaves a PingOne-API token live (Ping's rule)")
    func apiTokenIsNotRevoked() throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        let sandbox = Sandbox()
        loginRefreshUserinfo(emulator, sandbox)
        #expect(callbackRedirect(sandbox)?.contains("iss=") == true, "PingOne sends iss")
        let access = try #require(emulator.issuedAccessTokens.last)
        let refresh = try #require(emulator.issuedRefreshTokens.last)
        let run = sandbox.run(["logout", "--revoke"])
        #expect(run.status == 0, "\(run)")
        #expect(emulator.requests(to: .revoke).map(\.status) == [200, 200])
        #expect(emulator.isActive(token: access) && emulator.isActive(token: refresh), "PingOne API tokens cannot be revoked")
        #expect(emulator.userinfoStatus(access) == "200")
        #expect(sandbox.run(["token", "--raw"]).status == 4, "the local cache is wiped all the same")
    }

    @Test("pingone-custom-resource: with the revoke scope (a custom resource in aud, and a sid) logout --revoke revokes both")
    func customResourceTokenIsRevoked() throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        let sandbox = Sandbox()
        loginRefreshUserinfo(emulator, sandbox, scope: "openid profile email revoke")
        let access = try #require(emulator.issuedAccessTokens.last)
        let refresh = try #require(emulator.issuedRefreshTokens.last)
        let run = sandbox.run(["logout", "--revoke"])
        #expect(run.status == 0, "\(run)")
        #expect(!emulator.isActive(token: access) && !emulator.isActive(token: refresh))
        #expect(emulator.userinfoStatus(access) == "401")
    }

    @Test("pingone-signoff-exact: logout --end-session --port P with http://127.0.0.1:P/logout registered comes back")
    func signOffExact() throws {
        let outcome = try signOff(.pingOne)
        #expect(outcome.run.status == 0, "\(outcome.run)")
        let request = try #require(outcome.emulator.requests(to: .endSession).first)
        #expect(request.query["post_logout_redirect_uri"] == "http://127.0.0.1:\(outcome.port)/logout")
        #expect(request.status == 302)
        #expect(outcome.emulator.endedSessions.count == 1)
    }

    @Test("pingone-signoff-mismatch: another port gets PingOne's error page, pingcli is never redirected to and gives up")
    func signOffMismatch() throws {
        let outcome = try signOff(.pingOne, registeredElsewhere: true, timeout: 5)
        #expect(outcome.run.status != 0, "\(outcome.run)")
        #expect(outcome.emulator.requests(to: .endSession).map(\.status) == [400])
        #expect(outcome.page.contains("id=\"emulator-signoff-error\""))
        #expect(!outcome.sandbox.browserLog.contains { $0.contains(":\(outcome.port)/logout") }, "no redirect back")
        #expect(outcome.emulator.endedSessions.isEmpty)
    }

    @Test(
        "pingone-switches: login, refresh and userinfo still work with the administrator's switches flipped",
        arguments: ["iss-off", "at+jwt", "grace", "ps256"])
    func switchesFlipped(setting: String) throws {
        let emulator = try startEmulator {
            switch setting {
            case "iss-off": $0.authorizationResponseIssuer = false
            case "at+jwt": $0.accessTokenType = "at+jwt"
            case "grace": $0.refreshTokenGracePeriod = 86400
            default: $0.signingAlgorithm = .ps256
            }
        }
        defer { emulator.stop() }
        let sandbox = Sandbox()
        loginRefreshUserinfo(emulator, sandbox)
        #expect(callbackRedirect(sandbox)?.contains("iss=") == (setting != "iss-off"))
    }
}
