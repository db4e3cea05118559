import Testing

@testable import PingAM
@testable import PingBase
@testable import PingCommandLine
@testable import PingCrypto
@testable import PingLogin
@testable import PingOAuth
@testable import PingPlatform
@testable import PingState

/// `LoginPlan.resolve`, pure: what login decides beyond the issuer-bound settings (the way the client
/// authenticates, TLS, extra parameters, the browser, the journey), and `Flags(parsing:)`, the typed argv.
@Suite("login plan: parse, then resolve, without I/O")
struct LoginPlanResolveTests {
    let issuer = "https://auth.example.com/env/as"

    func saved(grant: Profile.GrantType? = nil) -> Profile {
        var profile = Profile(
            issuer: issuer, clientID: "saved-client", scopes: ["openid"],
            metadata: ProviderMetadata(
                issuer: issuer, authorizationEndpoint: EndpointURL(stringLiteral: issuer + "/authorize"),
                tokenEndpoint: EndpointURL(stringLiteral: issuer + "/token")))
        profile.grantType = grant
        return profile
    }

    func plan(_ flags: LoginPlan.Flags, environment: [String: String] = [:], saved: Profile? = nil) throws(PingCLIError) -> LoginPlan {
        try LoginPlan.resolve(flags, environment: Environment(environment), saved: saved, profile: .default)
    }

    /// The flags `pingcli login ARGS` parses to.
    func flags(_ arguments: [String]) throws(PingCLIError) -> LoginPlan.Flags {
        try LoginPlan.Flags(parsing: parseOptions(arguments, specs: LoginCommand.specs, command: "login"))
    }

