import Foundation
import PingEmulator
import Testing

/// A proxy on loopback that records the first line of each request (the `CONNECT host:port`) and answers
/// garbage: it shows where pingcli would have gone without anything leaving the machine.
final class RecordingProxy: Sendable {
    private let acceptor: LoopbackAcceptor
    private let lines = Locked<[String]>([])
    var environment: [String: String] { ["HTTPS_PROXY": "http://127.0.0.1:\(acceptor.port)"] }
    var requestLines: [String] { lines.withLock { $0 } }

    init() throws {
        acceptor = try LoopbackAcceptor()
        acceptor.start { [lines] connection in
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(connection, &buffer, buffer.count)
            let head = String(decoding: buffer[..<max(count, 0)], as: UTF8.self)
            lines.withLock { $0.append(String(head.prefix { $0 != "\r\n" && $0 != "\n" })) }  // "\r\n" is one Character
            let garbage = Array("garbage garbage\r\n\r\n".utf8)
            _ = write(connection, garbage, garbage.count)
            close(connection)
        }
    }

    func stop() { acceptor.stop() }

    /// `pingcli ARGUMENTS` in a fresh sandbox with a new proxy in `HTTPS_PROXY`; the proxy is stopped
    /// when it returns, and what it received is kept.
    static func run(_ arguments: [String]) throws -> (RecordingProxy, CLIRun) {
        let proxy = try RecordingProxy()
        defer { proxy.stop() }
        return (proxy, Sandbox().run(arguments, environment: proxy.environment))
    }
}

@Suite("PingOne shortcut")
struct PingOneShortcutTests {
    static let environmentID = "9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b"

    @Test(
        "pingone-region: --pingone ENV_ID --region builds https://auth.pingone.<tld>/ENV_ID/as, prints it first and asks that host",
        arguments: [
            (nil, "auth.pingone.com"), ("na", "auth.pingone.com"), ("eu", "auth.pingone.eu"), ("ca", "auth.pingone.ca"),
            ("ap", "auth.pingone.asia"), ("au", "auth.pingone.com.au"), ("sg", "auth.pingone.sg"),
        ] as [(String?, String)])
    func region(region: String?, host: String) throws {
        let (proxy, run) = try RecordingProxy.run(
            ["login", "--pingone", Self.environmentID, "--client-id", "x", "--timeout", "5"] + (region.map { ["--region", $0] } ?? []))
        let issuer = "https://\(host)/\(Self.environmentID)/as"
        #expect(run.stderr.hasPrefix("PingOne environment \(Self.environmentID) in region \(region ?? "na"): issuer \(issuer)\n"), "\(run)")
        #expect(proxy.requestLines.first == "CONNECT \(host):443 HTTP/1.1", "\(proxy.requestLines)")
        #expect(run.stderr.contains("the discovery endpoint at \(host)"), "\(run)")
        #expect(run.rule == "proxy-failed", "\(run)")
    }

    @Test("pingone-domain: --pingone-domain DOMAIN builds https://DOMAIN/as")
    func customDomain() throws {
        let (proxy, run) = try RecordingProxy.run(["login", "--pingone-domain", "SSO.Example.com", "--client-id", "x", "--timeout", "5"])
        #expect(run.status == 3 && run.rule == "proxy-failed", "\(run)")
        #expect(run.stderr.hasPrefix("PingOne custom domain sso.example.com: issuer https://sso.example.com/as\n"), "\(run)")
        #expect(proxy.requestLines.first == "CONNECT sso.example.com:443 HTTP/1.1", "\(proxy.requestLines)")
    }

    @Test(
        "pingone-usage: conflicts and malformed PingOne coordinates are usage errors before any network",
        arguments: [
            (["--pingone", environmentID, "--issuer", "https://x.example/as"], "--issuer cannot be combined with --pingone"),
            (["--pingone-domain", "a.example", "--issuer", "https://x.example/as"], "--issuer cannot be combined with --pingone-domain"),
            (["--pingone", environmentID, "--pingone-domain", "a.example"], "--pingone and --pingone-domain cannot be combined"),
            (["--region", "eu", "--issuer", "https://x.example/as"], "--region goes with --pingone ENV_ID"),
            (["--pingone-domain", "a.example", "--region", "eu"], "--region goes with --pingone, not --pingone-domain"),
            (["--pingone", "not-a-uuid"], "--pingone needs the environment's id, a UUID"),
            (["--pingone", environmentID + "0"], "--pingone needs the environment's id, a UUID"),
            (["--pingone", environmentID, "--region", "us"], "--region must be one of na, eu, ca, ap, au, sg, not \"us\""),
            (["--pingone-domain", "https://a.example/as"], "--pingone-domain must be a host name"),
            (["--pingone-domain", "a.example:8443"], "--pingone-domain must be a host name"),
            (["--pingone-domain", "localhost"], "--pingone-domain must be a host name"),
        ] as [([String], String)])
    func usage(arguments: [String], message: String) throws {
        let (proxy, run) = try RecordingProxy.run(["login", "--client-id", "x"] + arguments)
        #expect(run.status == 2, "\(run)")
        #expect(run.rule == (message.contains("cannot be combined") ? "option-conflict" : "pingone-options"), "\(run)")
        #expect(run.stderr.contains(message), "\(run)")
        #expect(proxy.requestLines.isEmpty, "no network")
    }
}
