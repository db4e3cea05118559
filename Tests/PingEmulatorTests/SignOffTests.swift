import EmulatorHTTP
import Foundation
import Testing

@testable import PingEmulator

/// PingOne's exact sign-off matching, PingFederate's ignore-and-prompt logout, and the pages' markers.
@Suite struct SignOffTests {
    static let registered = "http://127.0.0.1:40000/logout"

    func configuration(_ layout: Layout) -> EmulatorConfiguration {
        .init(layout: layout, clients: [RegisteredClient(clientID: "pingcli-test", postLogoutRedirectURIs: [Self.registered])])
    }

    /// The ID token of a fresh sign-in.
    func idToken(_ emulator: Emulator) throws -> String {
        try #require(redeem(emulator, code: obtainCode(emulator)).json?["id_token"]?.stringValue)
    }

    func signOff(_ emulator: Emulator, _ params: [(String, String)]) throws -> TestResponse {
        try http("GET", FormEncoding.append(params, to: endpoint(emulator, .endSession)))
    }

    @Test("pingone-signoff-exact: the registered URI redirects with state and ends the session")
    func pingOneExactMatch() throws {
        try withEmulator(configuration(.pingOne)) { emulator in
            let response = try signOff(
                emulator, [("id_token_hint", idToken(emulator)), ("post_logout_redirect_uri", Self.registered), ("state", "bye")])
            #expect(response.status == 302)
            #expect(response.headers["location"]?.hasPrefix(Self.registered + "?") == true)
            #expect(response.locationQuery["state"] == "bye")
            #expect(emulator.endedSessions.count == 1)
        }
    }

    @Test(
        "pingone-signoff-mismatch: another port, path or a port-less URI is an error page (400), no redirect, session kept",
        arguments: ["http://127.0.0.1:40001/logout", "http://127.0.0.1/logout", "http://127.0.0.1:40000/other"])
    func pingOneMismatch(uri: String) throws {
        try withEmulator(configuration(.pingOne)) { emulator in
            let response = try signOff(
                emulator, [("id_token_hint", idToken(emulator)), ("client_id", "pingcli-test"), ("post_logout_redirect_uri", uri)])
            #expect(response.status == 400)
            #expect(response.headers["location"] == nil)
            #expect(response.text.contains("id=\"emulator-signoff-error\""))
            #expect(response.text.contains("invalid post logout redirect URI"))
            #expect(emulator.endedSessions.isEmpty)
        }
    }

    @Test("pingone-signin-any-port: sign-in redirect URIs keep RFC 8252's any-port rule")
    func pingOneSignInAnyPort() throws {
        try withEmulator { emulator in
            // redirectURI uses port 49152; the client registered http://127.0.0.1/callback without a port.
            let response = try authorize(emulator, standardAuthorizeParams())
            #expect(response.status == 302 && response.locationQuery["code"] != nil)
        }
    }

    @Test("pingfederate-logout-ignored: a URI that matches none is ignored; the signed-out page (200), session ended")
    func pingFederateIgnoresMismatch() throws {
        try withEmulator(configuration(.pingFederate)) { emulator in
            let response = try signOff(
                emulator, [("id_token_hint", idToken(emulator)), ("post_logout_redirect_uri", "http://127.0.0.1:40001/logout")])
            #expect(response.status == 200)
            #expect(response.headers["location"] == nil)
            #expect(response.text.contains("id=\"emulator-signed-out\""))
            #expect(emulator.endedSessions.count == 1)
        }
    }

    @Test("pingfederate-logout-direct: a valid id_token_hint and a registered URI redirect at once")
    func pingFederateDirect() throws {
        try withEmulator(configuration(.pingFederate)) { emulator in
            let response = try signOff(
                emulator, [("id_token_hint", idToken(emulator)), ("post_logout_redirect_uri", Self.registered), ("state", "s")])
            #expect(response.status == 302 && response.locationQuery["state"] == "s")
        }
    }

    /// The confirmation page's hidden `logout_request`, after checking the page's marker.
    func confirmationRequest(_ page: TestResponse) throws -> String {
        #expect(page.status == 200)
        #expect(page.text.contains("id=\"emulator-logout-confirm\""))
        return String(try #require(page.text.firstMatch(of: /name="logout_request" value="([^"]*)"/)?.1))
    }

    @Test("pingfederate-logout-prompt: without id_token_hint the person confirms first, then the redirect follows")
    func pingFederatePromptWithoutHint() throws {
        try withEmulator(configuration(.pingFederate)) { emulator in
            let page = try signOff(
                emulator, [("client_id", "pingcli-test"), ("post_logout_redirect_uri", Self.registered), ("state", "s")])
            let request = try confirmationRequest(page)
            #expect(page.headers["location"] == nil)
            let confirmed = try http("POST", endpoint(emulator, .endSession), form: [("logout_request", request)])
            #expect(confirmed.status == 302 && confirmed.locationQuery["state"] == "s")
            // A confirmation is used once.
            let again = try http("POST", endpoint(emulator, .endSession), form: [("logout_request", request)])
            #expect(again.status == 400 && again.text.contains("id=\"emulator-signoff-error\""))
        }
    }

    @Test("pingfederate-logout-cookie-off: with the PingFederate cookie not configured even a valid hint is confirmed")
    func pingFederatePromptWithoutCookie() throws {
        var configuration = configuration(.pingFederate)
        configuration.pingFederateCookie = false
        try withEmulator(configuration) { emulator in
            let page = try signOff(emulator, [("id_token_hint", idToken(emulator)), ("post_logout_redirect_uri", Self.registered)])
            let request = try confirmationRequest(page)
            #expect(emulator.endedSessions.isEmpty, "nothing ends before the person confirms")
            let confirmed = try http("POST", endpoint(emulator, .endSession), form: [("logout_request", request)])
            #expect(confirmed.status == 302)
            #expect(emulator.endedSessions.count == 1)
        }
    }

    @Test("pingfederate-logout-prompt-mismatch: after confirming, a URI that matches none still gets the signed-out page")
    func pingFederatePromptThenIgnore() throws {
        try withEmulator(configuration(.pingFederate)) { emulator in
            let page = try signOff(emulator, [("client_id", "pingcli-test"), ("post_logout_redirect_uri", "http://127.0.0.1:1/x")])
            let confirmed = try http("POST", endpoint(emulator, .endSession), form: [("logout_request", confirmationRequest(page))])
            #expect(confirmed.status == 200 && confirmed.text.contains("id=\"emulator-signed-out\""))
        }
    }

    @Test("pingam-signoff: PingAM keeps the any-port loopback rule for sign-off URIs")
    func pingAMAnyPort() throws {
        try withEmulator(.init(layout: .pingAM)) { emulator in
            let response = try signOff(
                emulator, [("id_token_hint", idToken(emulator)), ("post_logout_redirect_uri", "http://127.0.0.1:40001/logout")])
            #expect(response.status == 302)
        }
    }
}
