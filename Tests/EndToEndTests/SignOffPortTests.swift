import Foundation
import PingEmulator
import Testing

/// The sign-off URL `http://127.0.0.1:<port>/logout` that `logout --end-session` sends as
/// `post_logout_redirect_uri`: providers match it exactly (PingOne always does), so its port is fixed
/// (8252, or the profile's `--logout-port`) and registered once.
/// A provider that matches sign-in and sign-off URLs exactly, port included (RFC 8252 §7.3 lets it),
/// with `http://127.0.0.1:<loginPort>/callback` and `http://127.0.0.1:<logoutPort>/logout` registered.
func exactEmulator(loginPort: UInt16, logoutPort: UInt16) throws -> Emulator {
    try startEmulator { $0.matchExactPorts(login: loginPort, logout: logoutPort) }
}

@Suite("logout --end-session: the sign-off port")
struct SignOffPortTests {
    @Test("logout-port-saved: login --logout-port is saved and every later logout --end-session uses it; 0 forgets it")
    func saved() throws {
        let (loginPort, logoutPort) = (TLSFront.freePort(), TLSFront.freePort())
        let (emulator, sandbox) = sandboxed(try exactEmulator(loginPort: loginPort, logoutPort: logoutPort))
        let login = sandbox.login(emulator, ["--port", "\(loginPort)", "--logout-port", "\(logoutPort)"])
        #expect(login.status == 0, "\(login)")
        #expect((readText(sandbox.profileDirectory + "/profile.json") ?? "").contains("\"logout_port\" : \(logoutPort)"))
        // A later login that does not name it keeps it.
        #expect(sandbox.run(["login", "--timeout", "30"]).status == 0)
        #expect((readText(sandbox.profileDirectory + "/profile.json") ?? "").contains("\"logout_port\" : \(logoutPort)"))
        let logout = sandbox.run(["logout", "--end-session", "--timeout", "30"])
        #expect(logout.status == 0, "\(logout)")
        #expect(logout.stderr.contains("Ended the browser session"))
        #expect(emulator.endedSessions.count == 1)
        #expect(emulator.requests(to: .endSession).first?.query["post_logout_redirect_uri"] == "http://127.0.0.1:\(logoutPort)/logout")
        // After the logout no cache vouches for profile.json: the issuer is named again.
        let forget = sandbox.run(["login", "--issuer", emulator.issuer, "--logout-port", "0", "--timeout", "30"])
        #expect(forget.status == 0, "\(forget)")
        #expect(!(readText(sandbox.profileDirectory + "/profile.json") ?? "").contains("logout_port"))
    }

    @Test("logout-port-default: without a saved port the sign-off URL is http://127.0.0.1:8252/logout")
    func defaultPort() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        #expect(sandbox.login(emulator).status == 0)
        let logout = sandbox.run(["logout", "--end-session", "--timeout", "30"])
        // Another program may hold 8252 at this moment: then the refusal names that port and the fix.
        if logout.status == 2 {
            #expect(logout.stderr.contains("cannot listen on 127.0.0.1:8252 for the sign-off URL http://127.0.0.1:8252/logout"))
        } else {
            #expect(logout.status == 0, "\(logout)")
            #expect(emulator.requests(to: .endSession).first?.query["post_logout_redirect_uri"] == "http://127.0.0.1:8252/logout")
        }
    }

    @Test(
        "logout-port-in-use: a sign-off port another program holds is a usage error naming the holder and the fix, before anything is removed"
    )
    func inUse() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        #expect(sandbox.login(emulator).status == 0)
        let holder = LoopbackAcceptor.listen()
        defer { close(holder.descriptor) }
        let logout = sandbox.run(["logout", "--end-session", "--port", "\(holder.port)", "--timeout", "10"])
        #expect(logout.status == 2, "\(logout)")
        #expect(logout.rule == "sign-off-port-taken", "\(logout)")
        #expect(
            logout.stderr.contains(
                "pingcli: cannot listen on 127.0.0.1:\(holder.port) for the sign-off URL http://127.0.0.1:\(holder.port)/logout (Address already in use, held by a program of yours (uid \(getuid()))), so nothing was removed: stop the program using it, or give --port N here (or save one with pingcli login --logout-port N) and register http://127.0.0.1:N/logout with the provider"
            ), "\(logout)")
        #expect(!logout.stderr.contains("Removed the cached tokens"))
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine, "the session is whole")
        #expect(emulator.requests(to: .endSession).isEmpty)
    }

}
