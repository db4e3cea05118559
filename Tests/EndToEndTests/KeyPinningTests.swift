import Foundation
import PingEmulator
import Testing

/// `login --pin sha256//…` (libcurl's CURLOPT_PINNEDPUBLICKEY) through the built binary, against the
/// emulator serving https with a certificate from a test CA.
@Suite("key pinning")
struct KeyPinningTests {
    static func login(_ sandbox: Sandbox, _ emulator: Emulator, _ files: MutualTLSFiles, pins: [String]) -> CLIRun {
        sandbox.run(
            ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--ca-file", files.caFile, "--timeout", "30"]
                + pins.flatMap { ["--pin", $0] },
            environment: ["CURL_CA_BUNDLE": files.caFile])
    }

    /// A pin of 32 random bytes: no server has that key.
    static let wrongPin = "sha256//" + Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()

    /// A sandbox, certificates made for it, and an emulator serving https with them.
    static func setUp() throws -> (Sandbox, MutualTLSFiles, Emulator) {
        let sandbox = Sandbox()
        let files = try MutualTLSFiles(in: sandbox)
        return (sandbox, files, try startEmulator { $0.tls = files.emulatorTLS })
    }

    @Test("pin-right: a login pinned to the server's key (among others) works, and the pins are saved with the profile")
    func rightPin() throws {
        let (sandbox, files, emulator) = try Self.setUp()
        defer { emulator.stop() }
        let pin = try files.pin(of: files.serverCertificate)
        let run = Self.login(sandbox, emulator, files, pins: [Self.wrongPin, pin])
        #expect(run.status == 0, "\(run)")
        let profile = readText(sandbox.profileDirectory + "/profile.json") ?? ""
        #expect(profile.contains(pin) && profile.contains(Self.wrongPin), "\(profile)")
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
    }

    @Test("pin-mismatch: a login whose pin matches no key of the server fails in one line with exit 5 and sends nothing")
    func wrongPin() throws {
        let (sandbox, files, emulator) = try Self.setUp()
        defer { emulator.stop() }
        let run = Self.login(sandbox, emulator, files, pins: [Self.wrongPin])
        expectOneLineError(
            run, status: 5, rule: "pin-mismatch", contains: ["the server's key matches none of the pinned keys (--pin)"], secrets: [])
        #expect(emulator.arrivedRequestCount == 0, "no request got through the handshake")
    }

    @Test(
        "pin-every-request: after the server changes its key, the refresh of the pinned profile fails with exit 5, never retried without the pin"
    )
    func pinAppliesToRefresh() throws {
        let sandbox = Sandbox()
        let files = try MutualTLSFiles(in: sandbox)
        let first = try startEmulator { $0.tls = files.emulatorTLS }
        let pin = try files.pin(of: files.serverCertificate)
        #expect(Self.login(sandbox, first, files, pins: [pin]).status == 0)
        let port = first.port
        first.stop()
        // The same address, a new key from the same CA: trusted by --ca-file, refused by the pin.
        let second = try startEmulator {
            $0.tls = files.replacementTLS
            $0.port = port
        }
        defer { second.stop() }
        let refresh = sandbox.run(["token", "--raw", "--min-ttl", "7200"])
        #expect(refresh.status == 5, "\(refresh)")
        #expect(refresh.rule == "pin-mismatch", "\(refresh)")
        #expect(second.arrivedRequestCount == 0, "no request reached the server with the new key")
    }

    @Test(
        "pin-gate: --pin must be sha256// and 32 bytes of padded base64, and needs an https issuer",
        arguments: [
            "sha256//abc", "md5//AAAAAAAAAAAAAAAAAAAAAA==", "sha256//" + String(repeating: "A", count: 43) + "=;/etc/passwd",
            "/tmp/key.pem",
        ])
    func pinGate(value: String) throws {
        let sandbox = Sandbox()
        let run = sandbox.run(["login", "--issuer", "https://127.0.0.1:9/as", "--client-id", "x", "--pin", value])
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.contains("--pin") && run.stderr.contains("give sha256//"), "\(run)")
        #expect(run.rule == "pin-gate", "\(run)")
    }

    @Test("pin-needs-https: a pin on a plain http issuer is refused (exit 2): there is no server key to check")
    func pinNeedsHTTPS() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let run = sandbox.login(emulator, ["--pin", "sha256//" + String(repeating: "A", count: 43) + "="])
        #expect(run.rule == "pin-gate", "\(run)")
        #expect(run.status == 2, "\(run)")
        #expect(emulator.requests.isEmpty)
    }
}
