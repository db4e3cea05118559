import Foundation
import PingEmulator
import Testing

/// `status` tells a profile's whole story: a journey profile's tree, OTP account and AM session; on a
/// fresh home nothing that does not exist.
@Suite("status tells the whole story")
struct StatusStoryTests {
    @Test(
        "status-journey: a journey profile signed in with --otp shows its tree, its OTP account and the AM session held (text and --json); after logout, the tree and no session"
    )
    func journey() throws {
        let journeys = DeviceJourneyEndToEndTests()
        let (emulator, sandbox) = try DeviceJourneyEndToEndTests.setUp()
        let add = sandbox.run(["otp", "add"], input: "otpauth://totp/PingAM:ada?secret=JBSWY3DPEHPK3PXP&issuer=PingAM\n")
        #expect(add.status == 0, "\(add)")
        let run = try journeys.login(emulator, sandbox, tree: "OATH", journeys.userLines(), extra: ["--otp", "PingAM:ada"])
        #expect(run.status == 0, "\(run.transcript)")
        let status = sandbox.run(["status"])
        #expect(status.status == 0, "\(status)")
        #expect(
            status.stdout.contains(
                "\njourney:       OATH (a PingAM tree, walked in the terminal; one-time codes from the OTP account \"PingAM:ada\""),
            "\(status)")
        #expect(status.stdout.contains("\nAM session:    held in the encrypted cache, until 20"), "\(status)")
        // AM's maxSessionExpirationTime, asked when the journey ended: the emulator's sessions last 2 h.
        #expect(status.stdout.contains(" at the latest (in 1h 5"), "\(status)")
        let json = try JSONContract.object(sandbox.run(["status", "--json"]))
        let ends = json["am_session_ends_at"].flatMap { value -> Date? in
            guard case .string(let text) = value else { return nil }
            return ISO8601DateFormatter().date(from: text)
        }
        #expect(ends.map { abs($0.timeIntervalSinceNow - 7200) < 120 } == true, "\(json)")
        JSONContract.check(json, against: try JSONContract.table("status --json"), "status --json (journey)")
        #expect(
            json["journey"] == .string("OATH") && json["otp_account"] == .string("PingAM:ada") && json["am_session"] == .bool(true),
            "\(json)")
        #expect(sandbox.run(["logout"]).status == 0)
        let after = sandbox.run(["status"])
        #expect(after.stdout.contains("\njourney:       OATH") && !after.stdout.contains("AM session:"), "\(after)")
        let plain = try JSONContract.object(Sandbox().run(["status", "--json"]))
        #expect(plain["journey"] == .null && plain["otp_account"] == .null && plain["am_session"] == .null, "\(plain)")
        #expect(plain["am_session_ends_at"] == .null, "\(plain)")
    }

    @Test(
        "status-fresh-home: on a fresh home status lists no file and no key (none yet); after a login that failed, only what exists; the next login says where the key is"
    )
    func freshHome() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let fresh = sandbox.run(["status"])
        #expect(fresh.status == 4, "\(fresh)")
        #expect(fresh.stdout.contains("\nkey store:     none yet") && fresh.stdout.contains("\nfiles:         none yet"), "\(fresh)")
        #expect(!fresh.stdout.contains(sandbox.root), "a path that does not exist is listed: \(fresh)")
        emulator.faults.tokenErrors = ["authorization_code": CannedOAuthError(status: 400, error: "invalid_grant", errorDescription: "no")]
        #expect(sandbox.login(emulator).status == 1)
        let failed = sandbox.run(["status"])
        for line in failed.stdout.split(separator: "\n") where line.contains(sandbox.root) {
            let path = String(line.split(separator: " ").last ?? "")
            #expect(FileManager.default.fileExists(atPath: path), "listed but missing: \(line)")
        }
        emulator.faults.tokenErrors = [:]
        let login = sandbox.login(emulator)
        #expect(login.status == 0 && login.stderr.contains("The cache key is"), "\(login)")
        let shown = sandbox.run(["status"])
        #expect(
            shown.stdout.contains("\nkey store:     file") && shown.stdout.contains(sandbox.profileDirectory + "/tokens.enc"), "\(shown)")
    }
}
