import Foundation
import PingEmulator
import Testing

/// `pingcli login --device` (RFC 8628) against the emulator: the address and code on stderr, polling at
/// the interval, then the same validation and save as `login`.
@Suite("device authorization grant")
struct DeviceFlowTests {
    func deviceEmulator(layout: Layout = .pingOne, lifetime: Int = 600, errors: [String] = []) throws -> Emulator {
        let emulator = try startEmulator {
            $0.layout = layout
            $0.deviceInterval = 1
            $0.deviceCodeLifetime = lifetime
        }
        var faults = Faults()
        faults.deviceErrors = errors
        emulator.faults = faults
        return emulator
    }

    func deviceLogin(_ emulator: Emulator, _ sandbox: Sandbox, _ extra: [String] = []) -> CLIRun {
        sandbox.run(
            ["login", "--device", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "60"] + extra,
            environment: ["PINGCLI_BROWSER": "record-url", "RECORD_URL_FILE": sandbox.root + "/url"])
    }

    func polls(_ emulator: Emulator) -> [RecordedRequest] {
        emulator.requests(to: .token).filter { $0.grantType == "urn:ietf:params:oauth:grant-type:device_code" }
    }

    @Test(
        "device-success: the address and code on stderr, the complete address opened, tokens validated and cached",
        arguments: Layout.allCases)
    func success(layout: Layout) throws {
        let (emulator, sandbox) = sandboxed(try deviceEmulator(layout: layout))
        let run = deviceLogin(emulator, sandbox)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.isEmpty)
        let request = try #require(emulator.requests(to: .deviceAuthorization).first)
        #expect(request.form["client_id"] == "pingcli-test" && request.form["scope"] == "openid profile email")
        let code = try #require(run.stderr.firstMatch(of: /\n  ([B-Z]{4}-[B-Z]{4})\n/)).1
        #expect(run.stderr.contains("open\n\n  \(emulator.baseURL)/device\n"))
        #expect(readText(sandbox.root + "/url") == "\(emulator.baseURL)/device?user_code=\(code)")
        #expect(run.stderr.contains("Logged in to \(emulator.issuer) as Demo User"))
        #expect(polls(emulator).count == 1 && emulator.requests(to: .authorize).isEmpty)
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
        #expect(sandbox.run(["status"]).stdout.contains("subject:"))
    }

    @Test("device-relogin: a later plain pingcli login on the profile signs in with a code again; status names the grant")
    func relogin() throws {
        let (emulator, sandbox) = sandboxed(try deviceEmulator())
        #expect(deviceLogin(emulator, sandbox).status == 0)
        #expect(sandbox.run(["status"]).stdout.contains("grant:         device code"))
        let again = sandbox.run(
            ["login", "--timeout", "60"], environment: ["PINGCLI_BROWSER": "record-url", "RECORD_URL_FILE": sandbox.root + "/url"])
        #expect(again.status == 0, "\(again)")
        #expect(emulator.requests(to: .deviceAuthorization).count == 2 && emulator.requests(to: .authorize).isEmpty)
    }

    @Test("device-browser-approval: with a usable browser, the person approves on the page it opened, and the next poll succeeds")
    func browserApproval() throws {
        let emulator = try startEmulator {
            $0.deviceInterval = 1
            $0.deviceRequiresApproval = true
        }
        defer { emulator.stop() }
        let sandbox = Sandbox()
        // The default browser double (Tests/Support/xdg-open) signs in on the verification page.
        let run = sandbox.run(["login", "--device", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "60"])
        #expect(run.status == 0, "\(run)")
        let visits = emulator.requests(to: .deviceVerification)
        #expect(
            visits.map(\.method) == ["GET", "POST"] && visits.allSatisfy { $0.status == 200 },
            "\(visits.map { "\($0.method) \($0.status)" })")
        #expect(sandbox.browserLog.first?.hasPrefix("\(emulator.baseURL)/device?user_code=") == true)
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
    }

    @Test("device-unsupported: a provider without device_authorization_endpoint is reported before anything is shown")
    func unsupported() throws {
        let emulator = try deviceEmulator()
        defer { emulator.stop() }
        emulator.faults.discoveryOverrides = ["device_authorization_endpoint": .null]
        let sandbox = Sandbox()
        let run = deviceLogin(emulator, sandbox)
        #expect(run.status == 1, "\(run)")
        #expect(run.rule == "device-unsupported", "\(run)")
    }

    @Test(
        "device-response-gate: a hostile device authorization response is refused by name, nothing shown or opened",
        arguments: [
            (
                "{\"device_code\":\"d\",\"user_code\":\"\\u001b]52;c;x\\u0007\",\"verification_uri\":\"V\",\"expires_in\":60}",
                "user_code is not a valid user code"
            ),
            (
                "{\"device_code\":\"d\\n\",\"user_code\":\"ABCD\",\"verification_uri\":\"V\",\"expires_in\":60}",
                "device_code is not a valid device code"
            ),
            (
                "{\"device_code\":\"d\",\"user_code\":\"ABCD\",\"verification_uri\":\"http://evil.example/device\",\"expires_in\":60}",
                "verification_uri was refused"
            ),
            (
                "{\"device_code\":\"d\",\"user_code\":\"ABCD\",\"verification_uri\":\"V\",\"verification_uri_complete\":\"javascript:alert(1)\",\"expires_in\":60}",
                "verification_uri_complete was refused"
            ),
            (
                "{\"device_code\":\"d\",\"user_code\":\"ABCD\",\"verification_uri\":\"V\",\"expires_in\":60,\"interval\":\"0x10\"}",
                "interval is not a positive number"
            ),
            (
                "{\"device_code\":\"d\",\"user_code\":\"ABCD\",\"verification_uri\":\"V\",\"expires_in\":-1}",
                "expires_in is not a positive number"
            ),
            ("{\"user_code\":\"ABCD\",\"verification_uri\":\"V\",\"expires_in\":60}", "has no device_code"),
        ])
    func responseGate(body: String, message: String) throws {
        let emulator = try deviceEmulator()
        defer { emulator.stop() }
        emulator.faults.responseOverrides = [
            .deviceAuthorization: CannedResponse(
                status: 200, contentType: "application/json",
                body: body.replacingOccurrences(of: "\"V\"", with: "\"\(emulator.baseURL)/device\""))
        ]
        let sandbox = Sandbox()
        let run = deviceLogin(emulator, sandbox)
        #expect(run.status == 1, "\(run)")
        let rule =
            message.hasPrefix("verification_uri")
            ? "device-verification-uri"
            : message.hasSuffix("not a positive number")
                ? "device-response-number"
                : message.hasPrefix("has no ") ? "device-response-missing-field" : "device-response-gate"
        #expect(run.rule == rule, "\(run)")
        #expect(run.stderr.contains(message), "\(run)")
        #expect(!run.stderr.contains("\u{1B}") && !run.stderr.contains("evil") && !run.stderr.contains("alert"))
        #expect(readText(sandbox.root + "/url") == nil, "no browser opened")
        #expect(polls(emulator).isEmpty)
    }
}
