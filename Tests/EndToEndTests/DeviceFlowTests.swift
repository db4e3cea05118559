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
        let emulator = try deviceEmulator(layout: layout)
        defer { emulator.stop() }
        let sandbox = Sandbox()
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

    @Test(
        "device-qr-code: on a terminal the complete address is also shown as a QR code; not when stderr is not a terminal",
        .enabled(
            if: FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libqrencode.so.4")
                || FileManager.default.fileExists(atPath: "/usr/lib/aarch64-linux-gnu/libqrencode.so.4"),
            "needs Debian's libqrencode4 (make deps)"))
    func qrCode() throws {
        let emulator = try deviceEmulator()
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let plain = deviceLogin(emulator, sandbox)
        #expect(plain.status == 0 && !plain.stderr.contains("scan it with a phone") && !plain.stderr.contains("█"))
        let shown = sandbox.run(
            ["login", "--device", "--timeout", "60"],
            environment: ["PINGCLI_TEST_QR": "1", "PINGCLI_BROWSER": "record-url", "RECORD_URL_FILE": sandbox.root + "/url"])
        #expect(shown.status == 0, "\(shown)")
        let block = shown.stderr.split(separator: "\n").filter { $0.hasPrefix("  ") && $0.contains("█") }
        #expect(shown.stderr.contains("Or scan it with a phone:") && block.count >= 12)
        #expect(Set(block.map(\.count)).count == 1, "a square block")
    }

    @Test("device-relogin: a later plain pingcli login on the profile signs in with a code again; status names the grant")
    func relogin() throws {
        let emulator = try deviceEmulator()
        defer { emulator.stop() }
        let sandbox = Sandbox()
        #expect(deviceLogin(emulator, sandbox).status == 0)
        #expect(sandbox.run(["status"]).stdout.contains("grant:         device code"))
        let again = sandbox.run(
            ["login", "--timeout", "60"], environment: ["PINGCLI_BROWSER": "record-url", "RECORD_URL_FILE": sandbox.root + "/url"])
        #expect(again.status == 0, "\(again)")
        #expect(emulator.requests(to: .deviceAuthorization).count == 2 && emulator.requests(to: .authorize).isEmpty)
    }

    @Test("device-pending: authorization_pending keeps polling at the interval until approved")
    func pending() throws {
        let emulator = try deviceEmulator(errors: ["authorization_pending", "authorization_pending"])
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let run = deviceLogin(emulator, sandbox)
        #expect(run.status == 0, "\(run)")
        let times = polls(emulator).map(\.timestamp)
        #expect(times.count == 3)
        for (earlier, later) in zip(times, times.dropFirst()) { #expect(later - earlier >= 0.9, "polls at the interval") }
    }

    @Test("device-slow-down: slow_down adds five seconds to the interval")
    func slowDown() throws {
        let emulator = try deviceEmulator(errors: ["slow_down"])
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let run = deviceLogin(emulator, sandbox)
        #expect(run.status == 0, "\(run)")
        let times = polls(emulator).map(\.timestamp)
        #expect(times.count == 2)
        if times.count == 2 { #expect(times[1] - times[0] >= 5.9, "1 s interval + 5 s") }
    }

    @Test(
        "device-denied: access_denied ends the login with the server's words and caches nothing",
        arguments: ["access_denied", "expired_token"])
    func denied(error: String) throws {
        let emulator = try deviceEmulator(errors: [error])
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let run = deviceLogin(emulator, sandbox)
        #expect(run.status == 1, "\(run)")
        let expected =
            error == "access_denied"
            ? "pingcli: the sign-in was declined at the provider (access_denied: injected fault): run pingcli login --device to retry"
            : "pingcli: the code expired before the sign-in was approved: run pingcli login --device again"
        #expect(run.stderr.hasSuffix(expected + "\n"))
        #expect(polls(emulator).count == 1)
        #expect(!FileManager.default.fileExists(atPath: sandbox.profileDirectory + "/tokens.enc"))
    }

    @Test("device-transient: a 503 while polling doubles the interval and polling goes on (RFC 8628 §3.5)")
    func transient() throws {
        let emulator = try deviceEmulator()
        defer { emulator.stop() }
        emulator.faults.responseOverrides = [.token: CannedResponse(status: 503, contentType: "text/html", body: "busy", times: 1)]
        let sandbox = Sandbox()
        let run = deviceLogin(emulator, sandbox)
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("pingcli: the token endpoint answered HTTP 503; polling again in 2 s"))
        let times = emulator.requests(to: .token).map(\.timestamp)
        #expect(times.count == 2)
        if times.count == 2 { #expect(times[1] - times[0] >= 1.9, "twice the 1 s interval") }
    }

    @Test("device-expires-in: polling stops at expires_in even while the server still says pending")
    func expiresIn() throws {
        let emulator = try deviceEmulator(lifetime: 2, errors: Array(repeating: "authorization_pending", count: 50))
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let run = deviceLogin(emulator, sandbox)
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("pingcli: the code expired before the sign-in was approved (after 2 s)"))
        #expect(polls(emulator).count <= 2)
    }

    @Test("device-approval: a code waits for the person's approval (the emulator's control)")
    func approval() throws {
        let emulator = try startEmulator {
            $0.deviceInterval = 1
            $0.deviceRequiresApproval = true
        }
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let approver = Thread {
            // Approve once the login has shown its code and polled at least once.
            for _ in 0..<1200 where polls(emulator).isEmpty { usleep(50_000) }
            let url = readText(sandbox.root + "/url") ?? ""
            emulator.approveDevice(userCode: String(url.split(separator: "=").last ?? ""))
        }
        approver.start()
        let run = deviceLogin(emulator, sandbox)
        #expect(run.status == 0, "\(run)")
        #expect(polls(emulator).count >= 2 && polls(emulator).dropLast().allSatisfy { $0.status == 400 })
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
        #expect(run.stderr.contains("the provider has no device_authorization_endpoint"))
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
        #expect(run.stderr.contains(message), "\(run)")
        #expect(!run.stderr.contains("\u{1B}") && !run.stderr.contains("evil") && !run.stderr.contains("alert"))
        #expect(readText(sandbox.root + "/url") == nil, "no browser opened")
        #expect(polls(emulator).isEmpty)
    }
}
