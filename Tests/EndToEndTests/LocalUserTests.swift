import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What another user on the same machine can do to a running pingcli. They can connect to its loopback
/// port and read the browser's command line (and so every URL pingcli opens); they cannot own a socket
/// as this user. Run as root, the tests play that other user with `setpriv` as `nobody`.
@Suite("local users: another account on the same machine")
struct LocalUserTests {
    /// Runs `curl` as the `nobody` user against `url`, returning the status line and body; `source`
    /// binds the connection to another loopback address first.
    func fetchAsNobody(_ url: String, source: String? = nil) -> CLIRun {
        runProcess(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/curl", "-sS", "-i", "--noproxy", "*"]
                + (source.map { ["--interface", $0] } ?? []) + [url],
            environment: ["PATH": "/usr/bin:/bin"], timeout: 20)
    }

    /// The real browser (this user's `xdg-open` double) opens `url`; the command waiting in `background`
    /// then ends, successfully.
    func finishInRealBrowser(_ url: String, _ sandbox: Sandbox, _ background: BackgroundRun) -> CLIRun {
        let browser = runProcess(Locations.support + "/xdg-open", [url], environment: sandbox.environment, timeout: 30)
        #expect(browser.status == 0, "\(browser)")
        let run = background.wait()
        #expect(run.status == 0, "\(run)")
        return run
    }

    @Test(
        "end-session-id-token-for-the-asking: another user's request to the sign-out start address gets a 403 and no ID token; the real browser still signs out",
        .enabled(if: getuid() == 0, "needs root to act as another user"))
    func endSessionStartIsPrivate() throws {
        // PingOne matches sign-off URIs exactly: the logout listener's port is registered.
        let port = TLSFront.freePort()
        let (emulator, sandbox) = try loggedIn { $0.clients[0].postLogoutRedirectURIs = ["http://127.0.0.1:\(port)/logout"] }
        let logout = BackgroundRun(sandbox, ["logout", "--end-session", "--port", "\(port)", "--timeout", "60"])
        let url = logout.url
        #expect(url.hasPrefix("http://127.0.0.1:") && url.contains("/start/"), "the browser got the one-time start address: \(url)")

        // The other user read the URL from the browser's argv and asks first.
        let stolen = fetchAsNobody(url)
        #expect(stolen.stdout.hasPrefix("HTTP/1.1 403"), "\(stolen)")
        #expect(!stolen.stdout.contains("id_token_hint") && !stolen.stdout.contains("Location:"), "\(stolen)")
        #expect(logout.ended == nil, "the sign-out still waits for the real browser")

        // The real browser (this user) then signs out as usual.
        let run = finishInRealBrowser(url, sandbox, logout)
        #expect(run.stderr.contains("refused a request to the sign-out listener from another user's program (uid 65534)"))
        let request = try #require(emulator.requests(to: .endSession).first)
        #expect(request.query["id_token_hint"] != nil)
        #expect(emulator.requests(to: .endSession).count == 1)
    }

    @Test(
        "callback-from-another-user: a callback with the right state from another user's program is ignored; the login goes on",
        .enabled(if: getuid() == 0, "needs root to act as another user"))
    func callbackFromAnotherUser() throws {
        // The test reads state and redirect_uri from the browser's URL, which PAR keeps out of it.
        let (emulator, sandbox) = try emulatorAndSandbox { $0.pushedAuthorization = .off }
        let login = BackgroundRun(sandbox, ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "60"])
        let url = login.url
        let redirect = try #require(login.parameter("redirect_uri"))
        let state = try #require(login.parameter("state"))
        // The state is in the browser's argv: the other user injects a code of their own with it.
        let forged = redirect + "?code=attackers-code&state=\(state)&iss=\(formEncode(emulator.issuer))"
        let injected = fetchAsNobody(forged)
        #expect(injected.stdout.hasPrefix("HTTP/1.1 403"), "\(injected)")
        // From another loopback source address, the lookup still finds the socket and its owner.
        let fromOtherAddress = fetchAsNobody(forged, source: "127.0.0.2")
        #expect(fromOtherAddress.stdout.hasPrefix("HTTP/1.1 403"), "\(fromOtherAddress)")
        #expect(login.ended == nil, "the login still waits")

        let run = finishInRealBrowser(url, sandbox, login)
        #expect(run.stderr.contains("another user's program (uid 65534)"))
        #expect(emulator.requests(to: .token).count == 1, "only the real code was redeemed")
    }
}
