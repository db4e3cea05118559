import Foundation
import PingEmulator
import Testing

@testable import PingFlowCore
@testable import PingLogin
@testable import PingSignIn

/// Device polling (RFC 8628 §3.4, §3.5) in-process: the flow's waits between polls move the test's clock,
/// so the intervals the emulator records are exact and nothing sleeps.
@Suite("device authorization grant: polling, in-process")
struct DeviceFlowPollingTests {
    func deviceHarness(lifetime: Int = 600, errors: [String] = []) throws -> FlowHarness {
        let harness = try FlowHarness {
            $0.deviceInterval = 1
            $0.deviceCodeLifetime = lifetime
        }
        var faults = Faults()
        faults.deviceErrors = errors
        harness.emulator.faults = faults
        harness.browser = RecordingBrowser(emulator: harness.emulator, visits: false)
        return harness
    }

    func deviceLogin(_ harness: FlowHarness, _ extra: [String] = []) -> FlowRun {
        harness.run(["login", "--device", "--issuer", harness.emulator.issuer, "--client-id", "pingcli-test", "--timeout", "60"] + extra)
    }

    func polls(_ emulator: Emulator) -> [RecordedRequest] {
        emulator.requests(to: .token).filter { $0.grantType == "urn:ietf:params:oauth:grant-type:device_code" }
    }

    @Test("device-pending: authorization_pending keeps polling at the interval until approved")
    func pending() throws {
        let harness = try deviceHarness(errors: ["authorization_pending", "authorization_pending"])
        let run = deviceLogin(harness)
        #expect(run.status == 0, "\(run)")
        let times = polls(harness.emulator).map(\.timestamp)
        #expect(times.count == 3)
        for (earlier, later) in zip(times, times.dropFirst()) {
            #expect(later - earlier >= 0.9, "polls at the interval")
            #expect(later - earlier == 1, "exactly the interval on the test's clock")
        }
    }

    @Test("device-slow-down: slow_down adds five seconds to the interval")
    func slowDown() throws {
        let harness = try deviceHarness(errors: ["slow_down"])
        let run = deviceLogin(harness)
        #expect(run.status == 0, "\(run)")
        let times = polls(harness.emulator).map(\.timestamp)
        #expect(times.count == 2)
        if times.count == 2 {
            #expect(times[1] - times[0] >= 5.9, "1 s interval + 5 s")
            #expect(times[1] - times[0] == 6)
        }
    }

    @Test(
        "device-denied: access_denied ends the login with the server's words and caches nothing",
        arguments: ["access_denied", "expired_token"])
    func denied(error: String) throws {
        let harness = try deviceHarness(errors: [error])
        let run = deviceLogin(harness)
        #expect(run.status == 1, "\(run)")
        let expected =
            error == "access_denied"
            ? "pingcli: the sign-in was declined at the provider (access_denied: injected fault): run pingcli login --device to retry"
            : "pingcli: the code expired before the sign-in was approved: run pingcli login --device again"
        #expect(run.stderr.hasSuffix(expected + "\n"))
        #expect(polls(harness.emulator).count == 1)
        #expect(!FileManager.default.fileExists(atPath: harness.stateDirectory + "/tokens.enc"))
    }

    @Test("device-transient: a 503 while polling doubles the interval and polling goes on (RFC 8628 §3.5)")
    func transient() throws {
        let harness = try deviceHarness()
        harness.emulator.faults.responseOverrides = [.token: CannedResponse(status: 503, contentType: "text/html", body: "busy", times: 1)]
        let run = deviceLogin(harness)
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("pingcli: the token endpoint answered HTTP 503; polling again in 2 s"))
        let times = harness.emulator.requests(to: .token).map(\.timestamp)
        #expect(times.count == 2)
        if times.count == 2 {
            #expect(times[1] - times[0] >= 1.9, "twice the 1 s interval")
            #expect(times[1] - times[0] == 2)
        }
    }

    @Test("device-unreachable: a token endpoint that cannot be reached while polling doubles the interval too")
    func unreachable() throws {
        let harness = try deviceHarness(errors: ["authorization_pending"])
        // Down from the first poll on; back after the flow has waited once more.
        let down = harness.network
        harness.emulator.faults.responseOverrides = [:]
        var context = try harness.context()
        let clock = harness.clock
        let start = clock.monotonic
        context.0.waits.sleep = { seconds in
            clock.advance(by: seconds)
            down.value = clock.monotonic - start < 2
        }
        let signIn = try #require(SignIn.forTests(issuer: harness.emulator.issuer))
        #expect(throws: Never.self) { try DeviceLoginFlow(signIn: signIn, context: context.0.forSignIn).run() }
        #expect(context.1.err.contains("pingcli: the token endpoint could not be reached; polling again in 2 s"), "\(context.1.err)")
        #expect(polls(harness.emulator).count == 2, "the pending answer, then the tokens")
    }

    @Test("device-expires-in: polling stops at expires_in even while the server still says pending")
    func expiresIn() throws {
        let harness = try deviceHarness(lifetime: 2, errors: Array(repeating: "authorization_pending", count: 50))
        let run = deviceLogin(harness)
        #expect(run.status == 1 && run.rule == .deviceExpiresIn, "\(run)")
        #expect(run.stderr.contains("(after 2 s)"))
        #expect(polls(harness.emulator).count <= 2)
        #expect(harness.clock.monotonic <= 2, "no wait beyond the code's lifetime")
    }

    @Test(
        "device-qr-code: on a terminal the complete address is also shown as a QR code; not when stderr is not a terminal",
        .enabled(
            if: FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libqrencode.so.4")
                || FileManager.default.fileExists(atPath: "/usr/lib/aarch64-linux-gnu/libqrencode.so.4"),
            "needs Debian's libqrencode4 (make deps)"))
    func qrCode() throws {
        let harness = try deviceHarness()
        let plain = deviceLogin(harness)
        #expect(plain.status == 0 && !plain.stderr.contains("scan it with a phone") && !plain.stderr.contains("█"))
        harness.errorIsTerminal = true
        let shown = harness.run(["login", "--device", "--timeout", "60"])
        #expect(shown.status == 0, "\(shown)")
        let block = shown.stderr.split(separator: "\n").filter { $0.hasPrefix("  ") && $0.contains("█") }
        #expect(shown.stderr.contains("Or scan it with a phone:") && block.count >= 12)
        #expect(Set(block.map(\.count)).count == 1, "a square block")
    }

    @Test("device-approval: a code waits for the person's approval (the emulator's control)")
    func approval() throws {
        let harness = try FlowHarness {
            $0.deviceInterval = 1
            $0.deviceRequiresApproval = true
        }
        harness.browser = RecordingBrowser(emulator: harness.emulator, visits: false)
        var (context, console) = try harness.context()
        let clock = harness.clock
        let emulator = harness.emulator
        let browser = harness.browser
        // The person approves after the third wait, on the code the browser was given.
        context.waits.sleep = { seconds in
            clock.advance(by: seconds)
            if clock.monotonic >= 3, let url = browser.opened.first {
                emulator.approveDevice(userCode: String(url.split(separator: "=").last ?? ""))
            }
        }
        let signIn = try #require(SignIn.forTests(issuer: harness.emulator.issuer))
        #expect(throws: Never.self) { try DeviceLoginFlow(signIn: signIn, context: context.forSignIn).run() }
        #expect(console.err.contains("Logged in to"), "\(console.err)")
        #expect(polls(emulator).count >= 2 && polls(emulator).dropLast().allSatisfy { $0.status == 400 })
    }
}
