import Testing

@testable import PingBase
@testable import PingLogin
@testable import PingOAuth
@testable import PingPlatform
@testable import PingState

/// The login plan's issuer-bound settings (`LoginPlan.settings`): flags > environment > saved profile, and the same-issuer rule.
@Suite("login configuration: flags, environment, saved profile")
struct LoginPlanTests {
    let name = ProfileName.default
    let issuer = "https://auth.example.com/env/as"

    /// A profile saved by an earlier login to `issuer`, with every issuer-bound setting.
    func saved(issuer: String = "https://auth.example.com/env/as", grant: Profile.GrantType? = nil) -> Profile {
        var profile = Profile(
            issuer: issuer, clientID: "saved-client", scopes: ["machine.read"],
            metadata: ProviderMetadata(
                issuer: issuer, authorizationEndpoint: EndpointURL(stringLiteral: issuer + "/authorize"),
                tokenEndpoint: EndpointURL(stringLiteral: issuer + "/token")))
        profile.caFile = "/etc/saved-ca.pem"
        profile.port = 8400
        profile.logoutPort = 8401
        profile.grantType = grant
        return profile
    }

    func resolve(
        _ flags: LoginPlan.Flags = .init(), environment: [String: String] = [:], saved: Profile? = nil
    ) throws(PingCLIError) -> LoginPlan {
        try LoginPlan.settings(flags, environment: Environment(environment), saved: saved, profile: name)
    }

    @Test("login-config-precedence: a flag beats the environment, the environment beats the saved profile")
    func precedence() throws {
        let environment = ["PINGCLI_ISSUER": "https://env.example.com", "PINGCLI_CLIENT_ID": "env-client"]
        let fromFlags = try resolve(
            .init(issuer: "https://flag.example.com", clientID: "flag-client"), environment: environment, saved: saved())
        #expect(fromFlags.issuer.value == "https://flag.example.com" && fromFlags.clientID == "flag-client")
        let fromEnvironment = try resolve(environment: environment, saved: saved())
        #expect(fromEnvironment.issuer.value == "https://env.example.com" && fromEnvironment.clientID == "env-client")
        let fromSaved = try resolve(saved: saved())
        #expect(fromSaved.issuer.value == issuer && fromSaved.clientID == "saved-client")
        #expect(fromSaved.scopes == ["machine.read"], "a person's saved scopes come back for the same issuer")
    }

    @Test(
        "login-config-person-settings: a person's scopes and step-up come back for the same issuer only; '' forgets step-up; not for a device login or a machine's profile"
    )
    func personSettings() throws {
        var person = saved()
        person.maxAge = 300
        person.acrValues = ["urn:strong"]
        let same = try resolve(saved: person)
        #expect(same.scopes == ["machine.read"] && same.requirements == AuthenticationRequirements(maxAge: 300, acrValues: ["urn:strong"]))
        let other = try resolve(.init(issuer: "https://other.example.com"), saved: person)
        #expect(other.scopes == LoginPlan.defaultScopes && other.requirements == AuthenticationRequirements())
        var flags = LoginPlan.Flags(scope: "openid")
        flags.requirements.acrValues = ["urn:other"]
        flags.forgottenRequirements = [.maxAge]
        let changed = try resolve(flags, saved: person)
        #expect(changed.scopes == ["openid"] && changed.requirements == AuthenticationRequirements(acrValues: ["urn:other"]))
        let device = try resolve(.init(device: true), saved: person)
        #expect(device.scopes == ["machine.read"] && device.requirements == AuthenticationRequirements(), "step-up is the browser's")
        let deviceProfile = try resolve(saved: saved(grant: .deviceCode))
        #expect(deviceProfile.grant == .device && deviceProfile.scopes == ["machine.read"], "a device profile's scopes come back too")
        let asPerson = try resolve(.init(noBrowser: true), saved: saved(grant: .clientCredentials))
        #expect(asPerson.scopes == LoginPlan.defaultScopes, "a machine's scopes are not a person's")
    }

    @Test("login-config-same-issuer: ports, CA file and the way in are reused for the same issuer only")
    func sameIssuer() throws {
        let same = try resolve(saved: saved(grant: .deviceCode))
        #expect(same.port == 8400 && same.logoutPort == 8401 && same.caFile == "/etc/saved-ca.pem" && same.grant == .device)
        let other = try resolve(.init(issuer: "https://other.example.com"), saved: saved(grant: .deviceCode))
        #expect(other.port == 0 && other.logoutPort == nil && other.caFile == nil && other.grant == .browser)
        #expect(other.clientID == "saved-client", "the client id is not issuer-bound: it follows the profile")
    }

    @Test("login-config-flags-win: --port, --logout-port 0 (forget), --ca-file and a named way in override the saved ones")
    func flagsWin() throws {
        let resolved = try resolve(
            .init(port: 9000, logoutPort: 0, caFile: "/tmp/ca.pem", noBrowser: true), saved: saved(grant: .deviceCode))
        #expect(resolved.port == 9000 && resolved.logoutPort == nil && resolved.caFile == "/tmp/ca.pem")
        #expect(resolved.grant == .browser, "--no-browser names the browser login: the saved device grant is not used")
    }

    @Test(
        "login-config-client-credentials: saved scopes come back only for a machine's profile; --device and --client-credentials conflict")
    func clientCredentials() throws {
        let machine = try resolve(saved: saved(grant: .clientCredentials))
        #expect(machine.grant == .clientCredentials && machine.clientCredentialsScopes == ["machine.read"])
        let person = try resolve(.init(clientCredentials: true), saved: saved())
        #expect(person.clientCredentialsScopes.isEmpty)
        #expect(
            try resolve(.init(scope: "a b", clientCredentials: true), saved: saved(grant: .clientCredentials)).clientCredentialsScopes == [
                "a", "b",
            ])
        #expect(throws: PingCLIError.usage("--device and --client-credentials cannot be combined: choose one", rule: .optionConflict)) {
            try resolve(.init(issuer: issuer, clientID: "c", device: true, clientCredentials: true))
        }
    }

    @Test("login-config-missing: no issuer or client id anywhere is a usage error naming the flag and the variable")
    func missing() {
        #expect(
            throws: PingCLIError.usage(
                "missing --issuer URL (or --pingone ENV_ID, or PINGCLI_ISSUER) for profile \"default\": see pingcli login --help",
                rule: .loginSettingsMissing)
        ) {
            try resolve()
        }
        #expect(
            throws: PingCLIError.usage(
                "missing --client-id ID (or PINGCLI_CLIENT_ID) for profile \"default\": see pingcli login --help",
                rule: .loginSettingsMissing)
        ) {
            try resolve(.init(issuer: issuer, clientID: ""))
        }
        #expect(throws: PingCLIError.usage("--scope is empty: give at least one scope, e.g. --scope openid", rule: .scopeEmpty)) {
            try resolve(.init(issuer: issuer, clientID: "c", scope: " "))
        }
    }
}
