import Foundation
import PingEmulator
import Testing

/// docs/usage.md's "One-time codes inside a journey" examples, run as written against the emulator's
/// PingAM: pingcli registered as the authenticator (`--otp-enroll`), then the verifier answered from the
/// account it stored (`--otp`).
@Suite("docs examples: one-time codes inside a journey")
struct DocsJourneyOTPExamples {
    static let issuer = "https://tenant.example.com/am/oauth2/realms/root/realms/alpha"
    static let enroll =
        #"pingcli login --issuer \#(issuer) --client-id <client-id> --journey "OATH Registration" --otp-enroll work --answers signin.answers # register pingcli as your authenticator, named work, without asking"#
    static let answer =
        "pingcli login --issuer \(issuer) --client-id <client-id> --journey OATH --otp work --answers signin.answers # the code prompt answered from the account work, never shown"

    @Test("docs-usage-journey-otp: --otp-enroll registers pingcli as the authenticator, then --otp answers the OATH verifier with its code")
    func journeyOTP() throws {
        let emulator = try AMJourneys.emulator()
        let sandbox = Sandbox(stopping: emulator)
        let home = sandbox.environment["HOME"]!
        #expect(
            FileManager.default.createFile(
                atPath: home + "/signin.answers", contents: Data("User Name=demo\nPassword=demo\n".utf8),
                attributes: [.posixPermissions: 0o600]))
        var shell = DocsShell(sandbox, emulator: emulator)
        shell.substitutions.insert((Self.issuer, emulator.issuer), at: 0)
        let enrolled = try shell.succeeds(Self.enroll)
        #expect(enrolled.stderr.contains("registered this machine as the authenticator \"work\""), "\(enrolled)")
        let secret = try #require(emulator.oathSecret(for: "demo"), "AM kept the registered secret")
        let list = sandbox.run(["otp", "list"])
        #expect(list.stdout.hasPrefix("work\ttotp\t"), "\(list)")
        let sessions = emulator.journeySessions.count
        let answered = try shell.succeeds(Self.answer)
        #expect(answered.stderr.contains("with the current code of the OTP account \"work\""), "\(answered)")
        #expect(emulator.journeySessions.count == sessions + 1, "AM took the code and signed demo in")
        for run in [enrolled, answered] { #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret)) }
    }
}
