import Testing

@testable import PingAM
@testable import PingBase
@testable import PingHTTP
@testable import PingOAuth

/// The AM realm derived from an issuer, the cookie name, the session token and the answers file:
/// each gate with its named negative tests.
@Suite("journeys: realm endpoints, cookie name, session token, answers file")
struct JourneyRealmTests {
    func realm(_ issuer: String, override: String? = nil) throws(AMRealmError) -> AMRealm {
        // swift-format-ignore: NeverUseForceTry
        try AMRealm(issuer: try! EndpointURL(issuer), authenticateEndpoint: override.map { try! EndpointURL($0) })
    }

    @Test("journey-realm: Advanced Identity Cloud's issuer, its alias and the root realm give the same endpoints AM documents")
    func derived() throws {
        let alpha = try realm("https://tenant.forgeblocks.com/am/oauth2/realms/root/realms/alpha")
        #expect(alpha.base == "https://tenant.forgeblocks.com/am" && alpha.realms == ["alpha"])
        #expect(alpha.authenticateEndpoint.value == "https://tenant.forgeblocks.com/am/json/realms/root/realms/alpha/authenticate")
        #expect(alpha.serverInfoURL == "https://tenant.forgeblocks.com/am/json/serverinfo/*")
        #expect(alpha.sessionLogoutURL == "https://tenant.forgeblocks.com/am/json/realms/root/realms/alpha/sessions?_action=logout")
        #expect(alpha.realmName == "/alpha" && alpha.origin == "https://tenant.forgeblocks.com")
        let alias = try realm("https://tenant.forgeblocks.com/am/oauth2/alpha")
        #expect(alias.authenticateEndpoint == alpha.authenticateEndpoint)
        let root = try realm("https://am.example.com/openam/oauth2")
        #expect(root.authenticateEndpoint.value == "https://am.example.com/openam/json/realms/root/authenticate")
        #expect(try realm("https://am.example.com/am/oauth2/realms/root").realms.isEmpty)
        let nested = try realm("https://am.example.com:8443/am/oauth2/realms/root/realms/a/realms/b")
        #expect(nested.authenticateEndpoint.value == "https://am.example.com:8443/am/json/realms/root/realms/a/realms/b/authenticate")
        let local = try realm("http://127.0.0.1:9031/am/oauth2/realms/root/realms/alpha")
        #expect(local.authenticateEndpoint.value == "http://127.0.0.1:9031/am/json/realms/root/realms/alpha/authenticate")
    }

