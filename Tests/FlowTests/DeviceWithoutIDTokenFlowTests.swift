import Foundation
import Testing

@testable import PingEmulator

/// RFC 8628 defines no ID token, and providers differ (django-oauth-toolkit sends none): an ID token is
/// checked when it comes and not required when it does not; the UserInfo endpoint then names the person,
/// and an ID token that a refresh brings later must name the same subject (OIDC Core §12.2). In process:
/// the waits between polls pass on the test clock.
@Suite("device grant without an ID token")
struct DeviceWithoutIDTokenFlowTests {
    static let demoSubject = User.demo.sub

    /// A device grant without ID token; the access token lives 20 s, inside token's 30 s threshold, so
    /// the next `token` refreshes. The browser only records the address (`record-url`).
    func deviceHarness(idToken: Bool = false, _ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws -> FlowHarness {
        let harness = try FlowHarness {
            $0.deviceInterval = 1
            if !idToken {
                $0.deviceGrantIDToken = false
                $0.accessTokenLifetime = 20
            }
            configure(&$0)
        }
        harness.browser = RecordingBrowser(emulator: harness.emulator, visits: false)
        return harness
    }

    func deviceLogin(_ harness: FlowHarness) -> FlowRun {
        harness.run(["login", "--device", "--issuer", harness.emulator.issuer, "--client-id", "pingcli-test", "--timeout", "60"])
    }

    func statusJSON(_ harness: FlowHarness) throws -> [String: Any] {
        let run = harness.run(["status", "--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run)")
    }

    @Test("device-without-id-token: the login succeeds, the subject comes from UserInfo, status says there is no ID token")
    func withoutIDToken() throws {
        let harness = try deviceHarness()
        let emulator = harness.emulator
        let run = deviceLogin(harness)
        #expect(run.status == 0, "\(run)")
        #expect(run.lastErrorLine == "Logged in to \(emulator.issuer) as Demo User (profile \"default\").", "\(run)")
        // The server: one device grant answered without id_token, then one userinfo request with that token.
        let grant = try #require(
            emulator.requests(to: .token).first { $0.grantType == "urn:ietf:params:oauth:grant-type:device_code" })
        #expect(grant.status == 200)
        let userinfo = emulator.requests(to: .userinfo)
        #expect(userinfo.count == 1 && userinfo.first?.status == 200)
        #expect(userinfo.first?.headers["authorization"] == "Bearer " + (emulator.issuedAccessTokens.last ?? "?"))
        // What was cached: the subject in profile.json, no ID token in the session.
        let profile = try #require(readText(harness.profileDirectory + "/profile.json"))
        #expect(profile.contains("\"subject\" : \"\(Self.demoSubject)\""), "\(profile)")
        let status = try statusJSON(harness)
        #expect(status["id_token"] as? Bool == false && status["subject"] as? String == Self.demoSubject, "\(status)")
        let text = harness.run(["status"])
        #expect(text.stdout.contains("ID token:      none (the provider sent none at sign-in; the subject is the UserInfo endpoint's"))
        let idToken = harness.run(["token", "--id-token", "--raw"])
        #expect(idToken.status == 4 && idToken.stderr.contains("holds no ID token"), "\(idToken)")
        // userinfo checks its answer against the saved subject.
        let claims = harness.run(["userinfo"])
        #expect(claims.status == 0 && claims.stdout.contains(Self.demoSubject), "\(claims)")
    }

    @Test("device-id-token-on-refresh: an ID token a refresh brings later, for the same subject, is validated and cached")
    func idTokenLater() throws {
        let harness = try deviceHarness()
        let emulator = harness.emulator
        #expect(deviceLogin(harness).status == 0)
        emulator.accessTokenLifetime = 3600
        let refreshed = harness.run(["token", "--raw"])
        #expect(refreshed.status == 0 && refreshed.stderr.isEmpty, "\(refreshed)")
        #expect(emulator.requests(to: .token).filter { $0.grantType == "refresh_token" }.count == 1)
        let status = try statusJSON(harness)
        #expect(status["id_token"] as? Bool == true && status["subject"] as? String == Self.demoSubject, "\(status)")
        #expect(harness.run(["token", "--id-token", "--raw"]).status == 0)
    }

    @Test("refreshed-id-token-subject: an ID token a refresh brings later for another subject is refused; the session is kept")
    func idTokenLaterOtherSubject() throws {
        let harness = try deviceHarness()
        let emulator = harness.emulator
        #expect(deviceLogin(harness).status == 0)
        let before = readText(harness.stateDirectory + "/tokens.enc")
        var faults = Faults()
        faults.idTokenClaimOverrides = ["sub": "someone-else"]
        emulator.faults = faults
        let run = harness.run(["token", "--raw"])
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr == "pingcli: refresh failed: the refreshed ID token names a different subject\n", "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(emulator.requests(to: .token).filter { $0.grantType == "refresh_token" }.count == 1)
        #expect(readText(harness.stateDirectory + "/tokens.enc") == before, "nothing of the refused answer was cached")
        #expect(try statusJSON(harness)["id_token"] as? Bool == false)
    }

    @Test("device-userinfo-refused: without an ID token, a userinfo endpoint that refuses fails the login and caches nothing")
    func userinfoRefused() throws {
        let harness = try deviceHarness()
        let emulator = harness.emulator
        var faults = Faults()
        faults.responseOverrides[.userinfo] = CannedResponse(status: 500, body: "<html>down</html>")
        emulator.faults = faults
        let run = deviceLogin(harness)
        #expect(run.status == 1, "\(run)")
        #expect(
            run.lastErrorLine
                == "pingcli: login failed: the provider sent no ID token, and asked who signed in, the userinfo endpoint answered HTTP 500 (text/html): check the client's userinfo settings at the provider, then run pingcli login again",
            "\(run)")
        #expect(emulator.requests(to: .userinfo).count == 1)
        #expect(!FileManager.default.fileExists(atPath: harness.stateDirectory + "/tokens.enc"))
        #expect(!FileManager.default.fileExists(atPath: harness.profileDirectory + "/profile.json"))
    }

    @Test("device-id-token-checked: an ID token the device grant does send is still validated (here: another issuer)")
    func idTokenChecked() throws {
        let harness = try deviceHarness(idToken: true)
        let emulator = harness.emulator
        var faults = Faults()
        faults.idTokenClaimOverrides = ["iss": "https://evil.example"]
        emulator.faults = faults
        let run = deviceLogin(harness)
        #expect(run.status == 1, "\(run)")
        #expect(run.lastErrorLine.hasPrefix("pingcli: login failed: the ID token was issued by https://evil.example"), "\(run)")
        #expect(emulator.requests(to: .userinfo).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: harness.stateDirectory + "/tokens.enc"))
    }
}
