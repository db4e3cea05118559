import Foundation
import PingEmulator
import Testing

/// pingcli against the PingFederate layout as Ping documents it (docs/testing.md): no iss by default, JWT
/// access tokens not directly revocable, sign-off URIs ignored when unregistered, a confirmation prompt
/// without id_token_hint or PingFederate cookie.
@Suite("PingFederate fidelity, end to end")
struct PingFederateFidelityTests {
    @Test("pingfederate-default: login (no iss), refresh, userinfo; logout --revoke ends the grant but the JWT access token stays valid")
    func jwtAccessTokenOutlivesTheGrant() throws {
        let (emulator, sandbox) = try fidelitySession { $0.layout = .pingFederate }
        #expect(callbackRedirect(sandbox)?.contains("iss=") == false, "Include Issuer in Authorization Response is off")
        let (access, refresh, run) = try logoutRevoke(emulator, sandbox)
        #expect(run.status == 0, "\(run)")
        // The 200 for the JWT access token proves nothing: pingcli says so, with its expiry.
        #expect(
            run.stderr.contains(
                "pingcli: note: the access token is a JWT, which PingFederate revokes only when token revocation is enabled on its access token manager: it may stay valid until "
            ), "\(run)")
        #expect(run.stderr.contains("Revoking the refresh token ended the grant, so it cannot be renewed."))
        #expect(!emulator.isActive(token: refresh), "revoking the refresh token revokes the grant")
        #expect(emulator.isActive(token: access) && emulator.userinfoStatus(access) == "200")
    }

    @Test(
        "pingfederate-revocation-switches: Enable Token Revocation or an Access Grant GUID claim make logout --revoke end the access token",
        arguments: ["token-revocation", "grant-guid"])
    func revocationSwitches(setting: String) throws {
        let emulator = try startEmulator {
            $0.layout = .pingFederate
            if setting == "token-revocation" { $0.accessTokenRevocation = true } else { $0.accessGrantGUIDClaim = true }
        }
        defer { emulator.stop() }
        let sandbox = Sandbox()
        #expect(sandbox.login(emulator).status == 0)
        let access = try #require(emulator.issuedAccessTokens.last)
        #expect(sandbox.run(["logout", "--revoke"]).status == 0)
        #expect(!emulator.isActive(token: access) && emulator.userinfoStatus(access) == "401")
    }

    @Test("pingfederate-logout-direct: id_token_hint, the PingFederate cookie and a registered URI: straight back")
    func signOffDirect() throws {
        let outcome = try signOff(.pingFederate)
        #expect(outcome.run.status == 0, "\(outcome.run)")
        #expect(outcome.emulator.requests(to: .endSession).map(\.status) == [302])
        #expect(outcome.emulator.endedSessions.count == 1)
    }

    @Test("pingfederate-logout-prompt: without the PingFederate cookie the person confirms, then the browser comes back")
    func signOffAfterConfirming() throws {
        let outcome = try signOff(.pingFederate) { $0.pingFederateCookie = false }
        #expect(outcome.run.status == 0, "\(outcome.run)")
        let requests = outcome.emulator.requests(to: .endSession)
        #expect(requests.map(\.method) == ["GET", "POST"] && requests.map(\.status) == [200, 302])
        #expect(outcome.emulator.endedSessions.count == 1)
    }

    @Test("pingfederate-logout-prompt-unanswered: a person who never confirms leaves pingcli waiting until its timeout")
    func promptNeverConfirmed() throws {
        let outcome = try signOff(.pingFederate, timeout: 5, environment: ["BROWSER_CONFIRM_LOGOUT": "0"]) {
            $0.pingFederateCookie = false
        }
        #expect(outcome.run.status != 0, "\(outcome.run)")
        #expect(outcome.page.contains("id=\"emulator-logout-confirm\""))
        #expect(outcome.emulator.endedSessions.isEmpty)
    }

    @Test("pingfederate-iss-switch: with Include Issuer in Authorization Response, iss comes back and login still works")
    func issuerSwitch() throws {
        let (emulator, sandbox) = try fidelitySession {
            $0.layout = .pingFederate
            $0.authorizationResponseIssuer = true
            $0.signingAlgorithm = .ps256
        }
        defer { emulator.stop() }
        #expect(callbackRedirect(sandbox)?.contains("iss=") == true)
    }
}
