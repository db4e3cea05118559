import Foundation
import PingEmulator
import Testing

@testable import PingBase
@testable import PingLogin
@testable import PingOAuth

#if canImport(Glibc)
    import Glibc
#endif

/// A login to another issuer on a profile that holds a session: asked on a terminal, refused without
/// one unless `--force`, and the old session revoked at its own provider only after the new one is saved.
@Suite struct IssuerSwitchTests {
    /// A profile signed in to the first provider with PingOne's `revoke` scope (so PingOne revokes its
    /// tokens), and a second provider on another port: another issuer.
    func signedInWithSecond(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws -> (FlowHarness, Emulator) {
        let harness = try FlowHarness()
        let first = harness.login(["--scope", "openid profile revoke"])
        try #require(first.status == 0, "\(first)")
        return (harness, try harness.addEmulator(configure))
    }

    func loginSecond(_ harness: FlowHarness, _ second: Emulator, _ extra: [String] = []) -> FlowRun {
        harness.run(["login", "--issuer", second.issuer, "--client-id", "pingcli-test", "--timeout", "60"] + extra)
    }

    /// A pipe on standard input holding `answer`, as a person's typing on the terminal.
    func typed(_ answer: String, into harness: FlowHarness) -> Int32 {
        var pipe: [Int32] = [0, 0]
        #expect(Glibc.pipe(&pipe) == 0)
        _ = answer.withCString { write(pipe[1], $0, strlen($0)) }
        close(pipe[1])
        harness.input = pipe[0]
        harness.inputIsTerminal = true
        harness.errorIsTerminal = true
        return pipe[0]
    }

    @Test("issuer-switch-refused: without a terminal and without --force, one usage line naming --force; nothing is touched")
    func refused() throws {
        let (harness, second) = try signedInWithSecond()
        let token = harness.emulator.newestTokenLine
        let run = loginSecond(harness, second)
        expectOneLineError(run, status: 2, contains: ["--force", harness.emulator.issuer, second.issuer], secrets: [])
        #expect(second.requests(to: .discovery).isEmpty, "refused before any request to the new provider")
        #expect(harness.emulator.requests(to: .revoke).isEmpty)
        #expect(harness.run(["token", "--raw"]).stdout == token, "the old session still works")

        // The rule, when the command is called directly.
        let (context, _) = try harness.context()
        let issuer = try IssuerURL(second.issuer)
        #expect(throws: PingCLIError.self) {
            try LoginCommand.replacedSession(.default, issuer: issuer, force: false, key: context.store.commandKey(), context: context)
        }
        do throws(PingCLIError) {
            _ = try LoginCommand.replacedSession(.default, issuer: issuer, force: false, key: context.store.commandKey(), context: context)
        } catch {
            #expect(error.rule == .issuerSwitchRefused)
        }
    }

    @Test("issuer-switch-same-issuer: a login to the same issuer asks nothing (a new session there replaces the old one)")
    func sameIssuer() throws {
        let (harness, _) = try signedInWithSecond()
        let run = harness.login(["--scope", "openid profile revoke"])
        #expect(run.status == 0, "\(run)")
        #expect(harness.emulator.requests(to: .revoke).isEmpty)
    }

    @Test("issuer-switch-force: the new session is saved, then the old tokens are revoked at the old provider, refresh token first")
    func forced() throws {
        let (harness, second) = try signedInWithSecond()
        let oldRefresh = try #require(harness.emulator.issuedRefreshTokens.last)
        let oldAccess = try #require(harness.emulator.issuedAccessTokens.last)
        let run = loginSecond(harness, second, ["--force"])
        #expect(run.status == 0, "\(run)")
        let revocations = harness.emulator.requests(to: .revoke)
        #expect(revocations.map { $0.form["token_type_hint"] } == ["refresh_token", "access_token"])
        #expect(revocations.map { $0.form["token"] } == [oldRefresh, oldAccess])
        #expect(!harness.emulator.isActive(token: oldRefresh))
        let lines = run.stderr.split(separator: "\n").map(String.init)
        let loggedIn = try #require(lines.firstIndex { $0.hasPrefix("Logged in to \(second.issuer)") })
        let revoking = try #require(lines.firstIndex { $0.hasPrefix("Revoking the previous session of profile \"default\" at") })
        #expect(loggedIn < revoking, "said after the new session is saved")
        #expect(lines.contains { $0.hasPrefix("Revoked the refresh token and the access token at") }, "\(run)")
        #expect(harness.run(["token", "--raw"]).stdout == second.newestTokenLine)
        #expect(harness.run(["status"]).stdout.contains(second.issuer))
    }

