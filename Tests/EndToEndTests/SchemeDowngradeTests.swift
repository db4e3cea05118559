import Foundation
import PingEmulator
import Testing

/// A scheme never goes down: an https issuer's endpoints are all https whatever their host, loopback too
/// (a local gateway, a port-forward, a TLS-terminating sidecar). Here the issuer is https on 127.0.0.1:
/// a hostile provider behind `socat`'s TLS, with a certificate for that address.
@Suite("no scheme downgrade: an https issuer on loopback")
struct SchemeDowngradeTests {
    /// Logs in to `https://127.0.0.1:<tls port>` whose discovery names `field` as `endpoint(local, path)`,
    /// while another local service records whatever reaches it.
    func attempt(
        field: String, endpoint: (_ local: MaliciousProvider, _ issuer: String) -> String,
        prepare: (_ local: MaliciousProvider, _ provider: MaliciousProvider) -> Void = { _, _ in }
    ) throws -> (
        CLIRun, local: MaliciousProvider, provider: MaliciousProvider, sandbox: Sandbox
    ) {
        let local = try MaliciousProvider()  // where a downgraded request would go
        let provider = try MaliciousProvider()
        let sandbox = Sandbox()
        let tls = try LoopbackTLS(backendPort: provider.port, directory: sandbox.root, name: "issuer")
        defer { tls.stop() }
        let issuer = "https://127.0.0.1:\(tls.port)"
        var discovery: [String: String?] = [
            "issuer": json(issuer), "authorization_endpoint": json(issuer + "/authorize"), "token_endpoint": json(issuer + "/token"),
            "userinfo_endpoint": json(issuer + "/userinfo"), "revocation_endpoint": json(issuer + "/revoke"),
            "end_session_endpoint": json(issuer + "/end"), "jwks_uri": json(issuer + "/jwks"),
        ]
        discovery[field] = json(endpoint(local, issuer))
        provider.script.discovery = discovery
        prepare(local, provider)
        let run = sandbox.run(
            ["login", "--issuer", issuer, "--client-id", "pingcli-test", "--ca-file", tls.certFile, "--timeout", "2"],
            environment: ["PINGCLI_BROWSER": Locations.support + "/record-url", "RECORD_URL_FILE": sandbox.root + "/url"])
        return (run, local, provider, sandbox)
    }

    @Test(
        "scheme-downgrade: an https issuer on 127.0.0.1 advertising an http endpoint is refused; the endpoint receives nothing",
        arguments: ["token_endpoint", "userinfo_endpoint", "pushed_authorization_request_endpoint", "revocation_endpoint"])
    func httpEndpointRefused(field: String) throws {
        let (run, local, provider, sandbox) = try attempt(field: field) { local, _ in local.issuer + "/endpoint" }
        defer {
            local.stop()
            provider.stop()
        }
        #expect(run.status == 1, "\(run)")
        #expect(run.rule == "discovery-insecure-endpoint", "\(run)")
        #expect(
            run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("\(field) http://127.0.0.1:\(local.port)/endpoint")
                && run.stderr.contains(
                    "it is not https (an https issuer's endpoints must all be https; plain http only for an http issuer and endpoint both on loopback)"
                ), "\(run)")
        #expect(local.received.isEmpty, "nothing reached the http endpoint: \(local.received.map(\.text))")
        #expect(provider.received.map(\.path) == ["/.well-known/openid-configuration"], "only discovery, over TLS")
        #expect(!FileManager.default.fileExists(atPath: sandbox.profileDirectory + "/profile.json"), "nothing cached")
    }

    @Test("scheme-downgrade-control: the same https issuer on 127.0.0.1 with https endpoints passes discovery")
    func httpsEndpointsAccepted() throws {
        let (run, local, provider, _) = try attempt(field: "token_endpoint") { _, issuer in issuer + "/token" }
        defer {
            local.stop()
            provider.stop()
        }
        #expect(run.status == 1, "\(run)")
        #expect(run.rule == "login-timeout", "\(run)")
        #expect(local.received.isEmpty)
    }

    @Test("scheme-downgrade-redirect: discovery of an https issuer on 127.0.0.1 redirecting to http is not followed")
    func redirectToHTTP() throws {
        let (run, local, provider, sandbox) = try attempt(field: "token_endpoint") { _, issuer in
            issuer + "/token"
        } prepare: { local, provider in
            let location = local.issuer + "/.well-known/openid-configuration"
            provider.script.raw["/.well-known/openid-configuration"] = Array(
                "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        }
        defer {
            local.stop()
            provider.stop()
        }
        #expect(run.rule == "discovery-redirect", "\(run)")
        #expect(run.status == 1 && run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("302"), "\(run)")
        #expect(local.received.isEmpty, "the redirect was not followed: \(local.received.map(\.text))")
        #expect(!FileManager.default.fileExists(atPath: sandbox.profileDirectory + "/profile.json"))
    }
}
