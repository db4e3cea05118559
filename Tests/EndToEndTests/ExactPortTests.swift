import Foundation
import PingEmulator
import Testing

/// Providers that match redirect URIs exactly, port included (RFC 8252 §7.3 allows it), and the browser
/// chosen through `$BROWSER`.
@Suite("exact-port providers and the browser")
struct ExactPortTests {
    func exactPortEmulator(port: UInt16) throws -> Emulator { try exactEmulator(loginPort: port, logoutPort: port) }

    @Test("exact-port: --port is saved, reused by the next login and by logout --end-session; another port is refused by the provider")
    func savedPort() throws {
        let port = TLSFront.freePort()
        let emulator = try exactPortEmulator(port: port)
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let first = sandbox.login(emulator, ["--port", "\(port)"])
        #expect(first.status == 0, "\(first)")
        #expect((readText(sandbox.profileDirectory + "/profile.json") ?? "").contains("\"port\" : \(port)"))
        // The next login names neither the issuer nor the port.
        let again = sandbox.run(["login", "--timeout", "30"])
        #expect(again.status == 0, "\(again)")
        let requests = emulator.authorizationRequestParameters
        #expect(requests.count == 2 && requests.allSatisfy { $0["redirect_uri"] == "http://127.0.0.1:\(port)/callback" })
        let logout = sandbox.run(["logout", "--end-session", "--timeout", "30"])
        #expect(logout.status == 0, "\(logout)")
        #expect(logout.stderr.contains("Ended the browser session"))
        #expect(emulator.endedSessions.count == 1)
    }

    @Test("exact-port-other: a login or an end-session on another port is refused by the exact-port provider (so --port matters)")
    func otherPort() throws {
        let port = TLSFront.freePort()
        let emulator = try exactPortEmulator(port: port)
        defer { emulator.stop() }
        let sandbox = Sandbox()
        #expect(sandbox.login(emulator, ["--port", "\(port)"]).status == 0)
        let other = TLSFront.freePort()
        // Standard input at its end (/dev/null) never counts as Enter, even where Enter is offered.
        let logout = sandbox.run(
            ["logout", "--end-session", "--port", "\(other)", "--timeout", "3"],
            environment: ["PINGCLI_TEST_HINT_AFTER": "0.5", "PINGCLI_TEST_CONFIRM_INPUT": "1"])
        #expect(logout.status == 1, "\(logout)")
        #expect(emulator.requests(to: .endSession).first?.status == 400, "the provider showed its error page")
        let postLogout = "http://127.0.0.1:\(other)/logout"
        // The hint while waiting names the unregistered URL and the two pages a provider may show.
        let hint = try #require(logout.stderr.split(separator: "\n").first { $0.hasPrefix("pingcli: the browser has not come back") })
        #expect(hint.contains(postLogout + " is not registered for client pingcli-test"))
        #expect(
            hint.contains(
                "does not send the browser back (PingFederate does so when that URL is not among the client's allowed logout URIs): press Enter to stop waiting"
            ))
        #expect(
            logout.stderr.hasSuffix(
                "pingcli: profile \"default\": the provider did not send the browser back to \(postLogout) within 3 s. If the browser shows the provider's signed-out page, the session has ended; if it shows an error, register \(postLogout) as a sign-off (post-logout redirect) URL of client pingcli-test and run pingcli logout --end-session again\n"
            ), "\(logout)")
        #expect(emulator.endedSessions.isEmpty)
        let login = sandbox.run(["login", "--issuer", emulator.issuer, "--port", "0", "--timeout", "2"])
        #expect(login.status == 1, "\(login)")
        #expect(!(readText(sandbox.profileDirectory + "/profile.json") ?? "").isEmpty)
    }

    @Test("browser-env: $BROWSER is used (first of a colon list, %s for the URL); PINGCLI_BROWSER wins over it")
    func browserVariable() throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let record = sandbox.root + "/children.txt"
        let viaBrowser = sandbox.login(emulator, environment: ["BROWSER": "record-env %s:firefox", "RECORD_ENV_FILE": record])
        #expect(viaBrowser.status == 0, "\(viaBrowser)")
        let recorded = readText(record) ?? ""
        // The URL once, in place of %s (not appended a second time), and firefox never tried.
        let lines = recorded.split(separator: "\n")
        let cmdline = lines.drop { $0 != "--- cmdline" }.dropFirst().prefix { $0 != "--- environ" }
        #expect(cmdline.count == 3 && cmdline.last?.hasPrefix(emulator.url(for: .authorize) ?? "-") == true, "\(recorded)")
        #expect(cmdline.first == "/bin/sh" && cmdline.dropFirst().first?.hasSuffix("/record-env") == true)
        try? FileManager.default.removeItem(atPath: record)
        let pingcliWins = sandbox.login(
            emulator, environment: ["BROWSER": "record-env", "PINGCLI_BROWSER": "xdg-open", "RECORD_ENV_FILE": record])
        #expect(pingcliWins.status == 0, "\(pingcliWins)")
        #expect(readText(record) == nil)
    }

    @Test("browser-env-ssh: over SSH without a display, a set $BROWSER is still used (no --no-browser fallback)")
    func browserOverSSH() throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let run = sandbox.login(emulator, environment: ["SSH_CONNECTION": "10.0.0.1 22 10.0.0.2 22", "BROWSER": "xdg-open"])
        #expect(run.status == 0, "\(run)")
        #expect(!run.stderr.contains("SSH session"))
    }
}

@Suite("login: an error page at the provider")
struct ProviderErrorPageTests {
    @Test("error-page-hint: when nothing comes back from the browser, login names the likely causes long before --timeout")
    func hint() throws {
        let emulator = try startEmulator {
            $0.exactRedirectPorts = true
            $0.clients = [RegisteredClient(clientID: "pingcli-test", redirectURIs: ["http://127.0.0.1:1/callback"])]
            // The error page in the browser: without PAR (a refused push fails before the browser, par-response-gate).
            $0.pushedAuthorization = .off
        }
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let run = sandbox.run(
            ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "4"],
            environment: ["PINGCLI_TEST_HINT_AFTER": "0.5"])
        #expect(run.status == 1, "\(run)")
        #expect(emulator.requests(to: .authorize).first?.status == 400, "the provider showed its error page")
        let hint = try #require(run.stderr.split(separator: "\n").first { $0.hasPrefix("pingcli: nothing has come back") })
        #expect(hint.contains("a wrong client id (pingcli-test) or the redirect URI http://127.0.0.1:"))
        #expect(hint.contains("/callback not registered for it"))
        #expect(run.stderr.hasSuffix("pingcli: no sign-in arrived within 4 s: run pingcli login again (--timeout sets how long to wait)\n"))
    }

    @Test("error-page-hint-quiet: a sign-in that comes back within the default 20 s prints no hint")
    func quiet() throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        let run = Sandbox().login(emulator)
        #expect(run.status == 0, "\(run)")
        #expect(!run.stderr.contains("nothing has come back"))
    }
}
