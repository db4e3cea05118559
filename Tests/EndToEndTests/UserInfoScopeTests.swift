import Foundation
import PingEmulator
import Testing

/// A scope problem at the UserInfo endpoint (RFC 6750 §3.1 `insufficient_scope`, OIDC Core §5.3's
/// `openid`) is told as such, and no refresh is spent on it: a refresh brings the same scope.
@Suite("userinfo: insufficient scope")
struct UserInfoScopeTests {
    func refreshes(_ emulator: Emulator) -> Int {
        emulator.requests(to: .token).filter { $0.grantType == "refresh_token" }.count
    }

    @Test("userinfo-without-openid: a session signed in without openid gets a 403; pingcli says so, spends no refresh, exit 4")
    func withoutOpenID() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        #expect(sandbox.login(emulator, ["--scope", "profile email"]).status == 0)
        let before = readText(sandbox.stateDirectory + "/tokens.enc")
        let run = sandbox.run(["userinfo"])
        #expect(run.status == 4, "\(run)")
        #expect(
            run.stderr
                == "pingcli: profile \"default\" was signed in without the openid scope, so the userinfo endpoint does not answer for it (the userinfo endpoint refused the access token for its scope (Bearer error=\"insufficient_scope\", scope=\"openid\")): run pingcli login --profile default --scope \"openid profile email\"\n",
            "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(emulator.requests(to: .userinfo).map(\.status) == [403])
        #expect(refreshes(emulator) == 0)
        #expect(readText(sandbox.stateDirectory + "/tokens.enc") == before, "the session is left as it was")
        // The fix the message names works.
        #expect(sandbox.login(emulator, ["--scope", "openid profile email"]).status == 0)
        #expect(sandbox.run(["userinfo"]).status == 0)
    }

    @Test("userinfo-401-insufficient-scope: a 401 whose WWW-Authenticate says insufficient_scope spends no refresh")
    func unauthorizedInsufficientScope() throws {
        let (emulator, sandbox) = try loggedIn(
            answering: .userinfo,
            with: CannedResponse(
                status: 401, contentType: "application/json", body: "{}",
                headers: [
                    "WWW-Authenticate": "Bearer realm=\"x, error=invalid_token\", error=\"insufficient_scope\", scope=\"openid email\""
                ]))
        defer { emulator.stop() }
        let run = sandbox.run(["userinfo"])
        #expect(run.status == 1, "\(run)")
        #expect(run.rule == "userinfo-insufficient-scope", "\(run)")
        #expect(
            run.stderr.hasPrefix("pingcli: userinfo failed: the userinfo endpoint refused the access token for its scope (Bearer realm=")
                && run.stderr.hasSuffix(": sign in with the scopes it needs (pingcli login --profile default --scope …)\n"), "\(run)")
        #expect(emulator.requests(to: .userinfo).count == 1 && refreshes(emulator) == 0)
    }

    @Test("userinfo-403-insufficient-scope: a 403 insufficient_scope with openid granted is reported, no refresh")
    func forbiddenInsufficientScope() throws {
        let (emulator, sandbox) = try loggedIn(
            answering: .userinfo,
            with: CannedResponse(status: 403, contentType: "application/json", body: "{\"error\":\"insufficient_scope\"}"))
        defer { emulator.stop() }
        let run = sandbox.run(["userinfo"])
        #expect(run.rule == "userinfo-insufficient-scope", "\(run)")
        #expect(run.status == 1 && run.stderr.contains("refused the access token for its scope"), "\(run)")
        #expect(emulator.requests(to: .userinfo).count == 1 && refreshes(emulator) == 0)
    }
}
