import Foundation
import Testing

@testable import PingAM
@testable import PingAuthenticators
@testable import PingBase
@testable import PingCrypto
@testable import PingEmulator
@testable import PingFlowCore
@testable import PingJourney
@testable import PingOAuth
@testable import PingOTP
@testable import PingState

/// OATH accounts scoped by the AM they came from, in process against the emulator's PingAM: a
/// registration never replaces an account silently (`--otp-enroll` refuses a taken name unless
/// `--otp-replace`, a terminal asks with no as the default), another AM's account of the same name is
/// left alone, and `--otp NAME` finds the journey AM's.
@Suite("journey: OTP accounts per AM, in process")
struct JourneyOTPScopeFlowTests {
    /// A secret no AM of these tests knows, for the account that must survive.
    static let keptSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

    func journey(
        _ harness: FlowHarness, tree: String, terminal: ScriptedTerminal?, answers: String? = nil, otp: String? = nil,
        enroll: String? = nil, replace: Bool = false
    ) throws -> FlowRun {
        try runJourney(harness, tree: tree, terminal: terminal, answers: answers, otp: otp, enroll: enroll, replace: replace)
    }

    func accounts(_ harness: FlowHarness) throws -> OTPAccounts {
        let (context, _) = try harness.context()
        return OTPAccounts(store: OTPStore(paths: harness.paths), key: context.store.commandKey(), clock: { harness.clock.now })
    }

    /// Stores `name` with the kept secret, for `origin`.
    func keep(_ harness: FlowHarness, _ name: String, origin: String?) throws {
        var account = try OTPAuthURI.parse("otpauth://totp/PingAM:demo?secret=\(Self.keptSecret)&issuer=PingAM", name: name)
        account.origin = origin
        try accounts(harness).add(account, replace: false)
    }

    /// The stored secrets of `name`, by origin (read under the cache key, as `otp code` does).
    func secrets(_ harness: FlowHarness, _ name: String) throws -> [String: [UInt8]] {
        let (context, _) = try harness.context()
        let cacheKey = try context.store.commandKey().get()
        let all = try OTPStore(paths: harness.paths).readAccounts(key: cacheKey)
        return Dictionary(uniqueKeysWithValues: all.filter { $0.name == name }.map { ($0.origin ?? "none", $0.secret) })
    }

    var kept: [UInt8] { get throws { try Self.bytes(Self.keptSecret) } }

    /// A base32 secret's bytes, through the URI gate.
    static func bytes(_ base32: String) throws -> [UInt8] { try OTPAuthURI.parse("otpauth://totp/x?secret=\(base32)").secret }

    @Test(
        "otp-name-taken: --otp-enroll NAME refuses a name this AM's account has unless --otp-replace; refused, nothing is confirmed at AM")
    func enrollRefusesTaken() throws {
        let harness = try JourneyDeviceFlowTests.harness()
        let origin = harness.emulator.baseURL
        try keep(harness, "work", origin: origin)
        let answers = "User Name=demo\nPassword=demo\n"
        let refused = try journey(harness, tree: "OATH Registration", terminal: nil, answers: answers, enroll: "work")
        #expect(refused.status == 1 && refused.rule == .otpNameTaken && refused.stderr.contains("--otp-replace"), "\(refused)")
        let (keptBytes, stored) = (try kept, try secrets(harness, "work"))
        #expect(harness.emulator.oathSecret(for: "demo") == nil && stored == [origin: keptBytes])
        let replaced = try journey(harness, tree: "OATH Registration", terminal: nil, answers: answers, enroll: "work", replace: true)
        #expect(replaced.status == 0, "\(replaced)")
        let secret = try #require(harness.emulator.oathSecret(for: "demo"))
        let (registered, now) = (try Self.bytes(secret), try secrets(harness, "work"))
        #expect(now == [origin: registered])
    }

    @Test("otp-name-taken: on a terminal replacing an account of the same name asks [y/N]; the default no keeps it and confirms nothing")
    func terminalAsksReplace() throws {
        let harness = try JourneyDeviceFlowTests.harness()
        // Stored before origins were kept: it may be this AM's, so it counts as taken.
        try keep(harness, "PingAM:demo", origin: nil)
        let run = try journey(harness, tree: "OATH Registration", terminal: ScriptedTerminal(["demo", "demo", "y", ""]))
        #expect(run.status == 1 && run.rule == .journeyCancelled, "\(run)")
        #expect(
            run.stderr.contains(
                "An OTP account named \"PingAM:demo\" exists already for this AM: replace it (its old secret is lost) [y/N]: "))
        let (keptBytes, stored) = (try kept, try secrets(harness, "PingAM:demo"))
        #expect(harness.emulator.oathSecret(for: "demo") == nil && stored == ["none": keptBytes])
    }

    @Test("journey-otp-origin: a registration at this AM leaves another AM's account of the same name; --otp NAME finds this AM's")
    func otherOriginKept() throws {
        let harness = try JourneyDeviceFlowTests.harness()
        let production = "https://am.production.example"
        try keep(harness, "PingAM:demo", origin: production)
        let run = try journey(harness, tree: "OATH Registration", terminal: ScriptedTerminal(["demo", "demo", "y"]))
        #expect(run.status == 0 && !run.stderr.contains("exists already"), "\(run)")
        let stored = try secrets(harness, "PingAM:demo")
        let keptBytes = try kept
        #expect(stored.count == 2 && stored[production] == keptBytes && stored[harness.emulator.baseURL] != keptBytes)
        let again = try journey(harness, tree: "OATH", terminal: ScriptedTerminal(["demo", "demo"]), otp: "PingAM:demo")
        #expect(again.status == 0, "\(again)")
        // Without an origin the name is ambiguous, and says so.
        let ambiguous = try accounts(harness)
        do throws(PingCLIError) {
            _ = try ambiguous.code("PingAM:demo")
            Issue.record("an ambiguous name gave a code")
        } catch { #expect(error.rule == .otpAccountAmbiguous && error.message.contains(production)) }
        #expect(try accounts(harness).code("PingAM:demo", origin: production).name == "PingAM:demo")
        // The command: ambiguous without --origin (exit 2), one code with it.
        let without = harness.run(["otp", "code", "PingAM:demo"])
        #expect(without.status == 2 && without.rule == .otpAccountAmbiguous, "\(without)")
        let with = harness.run(["otp", "code", "PingAM:demo", "--origin", production])
        #expect(with.status == 0 && with.stdout.count == 7, "\(with)")
        #expect(harness.run(["otp", "list"]).stdout.contains(production))
    }

    @Test("journey-otp-origin: --otp NAME never answers with another AM's account of that name")
    func otherOriginNotUsed() throws {
        let harness = try JourneyDeviceFlowTests.harness()
        try keep(harness, "PingAM:demo", origin: "https://am.production.example")
        let run = try journey(harness, tree: "OATH", terminal: ScriptedTerminal(["demo", "demo"]), otp: "PingAM:demo")
        #expect(run.status == 1 && run.rule == .otpNoAccount && run.stderr.contains("belongs to another AM"), "\(run)")
    }
}
