import Foundation
import Testing

@testable import PingEmulator

/// RFC 9207 `iss` in the authorization response, per layout and with `authorizationResponseIssuer`.
@Suite struct AuthorizationIssuerTests {
    func check(_ configuration: EmulatorConfiguration, sends: Bool) throws {
        try withEmulator(configuration) { emulator in
            let success = try authorize(emulator, standardAuthorizeParams())
            #expect(success.locationQuery["code"] != nil)
            #expect(success.locationQuery["iss"] == (sends ? emulator.issuer : nil))
            let failure = try authorize(emulator, standardAuthorizeParams(scope: "openid admin"))
            #expect(failure.locationQuery["error"] == "invalid_scope")
            #expect(failure.locationQuery["iss"] == (sends ? emulator.issuer : nil))
            let doc = try #require(http("GET", endpoint(emulator, .discovery)).json)
            #expect(doc["authorization_response_iss_parameter_supported"] == (sends ? true : nil))
        }
    }

    @Test("iss-pingfederate-default: not sent, not advertised")
    func pingFederateDefault() throws { try check(.init(layout: .pingFederate), sends: false) }

    @Test("iss-pingfederate-switch: Include Issuer in Authorization Response sends and advertises it")
    func pingFederateSwitch() throws {
        var configuration = EmulatorConfiguration(layout: .pingFederate)
        configuration.authorizationResponseIssuer = true
        try check(configuration, sends: true)
    }

    @Test("iss-pingone-default: sent and advertised; the switch turns it off", arguments: [Layout.pingOne, .pingAM])
    func otherLayouts(layout: Layout) throws {
        try check(.init(layout: layout), sends: true)
        var off = EmulatorConfiguration(layout: layout)
        off.authorizationResponseIssuer = false
        try check(off, sends: false)
    }
}
