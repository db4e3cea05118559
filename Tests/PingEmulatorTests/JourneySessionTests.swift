import EmulatorHTTP
import Foundation
import Testing

@testable import PingEmulator

/// PingAM's server information, the SSO session a journey ends with, its sign-off, and `/authorize`
/// turning it into a code in both documented forms.
@Suite struct JourneySessionTests {
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let redirect = "http://127.0.0.1/callback"

    static var authorizeFields: [(String, String)] {
        [
            ("client_id", "pingcli-test"), ("scope", "openid profile"), ("response_type", "code"), ("redirect_uri", redirect),
            ("code_challenge", challenge), ("code_challenge_method", "S256"), ("state", "st-9"), ("nonce", "n-9"),
        ]
    }

    func authorizeURL(_ am: AMDriver) -> String { FormEncoding.append(Self.authorizeFields, to: am.emulator.issuer + "/authorize") }

    /// The `code` of a 302's Location, after checking state.
    func code(_ answer: AMDriver.Answer) throws -> String {
        #expect(answer.status == 302)
        let location = try #require(answer.header("location"))
        #expect(location.hasPrefix(Self.redirect + "?"))
        let query = FormEncoding.decode(location.drop { $0 != "?" }.dropFirst())
        #expect(query["state"] == "st-9")
        return try #require(query["code"])
    }

    /// Redeems `code` with the PKCE verifier and returns the ID token's claims.
    func redeem(_ am: AMDriver, _ code: String, verifier: String = verifier) throws -> (status: Int, claims: EmulatorJSON?) {
        let form = FormEncoding.encode([
            ("grant_type", "authorization_code"), ("code", code), ("client_id", "pingcli-test"),
            ("redirect_uri", Self.redirect), ("code_verifier", verifier),
        ])
        let answer = am.send(
            "POST", am.emulator.issuer + "/access_token", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form)
        return (answer.status, answer.json["id_token"]?.stringValue.flatMap { JWSCheck.parts($0).claims })
    }

    @Test("serverinfo-cookie-name: the cookie's name, iPlanetDirectoryPro by default, a tenant's random one when set")
    func serverInfo() throws {
        let am = try AMDriver()
        let info = am.send("GET", am.am + "/json/serverinfo/*", headers: [("Accept-API-Version", "resource=1.1")])
        #expect(info.status == 200)
        #expect(info.json["cookieName"] == "iPlanetDirectoryPro")
        #expect(am.send("GET", am.am + "/json/serverinfo/%2A").json["cookieName"] == "iPlanetDirectoryPro")
        #expect(am.send("GET", am.am + "/json/serverinfo/*", headers: [("Accept-API-Version", "resource=2.0")]).status == 404)
        let name = JourneySettings.randomCookieName()
        #expect(name.count == 15 && name.allSatisfy(\.isHexDigit))
        let tenant = try AMDriver { $0.journeys.cookieName = name }
        #expect(tenant.send("GET", tenant.am + "/json/serverinfo/*").json["cookieName"] == .string(name))
    }

    @Test("session-authorize-header: GET /authorize with the cookie-named header gives a code; the ID token's sub is the user")
    func authorizeWithHeader() throws {
        let am = try AMDriver()
        let token = try am.signIn()
        let answer = am.send("GET", authorizeURL(am), headers: [("iPlanetDirectoryPro", token)])
        let result = try redeem(am, try code(answer))
        #expect(result.status == 200)
        #expect(result.claims?["sub"] == .string(User.demo.sub))
        #expect(result.claims?["nonce"] == "n-9")
        #expect(result.claims?["auth_time"] == .number(AMDriver.startTime))
    }

    @Test("session-authorize-pkce: the code from a session still needs the right verifier")
    func authorizeChecksPKCE() throws {
        let am = try AMDriver()
        let answer = am.send("GET", authorizeURL(am), headers: [("iPlanetDirectoryPro", try am.signIn())])
        #expect(try redeem(am, try code(answer), verifier: String(repeating: "a", count: 43)).status == 400)
    }

