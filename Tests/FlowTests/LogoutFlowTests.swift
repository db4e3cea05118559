import Foundation
import PingEmulator
import Testing

@testable import PingState

/// The logout outcomes in-process: local wipe always, revocation per token, the browser session.
@Suite("logout: outcomes, in-process")
struct LogoutFlowTests {
    @Test("logout --revoke revokes both tokens at the server (introspection says inactive) and wipes the cache")
    func logoutRevoke() throws {
        // PingOne revokes only tokens for a custom resource (the SDK guide's revoke scope puts it in aud).
        let harness = try FlowHarness()
        #expect(harness.login(["--scope", "openid profile email revoke"]).status == 0)
        let emulator = harness.emulator
        let access = try #require(emulator.issuedAccessTokens.last)
        let refresh = try #require(emulator.issuedRefreshTokens.last)
        #expect(emulator.isActive(token: access) && emulator.isActive(token: refresh))
        let run = harness.run(["logout", "--revoke"])
        #expect(run.status == 0, "\(run)")
        #expect(!emulator.isActive(token: access) && !emulator.isActive(token: refresh))
        let revocations = emulator.requests(to: .revoke)
        #expect(revocations.map { $0.form["token_type_hint"] } == ["refresh_token", "access_token"])
        #expect(revocations.allSatisfy { $0.form["client_id"] == "pingcli-test" })
        #expect(harness.holdsNoTokens)
        #expect(harness.run(["token", "--raw"]).status == 4)
        // The profile is kept, vouched for by the sealed record the logout left: logging in again with
        // the issuer named, or without it, takes the rest (client id) from the profile.
        #expect(harness.run(["login", "--issuer", harness.emulator.issuer, "--timeout", "30"]).status == 0)
    }

    @Test("logout-network-down: revocation that cannot reach the server still wipes locally and exits 3")
    func logoutNetworkDown() throws {
        let harness = try FlowHarness()
        #expect(harness.login().status == 0)
        harness.networkDown(true)
        let run = harness.run(["logout", "--revoke"])
        #expect(run.status == 3, "\(run)")
        #expect(run.rule == .serverUnreachable, "\(run)")
        #expect(run.stderr.contains("the refresh token may still be live at the server"))
        #expect(run.stderr.contains("the access token may still be live at the server"))
        #expect(harness.holdsNoTokens)
        #expect(harness.run(["token", "--raw"]).status == 4)
    }

    @Test("logout-revocation-refused: a provider that refuses public clients leaves both tokens named as possibly live, exit 1")
    func revocationRefused() throws {
        let harness = try FlowHarness { $0.publicClientsMayRevoke = false }
        #expect(harness.login(["--scope", "openid profile email revoke"]).status == 0)
        let run = harness.run(["logout", "--revoke"])
        #expect(run.status == 1, "\(run)")
        #expect(run.rule == .logoutRevocationRefused, "\(run)")
        #expect(
            run.stderr.contains("the refresh token may still be live at the server: revocation was refused (HTTP 401: invalid_client"),
            "\(run)")
        #expect(run.stderr.contains("the access token may still be live at the server: revocation was refused"), "\(run)")
        #expect(harness.holdsNoTokens, "wiped locally all the same")
    }

    @Test("logout-no-revocation-endpoint: without revocation_endpoint the tokens are wiped and the user told they stay valid, exit 1")
    func noRevocationEndpoint() throws {
        let harness = try FlowHarness()
        harness.emulator.faults.discoveryOverrides = ["revocation_endpoint": .null]
        #expect(harness.login().status == 0)
        let run = harness.run(["logout", "--revoke"])
        #expect(run.status == 1, "\(run)")
        #expect(run.rule == .logoutNoRevocationEndpoint, "\(run)")
        #expect(harness.emulator.requests(to: .revoke).isEmpty)
        #expect(harness.holdsNoTokens)
    }

    @Test("logout-never-logged-in: a profile that never signed in has nothing to do, exit 0")
    func neverLoggedIn() throws {
        let harness = try FlowHarness()
        let run = harness.run(["logout", "--revoke"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr == "Profile \"default\" was never logged in: nothing to do.\n")
    }

    @Test("logout --end-session goes through the browser to the end-session endpoint and back", arguments: Layout.allCases)
    func endSession(layout: Layout) throws {
        // PingOne and PingFederate match sign-off URIs exactly: the logout listener's port is registered.
        let port = freePort()
        let harness = try FlowHarness {
            $0.layout = layout
            $0.clients[0].postLogoutRedirectURIs = ["http://127.0.0.1:\(port)/logout"]
        }
        let emulator = harness.emulator
        #expect(harness.login().status == 0)
        let run = harness.run(["logout", "--end-session", "--port", "\(port)", "--timeout", "20"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("Ended the browser session"))
        let request = try #require(emulator.requests(to: .endSession).first)
        #expect(request.query["id_token_hint"] != nil)
        #expect(request.query["client_id"] == "pingcli-test")
        #expect(request.query["post_logout_redirect_uri"]?.hasPrefix("http://127.0.0.1:") == true)
        // The browser was given only the local start address, never the ID token.
        let opened = harness.browser.visited.filter { $0.hasPrefix("http://127.0.0.1:") && $0.contains("/start/") }
        #expect(opened.count == 1)
        #expect(harness.browser.opened.count == 2 && !harness.browser.opened[1].contains("id_token_hint"))
        #expect(!run.stderr.contains(request.query["id_token_hint"] ?? "?"))
    }

    @Test("logout-browser-fails: a browser that cannot start is reported, the address printed, and the wait times out, exit 1")
    func browserFails() throws {
        let harness = try FlowHarness()
        #expect(harness.login().status == 0)
        harness.browser = RecordingBrowser(emulator: harness.emulator, failure: "cannot run xdg-open: No such file or directory")
        let run = harness.run(["logout", "--end-session", "--port", "\(freePort())", "--timeout", "120"])
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("cannot run xdg-open"), "\(run)")
        #expect(run.rule == .logoutBrowserFails, "\(run)")
        #expect(harness.emulator.requests(to: .endSession).isEmpty)
    }
}

/// A loopback port nobody listens on right now.
func freePort() -> UInt16 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    return UInt16(bigEndian: address.sin_port)
}
