import Foundation
import PingEmulator
import Testing

/// `login --authorization-endpoint URL --token-endpoint URL …` in-process: a provider without a
/// discovery document, and single endpoints over discovered ones.
@Suite struct EndpointOverrideFlowTests {
    /// The options naming the emulator's own endpoints.
    static func endpointOptions(_ emulator: Emulator, _ kinds: [(String, EndpointKind)]) -> [String] {
        kinds.flatMap { option, kind in [option, emulator.url(for: kind) ?? ""] }
    }

    static let all: [(String, EndpointKind)] = [
        ("--authorization-endpoint", .authorize), ("--token-endpoint", .token), ("--jwks-uri", .jwks),
        ("--userinfo-endpoint", .userinfo), ("--revocation-endpoint", .revoke), ("--end-session-endpoint", .endSession),
        ("--device-authorization-endpoint", .deviceAuthorization),
    ]

    @Test(
        "override-no-discovery: a provider that serves no discovery document signs in with the endpoints given; token, userinfo, revocation work; a second login reuses them"
    )
    func noDiscovery() throws {
        let harness = try FlowHarness { $0.servesDiscovery = false }
        // PingOne revokes only tokens for a custom resource (`revoke`), so logout --revoke can be checked.
        let login = harness.login(Self.endpointOptions(harness.emulator, Self.all) + ["--scope", "openid profile revoke"])
        #expect(login.status == 0, "\(login)")
        #expect(harness.emulator.requests(to: .discovery).count == 1, "asked once, answered 404")
        #expect(harness.emulator.requests(to: .jwks).count == 1, "the ID token checked against --jwks-uri")
        #expect(harness.run(["token", "--raw"]).stdout == harness.emulator.newestTokenLine)
        #expect(harness.run(["userinfo"]).status == 0)
        let status = harness.run(["status"])
        #expect(status.stdout.contains("discovery:     none"), "\(status)")
        #expect(status.stdout.contains("endpoint:      token_endpoint \(harness.emulator.url(for: .token)!) (given at login)"), "\(status)")
        let json = harness.run(["status", "--json"])
        #expect(json.stdout.contains(#""discovery": false"#), "\(json)")
        #expect(json.stdout.contains("endpoint_overrides"), "\(json)")

        // Signed in again without the options: the saved endpoints, as the profile's other settings.
        let again = harness.run(["login", "--timeout", "60", "--scope", "openid profile revoke"])
        #expect(again.status == 0, "\(again)")
        #expect(harness.emulator.requests(to: .token).count >= 2)
        let logout = harness.run(["logout", "--revoke"])
        #expect(logout.status == 0, "\(logout)")
        #expect(harness.emulator.requests(to: .revoke).count == 2)
    }

    @Test("discovery-absent: without a discovery document and without the endpoints, one line says which options to give")
    func discoveryAbsent() throws {
        let harness = try FlowHarness { $0.servesDiscovery = false }
        let run = harness.login()
        expectOneLineError(run, status: 1, contains: ["HTTP 404", "--authorization-endpoint URL and --token-endpoint URL"], secrets: [])
        // One of the two is not enough either.
        let half = harness.login(Self.endpointOptions(harness.emulator, [("--token-endpoint", .token)]))
        expectOneLineError(half, status: 1, contains: ["--authorization-endpoint URL and --token-endpoint URL"], secrets: [])
        #expect(harness.emulator.requests(to: .token).isEmpty)
    }

    @Test("id-token-no-jwks: without discovery and without --jwks-uri the ID token cannot be checked: the login fails and says --jwks-uri")
    func noJWKS() throws {
        let harness = try FlowHarness { $0.servesDiscovery = false }
        let run = harness.login(
            Self.endpointOptions(harness.emulator, [("--authorization-endpoint", .authorize), ("--token-endpoint", .token)]))
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("give login --jwks-uri URL"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: harness.stateDirectory + "/tokens.enc"))
    }

    @Test("override-single: with discovery, one endpoint given replaces the discovered one, and status says so")
    func single() throws {
        let harness = try FlowHarness()
        let userinfo = harness.emulator.url(for: .userinfo)! + "?via=override"
        let login = harness.login(["--userinfo-endpoint", userinfo])
        #expect(login.status == 0, "\(login)")
        #expect(harness.run(["userinfo"]).status == 0)
        #expect(harness.emulator.requests(to: .userinfo).last?.query["via"] == "override")
        let status = harness.run(["status"])
        #expect(
            status.stdout.contains("endpoint:      userinfo_endpoint \(userinfo) (given at login, over the discovered one)"), "\(status)")
        #expect(!status.stdout.contains("discovery:"), "\(status)")

        // An empty value forgets it: the discovered one again.
        #expect(harness.run(["login", "--timeout", "60", "--userinfo-endpoint", ""]).status == 0)
        #expect(!harness.run(["status"]).stdout.contains("endpoint:"))
    }

    @Test("override-endpoint-policy: a refused endpoint stops login before any request (exit 2, one line)")
    func refusedBeforeRequests() throws {
        let harness = try FlowHarness()
        let run = harness.login(["--token-endpoint", "http://tokens.example.com/token"])
        expectOneLineError(
            run, status: 2, contains: ["--token-endpoint http://tokens.example.com/token was refused", "is not https"], secrets: [])
        #expect(harness.emulator.requests.isEmpty)
    }
}