    @Test("journey-tree-name: a tree name with spaces is percent-encoded in authIndexValue; resume by id or by the link")
    func startAndResume() throws {
        let alpha = try realm("https://t.example/am/oauth2/alpha")
        let tree = try #require(JourneyTree("Login with OTP & push"))
        #expect(
            alpha.startURL(tree: tree)
                == "https://t.example/am/json/realms/root/realms/alpha/authenticate?authIndexType=service&authIndexValue=Login%20with%20OTP%20%26%20push"
        )
        let id = try #require(SuspendedID("https://t.example/am/XUI/?realm=alpha&suspendedId=Ab3-xY_9"))
        #expect(id.value == "Ab3-xY_9")
        #expect(alpha.resumeURL(suspendedID: id).hasSuffix("/authenticate?suspendedId=Ab3-xY_9"))
        #expect(SuspendedID("Ab3-xY_9") == id)
        let custom = try realm("https://t.example/am/oauth2/alpha", override: "https://login.example/custom/authenticate?x=1")
        #expect(custom.startURL(tree: tree).hasPrefix("https://login.example/custom/authenticate?x=1&authIndexType=service"))
    }

    @Test("journey-not-am: an issuer without /oauth2 (PingOne, PingFederate) has no journeys; a bad realm path is named")
    func notAM() {
        #expect(throws: AMRealmError.notAM) { try realm("https://auth.pingone.com/env/as") }
        #expect(throws: AMRealmError.notAM) { try realm("https://pf.example.com") }
        #expect(throws: AMRealmError.realmPath) { try realm("https://t.example/am/oauth2/realms/root/realms") }
        #expect(throws: AMRealmError.realmPath) { try realm("https://t.example/am/oauth2/realms/root/x/alpha") }
        #expect(throws: AMRealmError.realmPath) { try realm("https://t.example/am/oauth2/realms/root/realms/..") }
        #expect(AMRealmError.notAM.message.contains("--authenticate-endpoint"))
    }

    @Test("journey-tree-name, journey-suspended-id: refused names and ids")
    func refusedNames() {
        for bad in ["", " Login", "Login\u{1b}[2J", "a\nb", String(repeating: "x", count: 257)] { #expect(JourneyTree(bad) == nil) }
        for bad in ["", "a b", "id;rm", "https://t.example/am/XUI/?realm=alpha", String(repeating: "x", count: 513)] {
            #expect(SuspendedID(bad) == nil)
        }
    }

    @Test("journey-cookie-name: serverinfo's cookieName, an RFC 6265 token; anything else refused")
    func cookieName() throws {
        func info(_ body: String, status: Int = 200, type: String = "application/json") -> HTTPResponse {
            HTTPResponse(status: status, headers: ["content-type": type], body: Array(body.utf8))
        }
        #expect(try AMServerInfo.process(info("{\"cookieName\":\"46b42b4229cd7a3\",\"domains\":[]}")).value == "46b42b4229cd7a3")
        #expect(try AMServerInfo.process(info("{\"cookieName\":\"iPlanetDirectoryPro\"}")).value == "iPlanetDirectoryPro")
        for bad in ["\"\"", "\"a b\"", "\"a;b\"", "\"a=b\"", "\"a\\r\\nX-Evil: 1\"", "\"caf\\u00e9\"", "1", "null"] {
            #expect(throws: AMEndpointError.cookieName, "\(bad)") { try AMServerInfo.process(info("{\"cookieName\":\(bad)}")) }
        }
        #expect(throws: AMEndpointError.cookieName) { try AMServerInfo.process(info("{}")) }
        #expect(throws: AMEndpointError.httpStatus(404, contentType: "text/html")) {
            try AMServerInfo.process(info("<html>", status: 404, type: "text/html"))
        }
        #expect(throws: AMEndpointError.notJSON(contentType: "text/plain")) {
            try AMServerInfo.process(info("{\"cookieName\":\"a\"}", type: "text/plain"))
        }
        let request = AMServerInfo.request(try realm("https://t.example/am/oauth2/alpha"))
        #expect(request.headers.contains { $0.name == "Accept-API-Version" && $0.value == "resource=1.1" })
    }

    @Test("journey-session-token: the tokenId is a cookie value, never shown; logout sends it only in the cookie-named header")
    func sessionToken() throws {
        let token = try SSOToken(checking: "AQIC5wM2LY4Sfcw.*AAJTSQACMDE.*")
        #expect(!token.description.contains("AQIC") && token.description.contains("tokenId"))
        for bad in ["", "a b", "a;b", "a,b", "a\"b", "a\\b", "a\u{1b}b", "caf\u{e9}", String(repeating: "A", count: 8193)] {
            #expect(throws: TokenGrammarError.self, "\(bad.utf8.count)") { try SSOToken(checking: bad) }
        }
        let realm = try realm("https://t.example/am/oauth2/alpha")
        let name = try #require(AMCookieName("iPlanetDirectoryPro"))
        let logout = AMServerInfo.logoutRequest(realm, cookieName: name, session: token)
        #expect(logout.url == "https://t.example/am/json/realms/root/realms/alpha/sessions?_action=logout")
        #expect(logout.headers.contains { $0.name == "iPlanetDirectoryPro" && $0.value == token.value })
        #expect(logout.headers.contains { $0.name == "Accept-API-Version" && $0.value.hasPrefix("resource=3.1") })
        #expect(!logout.url.contains(token.value) && logout.body.map { !$0.contains(UInt8(ascii: "A")) } == true)
    }

    @Test(
        "am-session-info: getSessionInfo carries the session only in the cookie-named header; its times read as RFC 3339, anything else unknown"
    )
    func sessionInfo() throws {
        func info(_ body: String, status: Int = 200) -> HTTPResponse {
            HTTPResponse(status: status, headers: ["content-type": "application/json"], body: Array(body.utf8))
        }
        let token = try SSOToken(checking: "AQIC5wM2LY4Sfcw.*AAJTSQACMDE.*")
        let name = try #require(AMCookieName("iPlanetDirectoryPro"))
        let request = AMServerInfo.sessionInfoRequest(try realm("https://t.example/am/oauth2/alpha"), cookieName: name, session: token)
        #expect(request.url == "https://t.example/am/json/realms/root/realms/alpha/sessions?_action=getSessionInfo")
        #expect(request.headers.contains { $0.name == "iPlanetDirectoryPro" && $0.value == token.value })
        #expect(request.headers.contains { $0.name == "Accept-API-Version" && $0.value.hasPrefix("resource=4.0") })
        #expect(request.method == .post && !request.url.contains(token.value))
        // The answer in Ping's documentation (PingAM 8, "Manage sessions using REST").
        let documented = """
            {"username":"bjensen","universalId":"id=bjensen,ou=user,dc=am,dc=example,dc=com","realm":"/",
            "latestAccessTime":"2024-02-21T14:31:18Z","maxIdleExpirationTime":"2024-02-21T15:01:18Z",
            "maxSessionExpirationTime":"2024-02-21T16:29:56Z","properties":{"AMCtxId":"aba7b4f3-16ff-4680-b06a-d7ba237d3730-91932"}}
            """
        #expect(
            AMServerInfo.sessionTimes(info(documented))
                == AMSessionTimes(maxSessionExpiry: 1_708_532_996, maxIdleExpiry: 1_708_527_678))
        #expect(AMServerInfo.sessionTimes(info(#"{"maxSessionExpirationTime":"2024-02-21T16:29:56Z"}"#))?.maxIdleExpiry == nil)
        for unknown in [#"{}"#, #"{"maxSessionExpirationTime":"tomorrow"}"#, #"{"maxSessionExpirationTime":1708532996}"#] {
            #expect(AMServerInfo.sessionTimes(info(unknown)) == nil, "\(unknown)")
        }
        #expect(AMServerInfo.sessionTimes(info(documented, status: 401)) == nil)
    }

    @Test("journey-answers-file: PROMPT=VALUE lines matched by prompt text; options by text or number")
    func answersFile() throws {
        let file = try JourneyAnswersFile(Array("# a comment\n\nUser Name=demo\r\nPassword: = p=ss word \nChoose one=2\n".utf8))
        #expect(file.value(for: "user name") == "demo")
        #expect(file.value(for: "Password:") == " p=ss word ")
        #expect(file.value(for: "One-time code") == nil)
        #expect(JourneyAnswersFile.option("Push", in: ["OTP", "push"]) == 1)
        #expect(JourneyAnswersFile.option("1", in: ["OTP", "Push"]) == 0)
        #expect(JourneyAnswersFile.option("3", in: ["OTP", "Push"]) == nil)
        #expect(JourneyAnswersFile.option("SMS", in: ["OTP", "Push"]) == nil)
        #expect(JourneyAnswersFile.confirmationName(["Yes", " No "]) == "Yes/No")
    }

    @Test("journey-answers-file-gate: refused files name the line, never the value")
    func answersFileRefused() {
        #expect(throws: JourneyAnswersError.line(2, "has no PROMPT=VALUE")) { try JourneyAnswersFile(Array("a=b\nsecret-value\n".utf8)) }
        #expect(throws: JourneyAnswersError.line(1, "has no prompt before =")) { try JourneyAnswersFile(Array(" =secret".utf8)) }
        #expect(throws: JourneyAnswersError.line(1, "has a control character in its value")) {
            try JourneyAnswersFile(Array("a=x\u{1b}[2J".utf8))
        }
        #expect(throws: JourneyAnswersError.line(2, "answers a prompt an earlier line answers")) {
            try JourneyAnswersFile(Array("Password=a\npassword:=b".utf8))
        }
        #expect(throws: JourneyAnswersError.notUTF8) { try JourneyAnswersFile([0x61, 0x3D, 0xFF]) }
        #expect(throws: JourneyAnswersError.tooLarge) { try JourneyAnswersFile([UInt8](repeating: 0x61, count: 64 * 1024 + 1)) }
        #expect(!JourneyAnswersError.line(2, "has no PROMPT=VALUE").message.contains("secret"))
    }

    @Test("journey-device-profile: a Linux profile with a hashed machine id and no location")
    func deviceProfile() throws {
        let (name, version) = DeviceProfileAnswer.osRelease(
            "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n")
        #expect(name == "Debian GNU/Linux" && version == "12")
        let profile = DeviceProfileAnswer(osName: name, osVersion: version, machineID: "0123456789abcdef0123456789abcdef")
        let text = profile.json(metadata: true)
        let object = try #require(JSONValue.parseObject(Array(text.utf8)))
        #expect(object["identifier"]?.stringValue?.utf8.count == 64)
        #expect(!text.contains("0123456789abcdef0123456789abcdef") && !text.contains("location"))
        #expect(object["metadata"]?.objectValue?["platform"]?.objectValue?["platform"] == .string("Linux"))
        #expect(JSONValue.parseObject(Array(profile.json(metadata: false).utf8))?.keys.sorted() == ["identifier"])
        let other = DeviceProfileAnswer(osName: name, osVersion: version, machineID: "fedcba9876543210fedcba9876543210")
        #expect(other.identifier != profile.identifier)
    }
}
