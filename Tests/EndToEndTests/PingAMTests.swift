import Foundation
import PingEmulator
import Testing

/// PingAM / PingOne Advanced Identity Cloud: a realm issuer and its own endpoint names, all through discovery.
@Suite("PingAM layout")
struct PingAMTests {
    @Test("pingam-lifecycle: login, refresh, userinfo, revocation and end-session use the realm's endpoints from discovery")
    func lifecycle() throws {
        let emulator = try startEmulator {
            $0.layout = .pingAM
            $0.accessTokenLifetime = 20
        }
        defer { emulator.stop() }
        let root = "/am/oauth2/realms/root/realms/alpha"
        #expect(emulator.issuer == emulator.baseURL + root)
        let sandbox = Sandbox()
        #expect(sandbox.login(emulator).status == 0)
        emulator.accessTokenLifetime = 3600
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
        #expect(sandbox.run(["userinfo", "--raw"]).stdout.contains("\"sub\":"))
        let logout = sandbox.run(["logout", "--revoke", "--end-session", "--port", "0", "--timeout", "30"])
        #expect(logout.status == 0, "\(logout)")
        let paths = Set(emulator.requests.map(\.path))
        for suffix in ["/authorize", "/access_token", "/userinfo", "/token/revoke", "/connect/endSession"] {
            #expect(paths.contains(root + suffix), "\(suffix)")
        }
        #expect(emulator.requests(to: .token).map(\.grantType) == ["authorization_code", "refresh_token"])
        let profile = readText(sandbox.profileDirectory + "/profile.json") ?? ""
        #expect(profile.contains("\"device_authorization_endpoint\" : \"\(emulator.baseURL)\(root)/device/code\""))
        #expect(profile.contains("\"jwks_uri\" : \"\(emulator.baseURL)\(root)/connect/jwk_uri\""))
    }
}