    @Test("login-plan-spec-table: every LoginOption case is one of login's options, once")
    func specTable() {
        let names = LoginCommand.specs.map(\.name)
        for option in LoginOption.allCases { #expect(names.filter { $0 == option.rawValue }.count == 1, "\(option)") }
        for option in CommonOption.allCases { #expect(names.contains(option.rawValue), "\(option)") }
    }

    @Test("login-plan-parameters: max_age, acr_values, login_hint, prompt, then --param, in that order; a step-up --param is a requirement")
    func parameters() throws {
        let given = try flags([
            "--issuer", issuer, "--client-id", "c", "--param", "max_age=60", "--acr-values", "urn:a urn:b", "--login-hint", "ann",
            "--prompt", "login", "--param", "ui_locales=de",
        ])
        #expect(given.requirements == AuthenticationRequirements(maxAge: 60, acrValues: ["urn:a", "urn:b"]))
        let resolved = try plan(given)
        #expect(resolved.extraParameters.map(\.name) == ["max_age", "acr_values", "login_hint", "prompt", "ui_locales"])
        #expect(resolved.extraParameters.map(\.value) == ["60", "urn:a urn:b", "ann", "login", "de"])
        #expect(throws: PingCLIError.usage("--param cannot set state: pingcli sets it itself", rule: .paramGate)) {
            try flags(["--param", "state=x"])
        }
    }

    @Test("login-plan-browser: --no-browser, or an SSH session without a display, opens none; the timeout follows the grant")
    func browser() throws {
        let base = LoginPlan.Flags(issuer: issuer, clientID: "c")
        let local = try plan(base)
        #expect(local.openBrowser && !local.browserHeldBack && local.timeout == 300)
        let remote = try plan(base, environment: ["SSH_CONNECTION": "10.0.0.1 5 10.0.0.2 22"])
        #expect(!remote.openBrowser && remote.browserHeldBack)
        var told = base
        told.noBrowser = true
        let quiet = try plan(told, environment: ["SSH_CONNECTION": "10.0.0.1 5 10.0.0.2 22"])
        #expect(!quiet.openBrowser && !quiet.browserHeldBack, "--no-browser said it: nothing to explain")
        var device = base
        device.device = true
        #expect(try plan(device).timeout == 24 * 3600)
        device.timeout = 30
        #expect(try plan(device).timeout == 30)
    }

    @Test("login-plan-client-authentication: one way only; the secret's source; a machine needs one; a saved key for the same issuer only")
    func clientAuthentication() throws {
        var flags = LoginPlan.Flags(issuer: issuer, clientID: "c")
        flags.clientSecretFile = "-"
        guard case .standardInput = try plan(flags).clientSecret else { Issue.record("- is standard input"); return }
        flags.clientSecretFile = nil
        guard case .environment(let secret) = try plan(flags, environment: ["PINGCLI_CLIENT_SECRET": "s3"]).clientSecret else {
            Issue.record("PINGCLI_CLIENT_SECRET is the secret")
            return
        }
        #expect(secret == (try ClientSecret(checking: "s3")))
        flags.clientKeyFile = "/keys/client.pem"
        #expect(
            throws: PingCLIError.usage(
                "give either --client-key-file, a client secret or a client certificate, not two: a client authenticates one way",
                rule: .clientAuthOneWay)
        ) {
            try plan(flags, environment: ["PINGCLI_CLIENT_SECRET": "s3"])
        }
        var machine = LoginPlan.Flags(issuer: issuer, clientID: "c", clientCredentials: true)
        #expect(throws: PingCLIError.self) { try plan(machine) }
        machine.clientKeyID = "kid"
        #expect(
            throws: PingCLIError.usage(
                "--client-key-id and --client-assertion-audience need --client-key-file PEM", rule: .clientKeyOptions)
        ) {
            try plan(machine)
        }
        var keyed = saved()
        keyed.clientKey = ClientKeyOptions(path: "/keys/saved.pem", keyID: "k1", audience: .issuer)
        let same = try plan(LoginPlan.Flags(clientCredentials: true), saved: keyed)
        #expect(same.clientKey == ClientKeyOptions(path: "/keys/saved.pem", keyID: "k1", audience: .issuer))
        #expect(try plan(LoginPlan.Flags(issuer: "https://other.example.com"), saved: keyed).clientKey == nil)
    }

    @Test("login-plan-tls: the saved certificate and pins come back for the same issuer only; a pin needs https")
    func tls() throws {
        var profile = saved()
        profile.clientTLS = ClientTLS(
            certificateFile: "/c.pem", keyFile: "/k.pem", pins: [try KeyPin(checking: "sha256//" + String(repeating: "A", count: 43) + "=")]
        )
        #expect(try plan(LoginPlan.Flags(), saved: profile).tls == profile.clientTLS)
        #expect(try plan(LoginPlan.Flags(issuer: "https://other.example.com"), saved: profile).tls == ClientTLS())
        var flags = LoginPlan.Flags(issuer: "http://127.0.0.1:9/as", clientID: "c")
        flags.clientTLS.pins = profile.clientTLS.pins
        #expect(throws: PingCLIError.self) { try plan(flags) }
    }

    @Test("login-plan-ca-file: a CA given now (flag, then PINGCLI_CA_FILE) passes the file gate; a saved one is not read again")
    func caFile() throws {
        var profile = saved()
        profile.caFile = "/etc/saved.pem"
        let savedCA = try plan(LoginPlan.Flags(), saved: profile)
        #expect(savedCA.caFile == "/etc/saved.pem" && savedCA.caFileSource == nil)
        let fromEnvironment = try plan(LoginPlan.Flags(), environment: ["PINGCLI_CA_FILE": "/env.pem"], saved: profile)
        #expect(fromEnvironment.caFile == "/env.pem" && fromEnvironment.caFileSource == "PINGCLI_CA_FILE")
        let fromFlag = try plan(LoginPlan.Flags(caFile: "/flag.pem"), environment: ["PINGCLI_CA_FILE": "/env.pem"], saved: profile)
        #expect(fromFlag.caFile == "/flag.pem" && fromFlag.caFileSource == "--ca-file")
    }

    @Test("login-plan-journey: a saved tree signs in again for the same issuer; not for a device login; its companions need --journey")
    func journey() throws {
        var profile = saved()
        profile.journey = "Login"
        profile.amCookieName = "iPlanetDirectoryPro"
        let again = try plan(LoginPlan.Flags(), saved: profile)
        #expect(again.journey?.tree == JourneyTree("Login") && again.journey?.cookieName == AMCookieName("iPlanetDirectoryPro"))
        #expect(try plan(LoginPlan.Flags(device: true), saved: profile).journey == nil)
        #expect(try plan(LoginPlan.Flags(issuer: "https://other.example.com"), saved: profile).journey == nil)
        var flags = LoginPlan.Flags(issuer: issuer, clientID: "c")
        flags.cookieName = "c"
        #expect(throws: PingCLIError.usage("--cookie-name belongs to a journey sign-in: give --journey TREE too", rule: .journeyCompanion))
        { try plan(flags) }
        flags.journey = "Login"
        flags.answers = "/answers"
        #expect(try plan(flags).journeyAnswers == "/answers")
    }

    @Test("login-plan-helper: no flags and a saved device profile: the profile's saved login, its way in and its settings")
    func savedLogin() throws {
        var profile = saved(grant: .deviceCode)
        profile.port = 8400
        let again = try plan(LoginPlan.Flags(), saved: profile)
        #expect(again.grant == .device && again.clientID == "saved-client" && again.port == 8400 && again.issuer.value == issuer)
        #expect(again.clientSecret == nil && !again.force && !again.printJSON)
    }

    @Test("login-plan-pingone: --pingone names the issuer and its line; --issuer with it is refused")
    func pingOne() throws {
        let id = "9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b"
        let given = try flags(["--pingone", id, "--region", "eu"])
        #expect(given.issuer == "https://auth.pingone.eu/\(id)/as" && given.issuerDescription?.contains("region eu") == true)
        #expect(throws: PingCLIError.usage("--issuer cannot be combined with --pingone: choose one", rule: .optionConflict)) {
            try flags(["--pingone", id, "--issuer", issuer])
        }
    }
}
