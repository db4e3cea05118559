import Foundation
import PingEmulator
import Testing

/// The waits for a browser that does not come back (the provider kept it on an error page or its own
/// signed-out page), in-process: the hint's delay and Enter on a terminal are the context's, so no test
/// switch is needed in the binary. The waits run on the test's clock: the listener's `poll()` waits in
/// real time only while the browser double is still visiting, and once it has stopped, the hint's 20 s
/// and the --timeout pass at once, so a busy machine cannot make a hint late or a timeout early.
@Suite("browser waits: hints and Enter, in-process")
struct BrowserWaitTests {
    /// A provider that matches sign-in and sign-off URLs exactly, port included.
    func exactHarness(loginPort: UInt16, logoutPort: UInt16) throws -> FlowHarness {
        try FlowHarness { $0.matchExactPorts(login: loginPort, logout: logoutPort) }
    }

    /// A logged-in harness whose sign-off URL is registered on another port than the one logout uses.
    func signOffElsewhere(_ layout: Layout) throws -> (FlowHarness, port: UInt16) {
        let port = freePort()
        let registered = port == 65535 ? port - 1 : port + 1
        let harness = try FlowHarness {
            $0.layout = layout
            $0.clients[0].postLogoutRedirectURIs = ["http://127.0.0.1:\(registered)/logout"]
        }
        #expect(harness.login().status == 0)
        return (harness, port)
    }

