import Foundation
import PingEmulator
import Testing

/// `login` to another issuer on a profile with a session, through the built binary: refused without a
/// terminal unless `--force`; with it, the new session is saved and the old one revoked at its provider.
@Suite struct IssuerSwitchEndToEndTests {
    @Test("issuer-switch-e2e: refused without --force (exit 2, one line), replaced and revoked with it, kept when the new login fails")
    func switchIssuer() throws {
        let (first, sandbox) = try loggedIn()
        defer { first.stop() }
        #expect(sandbox.login(first, ["--scope", "openid profile revoke"]).status == 0)
        let second = try startEmulator()
        defer { second.stop() }
        let firstToken = first.newestTokenLine

        let refused = sandbox.login(second)
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused)")
        #expect(refused.stderr.contains("give --force to replace it"))
        #expect(second.requests(to: .discovery).isEmpty)
        #expect(sandbox.run(["token", "--raw"]).stdout == firstToken)

        // The new provider refuses the code: nothing of the old session is lost or revoked.
        second.faults.tokenErrors["authorization_code"] = OAuthErrorResponse(error: "invalid_grant")
        let failed = sandbox.login(second, ["--force"])
        #expect(failed.status == 1, "\(failed)")
        #expect(first.requests(to: .revoke).isEmpty)
        #expect(sandbox.run(["token", "--raw"]).stdout == firstToken)

        second.faults = Faults()
        let oldRefresh = try #require(first.issuedRefreshTokens.last)
        let forced = sandbox.login(second, ["--force"])
        #expect(forced.status == 0, "\(forced)")
        #expect(forced.stderr.contains("Revoked the refresh token and the access token at"), "\(forced)")
        #expect(first.requests(to: .revoke).map { $0.form["token_type_hint"] } == ["refresh_token", "access_token"])
        #expect(!first.isActive(token: oldRefresh))
        #expect(sandbox.run(["token", "--raw"]).stdout == second.newestTokenLine)
    }
}
