import Foundation
import PingEmulator
import Testing

/// pingcli against the PingOne layout as Ping documents it (docs/testing.md): RS256, revocation only of
/// custom-resource tokens with a sid, sign-off URIs matched exactly.
@Suite("PingOne fidelity, end to end")
struct PingOneFidelityTests {
    @Test("pingone-api-token: login, refresh, userinfo; logout --revoke leaves a PingOne-API token live (Ping's rule)")
    func apiTokenIsNotRevoked() throws {
        let (emulator, sandbox) = try fidelitySession()
        #expect(callbackRedirect(sandbox)?.contains("iss=") == true, "PingOne sends iss")
        let (access, refresh, run) = try logoutRevoke(emulator, sandbox)
        // Both answered 200, but pingcli reads the token's aud and says what PingOne's rule did: nothing.
        #expect(run.status == 1, "\(run)")
        #expect(run.rule == "pingone-no-sid", "\(run)")
        #expect(
            run.stderr.contains(
                "pingcli: profile \"default\": PingOne did not revoke the tokens: these tokens are for the PingOne API (aud https://api.pingone.com), and PingOne revokes only tokens for a custom resource; the refresh token stays valid there until it expires (it is removed here)"
            ), "\(run)")
        #expect(!run.stderr.contains("Revoked"))
        #expect(emulator.requests(to: .revoke).map(\.status) == [200, 200])
        #expect(emulator.isActive(token: access) && emulator.isActive(token: refresh), "PingOne API tokens cannot be revoked")
        #expect(emulator.userinfoStatus(access) == "200")
        #expect(sandbox.run(["token", "--raw"]).status == 4, "the local cache is wiped all the same")
    }

    @Test("pingone-api-token-refresh-refused: a refused refresh-token revocation is still reported beside PingOne's rule (exit 1)")
    func refusedRefreshBesideTheRule() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        #expect(sandbox.login(emulator).status == 0)
        var faults = emulator.faults
        faults.responseOverrides[.revoke] = CannedResponse(
            status: 400, contentType: "application/json", body: #"{"error":"invalid_request"}"#, times: 1)
        emulator.faults = faults
        let run = sandbox.run(["logout", "--revoke"])
        #expect(run.status == 1, "\(run)")
        #expect(
            run.stderr.contains(
                "pingcli: profile \"default\": the refresh token may still be live at the server: revocation was refused (HTTP 400: invalid_request"
            ), "\(run)")
        #expect(run.stderr.contains("pingcli: note: PingOne did not revoke the access token: these tokens are for the PingOne API"))
        #expect(run.rule == "logout-revocation-refused", "\(run)")
        #expect(!run.stderr.contains("Revoked"))
    }

    @Test("pingone-custom-resource: with the revoke scope (a custom resource in aud, and a sid) logout --revoke revokes both")
    func customResourceTokenIsRevoked() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        loginRefreshUserinfo(emulator, sandbox, scope: "openid profile email revoke")
        let (access, refresh, run) = try logoutRevoke(emulator, sandbox)
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("Revoked the refresh token and the access token at http://127.0.0.1:"), "\(run)")
        #expect(!run.stderr.contains("note:"))
        #expect(!emulator.isActive(token: access) && !emulator.isActive(token: refresh))
        #expect(emulator.userinfoStatus(access) == "401")
    }

    @Test("pingone-client-credentials: a machine token (custom resource, no sid) is not revoked; pingcli notes it, exit 0")
    func clientCredentialsTokenIsNotRevoked() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic", layout: .pingOne))
        let login = sandbox.run(
            ["login", "--client-credentials", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--scope", "revoke"],
            environment: ["PINGCLI_CLIENT_SECRET": confidentialSecret])
        #expect(login.status == 0, "\(login)")
        let access = try #require(emulator.issuedAccessTokens.last)
        let run = sandbox.run(["logout", "--revoke"])
        #expect(run.status == 0, "\(run)")
        #expect(
            run.stderr.contains(
                "pingcli: note: PingOne did not revoke the access token: these tokens carry no session (no sid claim, as client-credentials tokens never do), and PingOne revokes only tokens that do; it stays valid until "
            ), "\(run)")
        #expect(emulator.isActive(token: access))
    }

    @Test("pingone-rolling-duration: once the grant's refresh token duration has passed, token asks for a login (exit 4)")
    func refreshTokenDurationRunsOut() throws {
        // An hour for the grant; the emulator's clock, not the test, makes it pass. The access tokens live
        // 20 s, inside pingcli's 30 s refresh threshold, so every `token` asks for a refresh.
        let emulator = try startEmulator {
            $0.accessTokenLifetime = 20
            $0.refreshTokenRollingDuration = 3600
        }
        defer { emulator.stop() }
        let sandbox = Sandbox()
        #expect(sandbox.login(emulator).status == 0)
        let renewed = sandbox.run(["token", "--raw"])
        #expect(renewed.status == 0 && renewed.stdout == emulator.newestTokenLine, "\(renewed)")
        #expect(emulator.requests(to: .token).filter { $0.grantType == "refresh_token" }.map(\.status) == [200])
        emulator.advanceClock(by: 3601)
        let expired = sandbox.run(["token", "--raw"])
        #expect(expired.status == 4, "\(expired)")
        #expect(expired.rule == "session-expired", "\(expired)")
        #expect(
            // The access token (20 s) still works by pingcli's clock: said so, with the login to run.
            expired.stderr.contains("cannot renew its access token (the refresh token was rejected")
                && expired.stderr.contains("run pingcli login --profile default"), "\(expired)")
        #expect(emulator.requests(to: .token).filter { $0.grantType == "refresh_token" }.map(\.status) == [200, 400])
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

    @Test(
        "pingone-switches: login, refresh and userinfo still work with the administrator's switches flipped",
        arguments: ["iss-off", "at+jwt", "grace", "ps256"])
    func switchesFlipped(setting: String) throws {
        let (emulator, sandbox) = try fidelitySession {
            switch setting {
            case "iss-off": $0.authorizationResponseIssuer = false
            case "at+jwt": $0.accessTokenType = "at+jwt"
            case "grace": $0.refreshTokenGracePeriod = 86400
            default: $0.signingAlgorithm = .ps256
            }
        }
        defer { emulator.stop() }
        #expect(callbackRedirect(sandbox)?.contains("iss=") == (setting != "iss-off"))
    }
}
