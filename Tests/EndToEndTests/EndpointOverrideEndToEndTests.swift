import Foundation
import PingEmulator
import Testing

/// `login --authorization-endpoint URL --token-endpoint URL …` through the built binary, against an
/// emulator that serves no discovery document (as a gateway in front of a provider).
@Suite struct EndpointOverrideEndToEndTests {
    @Test(
        "override-e2e: no discovery document: login with the endpoints, token, status naming them; a refused endpoint is exit 2 before any request"
    )
    func withoutDiscovery() throws {
        let (emulator, sandbox) = try emulatorAndSandbox { $0.servesDiscovery = false }
        let endpoints = [
            "--authorization-endpoint", emulator.url(for: .authorize)!, "--token-endpoint", emulator.url(for: .token)!,
            "--jwks-uri", emulator.url(for: .jwks)!, "--userinfo-endpoint", emulator.url(for: .userinfo)!,
        ]
        let refused = sandbox.login(emulator, endpoints + ["--revocation-endpoint", "http://revoke.example.com/revoke"])
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused)")
        #expect(refused.stderr.contains("--revocation-endpoint http://revoke.example.com/revoke was refused"), "\(refused)")
        #expect(refused.rule == "override-endpoint-policy", "\(refused)")
        #expect(emulator.requests.isEmpty, "nothing was asked of the provider")

        let login = sandbox.login(emulator, endpoints)
        #expect(login.status == 0, "\(login)")
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
        #expect(sandbox.run(["userinfo"]).status == 0)
        let status = sandbox.run(["status"])
        #expect(status.stdout.contains("discovery:     none"), "\(status)")
        #expect(
            status.stdout.contains("endpoint:      authorization_endpoint \(emulator.url(for: .authorize)!) (given at login)"), "\(status)")
        #expect(status.stdout.contains("endpoint:      jwks_uri \(emulator.url(for: .jwks)!) (given at login)"), "\(status)")
        let profile = readText(sandbox.profileDirectory + "/profile.json") ?? ""
        #expect(profile.contains("\"endpoint_overrides\""), "\(profile)")
        #expect(profile.contains("\"discovery\" : false"), "\(profile)")
    }
}