    @Test(
        "issuer-switch-newest-refresh-token: a refresh of the old session while the person signs in elsewhere rotates its refresh token; the newest one is revoked"
    )
    func rotatedDuringSignIn() throws {
        let (harness, second) = try signedInWithSecond()
        let first = harness.emulator
        let before = try #require(first.issuedRefreshTokens.last)
        // While the browser is at the new provider, a script's token call refreshes the old session.
        // Weakly: the harness holds its browser, so a strong capture would keep both alive (LSan reports it).
        harness.browser = RecordingBrowser(emulator: first) { [weak harness] in
            _ = harness?.run(["token", "--raw", "--min-ttl", "7200"])
        }
        let run = loginSecond(harness, second, ["--force"])
        #expect(run.status == 0, "\(run)")
        #expect(first.refreshes.count == 1, "the old session was refreshed during the sign-in")
        let newest = try #require(first.issuedRefreshTokens.last)
        #expect(newest != before, "the refresh rotated the refresh token")
        let revoked = first.requests(to: .revoke).filter { $0.form["token_type_hint"] == "refresh_token" }.map { $0.form["token"] }
        #expect(revoked == [newest], "the rotated, newest refresh token is the one revoked")
        #expect(!first.isActive(token: newest))
    }

    @Test("issuer-switch-failed-login-keeps-old: a new login that fails revokes nothing and leaves the old session usable")
    func failedLoginKeepsOld() throws {
        let (harness, second) = try signedInWithSecond()
        second.faults.tokenErrors["authorization_code"] = CannedOAuthError(error: "invalid_grant")
        let token = harness.emulator.newestTokenLine
        let run = loginSecond(harness, second, ["--force"])
        #expect(run.status == 1, "\(run)")
        #expect(harness.emulator.requests(to: .revoke).isEmpty)
        #expect(harness.emulator.isActive(token: try #require(harness.emulator.issuedRefreshTokens.last)))
        #expect(harness.run(["token", "--raw"]).stdout == token)
        #expect(harness.run(["status"]).stdout.contains(harness.emulator.issuer))
    }

    @Test("issuer-switch-revocation-reported: a revocation the old provider refuses is a warning; the login still succeeds")
    func revocationFailureReported() throws {
        let (harness, second) = try signedInWithSecond()
        harness.emulator.faults.responseOverrides[.revoke] = CannedResponse(
            status: 400, contentType: "application/json", body: #"{"error":"invalid_request"}"#)
        let run = loginSecond(harness, second, ["--force"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("pingcli: warning: previous session at \(harness.emulator.issuer): "), "\(run)")
        #expect(run.stderr.contains("the refresh token may still be live at the server"), "\(run)")
        #expect(harness.run(["token", "--raw"]).stdout == second.newestTokenLine)
    }

    @Test("issuer-switch-unrevocable-reported: an old provider with no revocation endpoint: said, and the login succeeds")
    func noRevocationEndpoint() throws {
        let harness = try FlowHarness()
        harness.emulator.faults.discoveryOverrides["revocation_endpoint"] = .null
        try #require(harness.login().status == 0)
        let second = try harness.addEmulator()
        let run = loginSecond(harness, second, ["--force"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("has no revocation_endpoint"), "\(run)")
        #expect(harness.emulator.requests(to: .revoke).isEmpty)
    }

    @Test("issuer-switch-confirm: on a terminal, y replaces the session (and revokes the old one), N keeps it")
    func confirmOnTerminal() throws {
        let (harness, second) = try signedInWithSecond()
        let token = harness.emulator.newestTokenLine
        let no = typed("n\n", into: harness)
        defer { close(no) }
        let declined = loginSecond(harness, second)
        #expect(declined.status == 2, "\(declined)")
        #expect(declined.stderr.contains("Replace that session with a sign-in to \(second.issuer), revoking the old tokens? [y/N] "))
        #expect(declined.stderr.contains("keeps its session at \(harness.emulator.issuer)"))
        #expect(second.requests(to: .discovery).isEmpty)
        #expect(harness.run(["token", "--raw"]).stdout == token)

        let yes = typed("y\n", into: harness)
        defer { close(yes) }
        let accepted = loginSecond(harness, second)
        #expect(accepted.status == 0, "\(accepted)")
        #expect(harness.emulator.requests(to: .revoke).count == 2)
        harness.inputIsTerminal = false
        #expect(harness.run(["token", "--raw"]).stdout == second.newestTokenLine)
    }
}
