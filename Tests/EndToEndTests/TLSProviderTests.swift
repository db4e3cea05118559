import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An https provider that is not on loopback (reached over TLS through a proxy, see `TLSFront`) must
/// not turn pingcli against this machine: its endpoints are all https and none of them is loopback.
@Suite("server-side request forgery: an https issuer's endpoints")
struct TLSProviderTests {
    static let issuer = "https://\(TLSFront.host)"

    /// Logs in to the https provider whose endpoints are `endpoint(local service, path)`, while a local
    /// service listens on loopback.
    func attempt(endpoint: (MaliciousProvider, String) -> String) throws -> (CLIRun, local: MaliciousProvider, front: TLSFront) {
        let local = try MaliciousProvider()  // the local service a provider would like pingcli to reach
        defer { local.stop() }
        let provider = try MaliciousProvider(issuer: Self.issuer)
        defer { provider.stop() }
        let sandbox = Sandbox()
        let front = try TLSFront(backendPort: provider.port, directory: sandbox.root)
        defer { front.stop() }
        provider.script.discovery = [
            "token_endpoint": json(endpoint(local, "/token")), "userinfo_endpoint": json(endpoint(local, "/userinfo")),
            "revocation_endpoint": json(endpoint(local, "/revoke")),
        ]
        let run = sandbox.run(
            ["login", "--issuer", Self.issuer, "--client-id", "pingcli-test", "--ca-file", front.caFile, "--timeout", "2"],
            environment: front.environment.merging([
                "PINGCLI_BROWSER": Locations.support + "/record-url", "RECORD_URL_FILE": sandbox.root + "/url",
            ]) {
                $1
            })
        #expect(local.received.isEmpty, "nothing reached the local service: \(local.received.map(\.text))")
        return (run, local, front)
    }

    @Test("ssrf-http-loopback-endpoint: an https issuer advertising http://127.0.0.1 endpoints is refused at discovery")
    func httpLoopbackEndpoint() throws {
        let (run, _, front) = try attempt { $0.issuer + $1 }
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("token_endpoint http://127.0.0.1:") && run.stderr.contains("it is not https"), "\(run)")
        #expect(run.rule == "discovery-insecure-endpoint", "\(run)")
        #expect(front.connectTargets == ["\(TLSFront.host):443"], "discovery went over TLS through the proxy")
    }

    @Test("ssrf-https-localhost-endpoint: an https issuer advertising https://localhost endpoints is refused at discovery")
    func httpsLocalhostEndpoint() throws {
        let (run, _, _) = try attempt { "https://localhost:\($0.port)" + $1 }
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("it points at this machine (a loopback address) although the issuer is not on loopback"), "\(run)")
        #expect(run.rule == "discovery-insecure-endpoint", "\(run)")
    }

    @Test("ssrf-control: the same https provider with https endpoints of its own passes discovery and waits for the browser")
    func wellBehavedProvider() throws {
        let (run, _, front) = try attempt { Self.issuer + $1 }
        #expect(run.status == 1, "\(run)")
        #expect(run.rule == "login-timeout", "\(run)")
        #expect(front.connectTargets.first == "\(TLSFront.host):443")
    }
}
