import Foundation
import PingEmulator
import Testing

/// Helpers shared by the PingOne and PingFederate fidelity tests: outcomes, never pingcli's wording.
extension Emulator {
    /// The HTTP status userinfo gives `token` right now (through curl, as a resource server would call it).
    func userinfoStatus(_ token: String) -> String {
        let run = runProcess(
            "/usr/bin/curl",
            [
                "-sS", "--noproxy", "*", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(token)",
                url(for: .userinfo) ?? "",
            ],
            environment: [:], timeout: 20)
        return run.stdout
    }

    /// The refresh_token grants the token endpoint answered, as statuses.
    var refreshStatuses: [Int] { requests(to: .token).filter { $0.grantType == "refresh_token" }.map(\.status) }
}

/// What `logout --end-session --port P` did: pingcli's run, the last page the browser double showed, and
/// the (stopped) emulator's records.
struct SignOffOutcome {
    let run: CLIRun
    let page: String
    let emulator: Emulator
    let port: UInt16
    let sandbox: Sandbox
}

/// Logs in to a fresh emulator whose client registered exactly one sign-off URI,
/// `http://127.0.0.1:<port>/logout` with the listener's port P (or, `registeredElsewhere`, P + 1), then
/// runs `logout --end-session --port P --timeout timeout`.
func signOff(
    _ layout: Layout, registeredElsewhere: Bool = false, timeout: Int = 20, environment: [String: String] = [:],
    _ configure: (inout EmulatorConfiguration) -> Void = { _ in }
) throws -> SignOffOutcome {
    let port = TLSFront.freePort()
    let registered = registeredElsewhere ? (port == 65535 ? port - 1 : port + 1) : port
    let emulator = try startEmulator {
        $0.layout = layout
        $0.clients[0].postLogoutRedirectURIs = ["http://127.0.0.1:\(registered)/logout"]
        configure(&$0)
    }
    defer { emulator.stop() }
    let sandbox = Sandbox()
    #expect(sandbox.login(emulator).status == 0)
    let page = sandbox.root + "/page.html"
    let run = sandbox.run(
        ["logout", "--end-session", "--port", "\(port)", "--timeout", "\(timeout)"],
        environment: environment.merging(["BROWSER_PAGE": page]) { $1 }, timeout: Double(timeout) + 25)
    return SignOffOutcome(run: run, page: sandbox.savedPage(page) ?? "", emulator: emulator, port: port, sandbox: sandbox)
}

/// A new emulator and a sandbox (which stops it) that has been through `loginRefreshUserinfo`.
func fidelitySession(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws -> (Emulator, Sandbox) {
    let (emulator, sandbox) = try emulatorAndSandbox(configure)
    loginRefreshUserinfo(emulator, sandbox)
    return (emulator, sandbox)
}

/// Login, a refresh forced by the server rejecting the access token, and userinfo: each must succeed.
func loginRefreshUserinfo(_ emulator: Emulator, _ sandbox: Sandbox, scope: String = "openid profile email") {
    let login = sandbox.login(emulator, ["--scope", scope])
    #expect(login.status == 0, "\(login)")
    emulator.expireAccessTokens()
    let userinfo = sandbox.run(["userinfo", "--raw"])
    #expect(userinfo.status == 0, "\(userinfo)")
    #expect(userinfo.stdout.contains("\"sub\":\"\(User.demo.sub)\""))
    #expect(emulator.refreshStatuses == [200], "exactly one refresh")
}

/// `logout --revoke` in `sandbox`, with the access and refresh tokens it held (the emulator's newest).
func logoutRevoke(
    _ emulator: Emulator, _ sandbox: Sandbox, sourceLocation: SourceLocation = #_sourceLocation
) throws -> (access: String, refresh: String, run: CLIRun) {
    let access = try #require(emulator.issuedAccessTokens.last, sourceLocation: sourceLocation)
    let refresh = try #require(emulator.issuedRefreshTokens.last, sourceLocation: sourceLocation)
    return (access, refresh, sandbox.run(["logout", "--revoke"]))
}

/// The redirect to pingcli's callback as the browser double saw it (its Location).
func callbackRedirect(_ sandbox: Sandbox) -> String? {
    sandbox.browserLog.last { $0.contains("/callback?") }
}
