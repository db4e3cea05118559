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
        let (emulator, sandbox) = sandboxed(try exactPortEmulator(port: port))
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

    @Test("browser-env: $BROWSER is used (first of a colon list, %s for the URL); PINGCLI_BROWSER wins over it")
    func browserVariable() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
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
        let (emulator, sandbox) = try emulatorAndSandbox()
        let run = sandbox.login(emulator, environment: ["SSH_CONNECTION": "10.0.0.1 22 10.0.0.2 22", "BROWSER": "xdg-open"])
        #expect(run.status == 0, "\(run)")
        #expect(!run.stderr.contains("SSH session"))
    }
}

@Suite("login: an error page at the provider")
struct ProviderErrorPageTests {
    @Test("error-page-hint-quiet: a sign-in that comes back within the default 20 s prints no hint")
    func quiet() throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        let run = Sandbox().login(emulator)
        #expect(run.status == 0, "\(run)")
        #expect(!run.stderr.contains("nothing has come back"))
    }
}