    @Test("exact-port-other: a login or an end-session on another port is refused by the exact-port provider (so --port matters)")
    func otherPort() throws {
        let port = freePort()
        let harness = try exactHarness(loginPort: port, logoutPort: port)
        #expect(harness.login(["--port", "\(port)"]).status == 0)
        let other = freePort()
        // Standard input at its end (/dev/null) never counts as Enter, even where Enter is offered.
        let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(devNull) }
        harness.input = devNull
        harness.inputIsTerminal = true
        let started = harness.clock.monotonic
        let logout = harness.run(["logout", "--end-session", "--port", "\(other)", "--timeout", "120"])
        #expect(logout.status == 1 && logout.rule == .signOffTimeout, "\(logout)")
        #expect(harness.emulator.requests(to: .endSession).first?.status == 400, "the provider showed its error page")
        let postLogout = "http://127.0.0.1:\(other)/logout"
        // The hint while waiting names the unregistered URL and the two pages a provider may show.
        let hint = try #require(logout.stderr.split(separator: "\n").first { $0.hasPrefix("pingcli: the browser has not come back") })
        #expect(hint.contains("after 20 s"))
        #expect(harness.clock.monotonic - started >= 120, "the whole --timeout passed on the test's clock")
        #expect(hint.contains(postLogout + " is not registered for client pingcli-test"))
        #expect(
            hint.contains(
                "does not send the browser back (PingFederate does so when that URL is not among the client's allowed logout URIs): press Enter to stop waiting"
            ))
        #expect(
            logout.stderr.hasSuffix(
                "pingcli: profile \"default\": the provider did not send the browser back to \(postLogout) within 120 s. If the browser shows the provider's signed-out page, the session has ended; if it shows an error, register \(postLogout) as a sign-off (post-logout redirect) URL of client pingcli-test and run pingcli logout --end-session again\n"
            ), "\(logout)")
        #expect(harness.emulator.endedSessions.isEmpty)
        let login = harness.run(["login", "--issuer", harness.emulator.issuer, "--port", "0", "--timeout", "60"])
        // The pushed request names the unregistered redirect URI: refused before any browser opens.
        #expect(login.status == 1 && login.rule == .parErrorObject, "\(login)")
        #expect(FileManager.default.contents(atPath: harness.profileDirectory + "/profile.json")?.isEmpty == false)
    }

    @Test("sign-off-confirm: a line on standard input ends the wait when the provider keeps the browser (exit 0)")
    func confirm() throws {
        let (loginPort, logoutPort) = (freePort(), freePort())
        let harness = try exactHarness(loginPort: loginPort, logoutPort: logoutPort)
        #expect(harness.login(["--port", "\(loginPort)"]).status == 0)
        // An unregistered port: the browser stays at the provider; the person presses Enter.
        var pipe: [Int32] = [0, 0]
        #expect(Glibc.pipe(&pipe) == 0)
        defer { close(pipe[0]) }
        _ = write(pipe[1], "\n", 1)
        close(pipe[1])
        harness.input = pipe[0]
        harness.inputIsTerminal = true
        let started = harness.clock.monotonic
        let logout = harness.run(["logout", "--end-session", "--port", "\(freePort())", "--timeout", "50"])
        #expect(logout.status == 0, "\(logout)")
        #expect(logout.stderr.contains("Stopped waiting: you saw the provider's own page."))
        #expect(harness.clock.monotonic - started < 50, "Enter ended the wait, not --timeout")
        #expect(harness.emulator.endedSessions.isEmpty)
    }

    @Test("error-page-hint: when nothing comes back from the browser, login names the likely causes long before --timeout")
    func hint() throws {
        let harness = try FlowHarness {
            $0.exactRedirectPorts = true
            $0.clients = [RegisteredClient(clientID: "pingcli-test", redirectURIs: ["http://127.0.0.1:1/callback"])]
            // The error page in the browser: without PAR (a refused push fails before the browser, par-response-gate).
            $0.pushedAuthorization = .off
        }
        let run = harness.run(["login", "--issuer", harness.emulator.issuer, "--client-id", "pingcli-test", "--timeout", "300"])
        #expect(run.status == 1 && run.rule == .loginTimeout, "\(run)")
        #expect(harness.emulator.requests(to: .authorize).first?.status == 400, "the provider showed its error page")
        let hint = try #require(run.stderr.split(separator: "\n").first { $0.hasPrefix("pingcli: nothing has come back") })
        #expect(hint.hasPrefix("pingcli: nothing has come back from the browser after 20 s."))
        #expect(hint.contains("a wrong client id (pingcli-test) or the redirect URI http://127.0.0.1:"))
        #expect(hint.contains("/callback not registered for it"))
        #expect(
            run.stderr.hasSuffix("pingcli: no sign-in arrived within 300 s: run pingcli login again (--timeout sets how long to wait)\n"))
    }

    @Test("pingone-signoff-mismatch: another port gets PingOne's error page, pingcli is never redirected to and gives up")
    func signOffMismatch() throws {
        let (harness, port) = try signOffElsewhere(.pingOne)
        let run = harness.run(["logout", "--end-session", "--port", "\(port)", "--timeout", "120"])
        #expect(run.status == 1 && run.rule == .signOffTimeout, "\(run)")
        let postLogout = "http://127.0.0.1:\(port)/logout"
        #expect(run.stderr.contains("An error page about the sign-off or post-logout redirect URL means \(postLogout) is not registered"))
        #expect(run.stderr.contains("the provider did not send the browser back to \(postLogout) within 120 s"))
        #expect(harness.emulator.requests(to: .endSession).map(\.status) == [400])
        #expect(harness.browser.lastPage.contains("id=\"emulator-signoff-error\""))
        #expect(!harness.browser.visited.contains { $0.contains(":\(port)/logout") }, "no redirect back")
        #expect(harness.emulator.endedSessions.isEmpty)
    }

    @Test("pingfederate-logout-ignored: an unregistered port is ignored: signed out at PingFederate, no redirect back")
    func unregisteredURIIsIgnored() throws {
        let (harness, port) = try signOffElsewhere(.pingFederate)
        let run = harness.run(["logout", "--end-session", "--port", "\(port)", "--timeout", "120"])
        #expect(run.status == 1 && run.rule == .signOffTimeout, "\(run)")
        #expect(
            run.stderr.contains(
                "The provider's own signed-out page means the session has ended but the provider does not send the browser back"))
        #expect(harness.emulator.requests(to: .endSession).map(\.status) == [200])
        #expect(harness.browser.lastPage.contains("id=\"emulator-signed-out\""))
        #expect(harness.emulator.endedSessions.count == 1, "the session ended all the same")
    }
}