    @Test("session-authorize-form: POST with Cookie, csrf and decision=allow gives a code; deny and a wrong csrf do not")
    func authorizeWithForm() throws {
        let am = try AMDriver()
        let token = try am.signIn()
        func post(_ extra: [(String, String)]) -> AMDriver.Answer {
            am.send(
                "POST", am.emulator.issuer + "/authorize",
                headers: [("Cookie", "other=1; iPlanetDirectoryPro=\(token)"), ("Content-Type", "application/x-www-form-urlencoded")],
                body: FormEncoding.encode(Self.authorizeFields + extra))
        }
        #expect(try redeem(am, try code(post([("csrf", token), ("decision", "allow")]))).status == 200)
        let denied = post([("csrf", token), ("decision", "deny")])
        #expect(denied.header("location")?.contains("error=access_denied") == true)
        #expect(post([("csrf", "not-the-session"), ("decision", "allow")]).status == 400)
    }

    @Test(
        "session-authorize-par-required: where PAR is required, a session's /authorize without a request_uri, by header or by the form, gets the error page, not a code"
    )
    func sessionNeedsPushedRequest() throws {
        let am = try AMDriver { $0.pushedAuthorization = .required }
        let token = try am.signIn()
        let header = am.send("GET", authorizeURL(am), headers: [("iPlanetDirectoryPro", token)])
        let form = am.send(
            "POST", am.emulator.issuer + "/authorize",
            headers: [("Cookie", "iPlanetDirectoryPro=\(token)"), ("Content-Type", "application/x-www-form-urlencoded")],
            body: FormEncoding.encode(Self.authorizeFields + [("csrf", token), ("decision", "allow")]))
        for answer in [header, form] {
            #expect(answer.status == 400)
            #expect(answer.text.contains("This client must use pushed authorization requests (RFC 9126)."), "\(answer.text)")
            #expect(answer.header("location") == nil)
        }
    }

    @Test("session-consent: a client without implied consent gets the consent page, not a code")
    func consentRequired() throws {
        let am = try AMDriver { $0.clients[0].impliedConsent = false }
        let answer = am.send("GET", authorizeURL(am), headers: [("iPlanetDirectoryPro", try am.signIn())])
        #expect(answer.status == 200)
        #expect(answer.text.contains("name=\"decision\""))
        #expect(answer.header("location") == nil)
    }

    @Test("session-invalid: an unknown, ended or expired session is sent to AM's login page")
    func invalidSession() throws {
        let am = try AMDriver()
        let unknown = am.send("GET", authorizeURL(am), headers: [("iPlanetDirectoryPro", "AQIC-nothing*")])
        #expect(unknown.status == 302)
        #expect(unknown.header("location")?.hasPrefix(am.am + "/XUI/?realm=%2Falpha&goto=") == true)
        let token = try am.signIn()
        am.emulator.advanceClock(by: 7201)
        let expired = am.send("GET", authorizeURL(am), headers: [("iPlanetDirectoryPro", token)])
        #expect(expired.header("location")?.contains("/XUI/") == true)
    }

    @Test("session-logout: sessions?_action=logout with the cookie-named header ends the session, once")
    func logout() throws {
        let am = try AMDriver()
        let token = try am.signIn()
        let path = am.am + "/json/realms/root/realms/alpha/sessions?_action=logout"
        let headers = [
            ("iPlanetDirectoryPro", token), ("Accept-API-Version", "resource=3.1, protocol=1.0"), ("Content-Type", "application/json"),
        ]
        let validate = am.am + "/json/realms/root/realms/alpha/sessions?_action=validate"
        #expect(am.send("POST", validate, headers: headers).json["valid"] == true)
        let out = am.send("POST", path, headers: headers)
        #expect(out.status == 200)
        #expect(out.json == ["result": "Successfully logged out"])
        #expect(am.emulator.journeySessions.first?.ended == true)
        #expect(am.send("POST", path, headers: headers).status == 401)
        #expect(am.send("POST", validate, headers: headers).json["valid"] == false)
        #expect(am.send("GET", authorizeURL(am), headers: [("iPlanetDirectoryPro", token)]).header("location")?.contains("/XUI/") == true)
        #expect(am.send("POST", path).status == 401)
        #expect(am.send("POST", am.am + "/json/realms/root/realms/alpha/sessions?_action=explode", headers: headers).status == 400)
    }

