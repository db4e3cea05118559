import Foundation
import PingEmulator
import Testing

/// Each error issue 31 found pointing at the wrong next step, through the built binary: the advice it
/// gives now, its exit status, and nothing on stdout.
@Suite("errors name the right next step")
struct NextStepTests {
    @Test("next-step-par-invalid-client: PAR's invalid_client names the client id (a public client's settings), not --no-par")
    func parInvalidClient() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let run = sandbox.run(["login", "--issuer", emulator.issuer, "--client-id", "nobody-knows-me", "--timeout", "30"])
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == "par-error-object", "\(run)")
        #expect(
            run.stderr.contains(
                "the provider does not accept client \"nobody-knows-me\" as a public client: check --client-id, and that the application is a native app"
            ), "\(run)")
        #expect(!run.stderr.contains("--no-par"), "\(run)")
        #expect(sandbox.browserLog.isEmpty, "no browser for a refused client")
    }

    @Test("next-step-wrong-secret: a wrong client secret is named as the thing to check, with where it comes from")
    func wrongSecret() throws {
        let emulator = try confidentialEmulator(method: "client_secret_basic")
        defer { emulator.stop() }
        let run = Sandbox().run(
            ["login", "--client-credentials", "--issuer", emulator.issuer, "--client-id", "pingcli-test"],
            environment: ["PINGCLI_CLIENT_SECRET": "not-the-secret"])
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == "token-error-object", "\(run)")
        #expect(
            run.stderr.contains(
                "the provider did not accept client \"pingcli-test\" with its credentials: check --client-id and the client secret (--client-secret-file or PINGCLI_CLIENT_SECRET)"
            ), "\(run)")
        #expect(!run.stderr.contains("not-the-secret"))
    }

    @Test(
        "next-step-exchange-refused: a refused code exchange says what happened to the code and to run login again (as the browser page promises)"
    )
    func exchangeRefused() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        emulator.faults.tokenErrors = [
            "authorization_code": CannedOAuthError(status: 400, error: "invalid_grant", errorDescription: "code expired")
        ]
        let run = sandbox.login(emulator)
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == "token-error-object", "\(run)")
        #expect(
            run.stderr.contains(
                "invalid_grant: code expired: the authorization code was refused (expired, already used, or issued for another redirect URI or PKCE verifier): run pingcli login again"
            ), "\(run)")
    }

    @Test("next-step-device-timeout: --timeout ending the device wait is reported as the timeout, not as the code's expiry")
    func deviceTimeout() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let run = sandbox.run(["login", "--device", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "2"])
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == "login-timeout", "\(run)")
        #expect(
            run.stderr.contains(
                "pingcli: no sign-in was approved within --timeout 2 s (the code was valid for 600 s): run pingcli login --device again, with a longer --timeout or none\n"
            ), "\(run)")
        #expect(!run.stderr.contains("the code expired"), "\(run)")
    }

    @Test("next-step-api-unreachable: api's network error names the CA bundle variable, not --ca-file (which api does not take)")
    func apiUnreachable() throws {
        let (_, sandbox) = try loggedIn()
        let run = sandbox.run(["api", "http://127.0.0.1:1/me"])
        #expect(run.status == 3 && run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.contains("check your network, proxy (HTTPS_PROXY) or CA bundle (CURL_CA_BUNDLE), then try again"), "\(run)")
        #expect(run.rule == "server-unreachable", "\(run)")
        #expect(!run.stderr.contains("--ca-file"), "\(run)")
    }

    @Test(
        "next-step-key-migrate-no-bus: key migrate --to keyring without a session bus, the key being a file, says to run it in the desktop session, not to use a file"
    )
    func keyMigrateWithoutBus() throws {
        let (emulator, sandbox) = try loggedIn()
        let run = sandbox.run(["key", "migrate", "--to", "keyring"], environment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == "session-bus", "\(run)")
        #expect(
            run.stderr.contains(
                "run pingcli key migrate --to keyring in your desktop login session; the key stays in \(sandbox.keyFile) meanwhile"),
            "\(run)")
        #expect(!run.stderr.contains("--to file"), "\(run)")
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine, "nothing was moved")
    }
}
