import Foundation
import Testing

@testable import PingEmulator

/// The discovery fields each product documents.
@Suite struct DiscoveryFieldTests {
    func document(_ configuration: EmulatorConfiguration) throws -> EmulatorJSON {
        try withEmulator(configuration) { try #require(http("GET", endpoint($0, .discovery)).json) }
    }

    @Test("discovery-pingone: device endpoint, grant types, response modes, RS256, signoff")
    func pingOne() throws {
        let doc = try document(.init(environmentID: "env-1"))
        let issuer = try #require(doc["issuer"]?.stringValue)
        #expect(doc["device_authorization_endpoint"]?.stringValue == issuer + "/device_authorization")
        #expect(doc["end_session_endpoint"]?.stringValue == issuer + "/signoff")
        #expect(doc["grant_types_supported"]?.arrayValue?.contains("urn:ietf:params:oauth:grant-type:device_code") == true)
        #expect(doc["response_modes_supported"]?.arrayValue?.contains("pi.flow") == true)
        #expect(doc["id_token_signing_alg_values_supported"] == ["RS256"])
        #expect(doc["claims_supported"]?.arrayValue?.contains("preferred_username") == true)
        #expect(doc["pushed_authorization_request_endpoint"]?.stringValue == issuer + "/par", "PingOne lists PAR by default")
        #expect(doc["require_pushed_authorization_requests"]?.boolValue == false)
    }

    @Test("discovery-pingfederate: device endpoint, CIBA fields, ping_end_session_endpoint, ping_revoked_sris_endpoint")
    func pingFederate() throws {
        let doc = try document(.init(layout: .pingFederate))
        let issuer = try #require(doc["issuer"]?.stringValue)
        #expect(doc["device_authorization_endpoint"]?.stringValue == issuer + "/as/device_authz.oauth2")
        #expect(doc["backchannel_authentication_endpoint"]?.stringValue == issuer + "/as/bc-auth.ciba")
        #expect(doc["backchannel_token_delivery_modes_supported"] == ["poll", "ping"])
        #expect(doc["ping_end_session_endpoint"]?.stringValue == issuer + "/idp/startSLO.ping")
        #expect(doc["ping_revoked_sris_endpoint"]?.stringValue == issuer + "/pf-ws/rest/sessionMgmt/revokedSris")
        #expect(doc["end_session_endpoint"]?.stringValue == issuer + "/idp/init_logout.openid")
        #expect(doc["grant_types_supported"]?.arrayValue?.contains("urn:openid:params:grant-type:ciba") == true)
    }

    @Test("discovery-par-switch: offered and required still advertise PAR", arguments: [PushedAuthorizationMode.offered, .required])
    func pushedAuthorization(mode: PushedAuthorizationMode) throws {
        for layout in Layout.allCases {
            let doc = try document(.init(layout: layout, pushedAuthorization: mode))
            #expect(doc["pushed_authorization_request_endpoint"]?.stringValue != nil)
            #expect(doc["require_pushed_authorization_requests"] == .bool(mode == .required))
        }
    }
}