    @Test("session-cookie-name: with a tenant's cookie name, only a header of that name carries the session")
    func customCookieName() throws {
        let am = try AMDriver {
            $0.journeys.cookieName = "46b42b4229cd7a3"
            $0.signInMode = .form
        }
        let token = try am.signIn()
        // Without the session the browser sign-in form answers, as it does for a request with no session at all.
        let other = am.send("GET", authorizeURL(am), headers: [("iPlanetDirectoryPro", token)])
        #expect(other.status == 200)
        #expect(other.text.contains("emulator-signin"))
        #expect(try code(am.send("GET", authorizeURL(am), headers: [("46b42b4229cd7a3", token)])).isEmpty == false)
    }

    @Test("realm-alias: /am/oauth2/alpha answers as /am/oauth2/realms/root/realms/alpha, and may be the issuer")
    func realmAlias() throws {
        let am = try AMDriver()
        let alias = am.send("GET", am.am + "/oauth2/alpha/.well-known/openid-configuration")
        #expect(alias.json["issuer"] == .string(am.emulator.issuer))
        let short = try AMDriver { $0.journeys.shortIssuer = true }
        #expect(short.emulator.issuer == short.am + "/oauth2/alpha")
        let long = short.send("GET", short.am + "/oauth2/realms/root/realms/alpha/.well-known/openid-configuration")
        #expect(long.json["issuer"] == .string(short.am + "/oauth2/alpha"))
        #expect(long.json["token_endpoint"] == .string(short.am + "/oauth2/alpha/access_token"))
    }

    @Test("journey-over-http: the executable's socket path, the control endpoints for push and the e-mail")
    func overHTTP() throws {
        var configuration = EmulatorConfiguration(layout: .pingAM)
        configuration.journeys.trees.append(
            JourneyTree(
                name: "Push Then Mail",
                nodes: [.signIn, .push(message: "Approve", waitTime: 1000, approveAfterPolls: nil), .suspend(message: "Mail sent")]))
        try withEmulator(configuration) { emulator in
            let base = emulator.baseURL + "/am/json/realms/root/realms/alpha/authenticate"
            let headers = ["Content-Type": "application/json", "Accept-API-Version": "resource=2.1, protocol=1.0"]
            let first = try #require(
                try http("POST", base + "?authIndexType=service&authIndexValue=Push%20Then%20Mail", headers: headers).json)
            let wait = try #require(
                try http("POST", base, headers: headers, body: AMDriver.filled(first, ["IDToken1": "demo", "IDToken2": "demo"]).serialized)
                    .json)
            #expect(AMDriver.output(wait, 0, "waitTime") == "1000")
            let approve = try http(
                "POST", emulator.baseURL + "/__emulator/journeys/push", form: [("decision", "approve"), ("username", "demo")])
            #expect(approve.json?["decided"] == 1)
            let mail = try #require(try http("POST", base, headers: headers, body: wait.serialized).json)
            #expect(AMDriver.types(mail) == ["SuspendedTextOutputCallback"])
            let records = try #require(try http("GET", emulator.baseURL + "/__emulator/journeys/suspended").json?.arrayValue)
            let id = try #require(records.first?["suspendedId"]?.stringValue)
            let done = try http("POST", base + "?suspendedId=" + id, headers: headers)
            let token = try #require(done.json?["tokenId"]?.stringValue)
            let sessions = try http("GET", emulator.baseURL + "/__emulator/journeys/sessions").json?.arrayValue
            #expect(sessions?.first?["tokenId"] == .string(token))
        }
    }
}
