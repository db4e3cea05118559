import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A sandbox signed in to one emulator, and a second emulator (another issuer) to switch to; the sandbox
/// stops both.
func signedInBeforeSwitch() throws -> (first: Emulator, second: Emulator, sandbox: Sandbox) {
    let first = try startEmulator()
    let second = try startEmulator()
    let sandbox = Sandbox(stopping: first, second)
    let run = sandbox.login(first)
    #expect(run.status == 0, "\(run)")
    return (first, second, sandbox)
}

/// `login` to another issuer on a profile with a session, through the built binary: refused without a
/// terminal unless `--force`; with it, the new session is saved and the old one revoked at its provider.
@Suite struct IssuerSwitchEndToEndTests {
    @Test("issuer-switch-e2e: refused without --force (exit 2, one line), replaced and revoked with it, kept when the new login fails")
    func switchIssuer() throws {
        let (first, second, sandbox) = try signedInBeforeSwitch()
        #expect(sandbox.login(first, ["--scope", "openid profile revoke"]).status == 0)
        let firstToken = first.newestTokenLine

        let refused = sandbox.login(second)
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused)")
        #expect(refused.stderr.contains("give --force to replace it"))
        #expect(refused.rule == "issuer-switch-refused", "\(refused)")
        #expect(second.requests(to: .discovery).isEmpty)
        #expect(sandbox.run(["token", "--raw"]).stdout == firstToken)

        // The new provider refuses the code: nothing of the old session is lost or revoked.
        second.faults.tokenErrors["authorization_code"] = CannedOAuthError(error: "invalid_grant")
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

    @Test(
        "issuer-switch-terminal: on a real terminal (script) the question is asked on stderr and read from the terminal; n keeps the session, y replaces it",
        .enabled(if: DebianTools.script != nil, "script (bsdutils) is missing"))
    func onTerminal() throws {
        let (first, second, sandbox) = try signedInBeforeSwitch()
        let firstToken = first.newestTokenLine
        var environment = sandbox.environment
        environment["PINGCLI"] = Locations.pingcli
        func typed(_ answer: String) -> CLIRun {
            let path = sandbox.root + "/answer-\(UUID().uuidString)"
            _ = FileManager.default.createFile(atPath: path, contents: Data(answer.utf8))
            let input = open(path, O_RDONLY | O_CLOEXEC)
            defer { close(input) }
            let command = "\"$PINGCLI\" login --issuer \(second.issuer) --client-id pingcli-test --timeout 30"
            return runProcess("/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment, timeout: 90, stdin: input)
        }
        let declined = typed("n\n")
        #expect(declined.stdout.contains("profile \"default\" is signed in to \(first.issuer)."), "\(declined)")
        #expect(
            declined.stdout.contains("Replace that session with a sign-in to \(second.issuer), revoking the old tokens? [y/N]"),
            "\(declined)")
        #expect(declined.stdout.contains("keeps its session at \(first.issuer)"), "\(declined)")
        #expect(second.requests(to: .discovery).isEmpty)
        #expect(sandbox.run(["token", "--raw"]).stdout == firstToken)

        let accepted = typed("y\n")
        #expect(accepted.stdout.contains("Logged in to \(second.issuer)"), "\(accepted)")
        #expect(accepted.stdout.contains("Revoking the previous session of profile \"default\" at \(first.issuer)."), "\(accepted)")
        #expect(first.requests(to: .revoke).count == 2)
        #expect(sandbox.run(["token", "--raw"]).stdout == second.newestTokenLine)
    }
}
