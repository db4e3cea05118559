import Foundation
import Testing

@testable import PingAM
@testable import PingAuthenticators
@testable import PingBase
@testable import PingEmulator
@testable import PingFlowCore
@testable import PingJourney
@testable import PingOTP
@testable import PingPlatform
@testable import PingState

/// Device binding and signing, and OATH inside journeys, in process against the emulator's PingAM
/// nodes on the test clock: the key made and sealed, the binding JWS verified by the emulator against
/// the key in its header, a signature with the stored key (PIN-protected or not, usernameless too), no
/// key answered with the callback's client error, a stored OTP account answering the verifier, and an
/// OATH registration step taking pingcli as the authenticator.
@Suite("journey device binding and OATH, in process")
struct JourneyDeviceFlowTests {
    static let second = User(
        username: "ada", password: "ada-pass", sub: "0b0e5d1c-2f3a-4b5c-8d9e-0f1a2b3c4d5e", name: "Ada", email: "ada@example.com")

    static func harness() throws -> FlowHarness {
        try FlowHarness {
            $0.layout = .pingAM
            $0.users.append(Self.second)
        }
    }

    func journey(
        _ harness: FlowHarness, tree: String, terminal: ScriptedTerminal?, answers: String? = nil, otp: String? = nil,
        enroll: String? = nil
    ) throws -> FlowRun {
        try runJourney(harness, tree: tree, terminal: terminal, answers: answers, otp: otp, enroll: enroll)
    }

    func store(_ harness: FlowHarness) -> DeviceKeyStore { DeviceKeyStore(paths: harness.paths) }

    func records(_ harness: FlowHarness) throws -> [DeviceKeyRecord] {
        let (context, _) = try harness.context()
        let cacheKey = try context.store.commandKey().get()
        let result = try store(harness).readAll(key: cacheKey)
        #expect(result.failures.isEmpty)
        return result.records
    }

    @Test("device-bind-none: NONE binds a key verified by AM, sealed under the cache key; Device Verify signs with it")
    func bindNone() throws {
        let harness = try Self.harness()
        let bind = try journey(harness, tree: "Device Binding", terminal: ScriptedTerminal(["demo", "demo"]))
        #expect(bind.status == 0, "\(bind)")
        let bound = harness.emulator.boundDevices()
        let record = try #require(try records(harness).first)
        #expect(bound.count == 1 && bound[0].keyID == record.keyID && bound[0].username == "demo" && bound[0].algorithm == "ES256")
        #expect(bound[0].deviceName.hasPrefix("pingcli on ") && bound[0].deviceID.count == 64)
        #expect(record.userID == User.demo.sub && record.username == "demo" && record.authentication == .none && !record.hasPIN)
        #expect(record.origin == harness.emulator.baseURL && record.realm == "/alpha")
        #expect(
            bind.stderr.contains(
                "bound this machine for demo: key \(record.keyID) (ES256) lives in software, encrypted under the cache key"))
        // The file is sealed: neither the user nor the key's DER in it.
        let bytes = try #require(FileManager.default.contents(atPath: store(harness).file(record.keyID)))
        #expect(bytes.prefix(4) == Data("PCLD".utf8) && bytes.range(of: Data("demo".utf8)) == nil)
        #expect(bytes.range(of: Data(record.sealedKey)) == nil)
        let verify = try journey(harness, tree: "Device Verify", terminal: ScriptedTerminal(["demo", "demo"]))
        #expect(verify.status == 0, "\(verify)")
        #expect(verify.stderr.contains("signed the challenge with device key \(record.keyID)"))
    }

    @Test("device-pin-wrong: APPLICATION_PIN seals the key under a PIN; a wrong PIN is refused and the key kept, the right one signs")
    func bindPIN() throws {
        let harness = try Self.harness()
        let terminal = ScriptedTerminal(["demo", "demo", "4711", "4711"])
        let bind = try journey(harness, tree: "Device Binding PIN", terminal: terminal)
        #expect(bind.status == 0, "\(bind)")
        #expect(terminal.secretReads.value == 3, "password and the PIN twice, all without echo")
        let record = try #require(try records(harness).first)
        #expect(record.hasPIN && record.authentication == .applicationPIN)
        let wrongThenRight = ScriptedTerminal(["demo", "demo", "1111", "4711"])
        let verify = try journey(harness, tree: "Device Verify", terminal: wrongThenRight)
        #expect(verify.status == 0, "\(verify)")
        #expect(verify.stderr.contains("that PIN does not unlock the key (2 tries left; the key is kept)"))
        #expect(wrongThenRight.secretReads.value == 3)
        for run in [bind, verify] { #expect(!run.stderr.contains("4711") && !run.stderr.contains("1111")) }
        // Three wrong PINs: the client error, AM's failure; the key is still there and still works.
        let wrong = try journey(harness, tree: "Device Verify", terminal: ScriptedTerminal(["demo", "demo", "1", "22", "333"]))
        #expect(wrong.status != 0 && wrong.stderr.contains("the PIN was wrong: telling the journey so"), "\(wrong)")
        #expect(try records(harness).map(\.keyID) == [record.keyID])
        #expect(try journey(harness, tree: "Device Verify", terminal: ScriptedTerminal(["demo", "demo", "4711"])).status == 0)
    }

    @Test("device-pin: a biometric type falls back to a PIN with one line; two PINs that differ are asked again")
    func biometricFallback() throws {
        let harness = try FlowHarness {
            $0.layout = .pingAM
            $0.journeys.trees.append(
                PingEmulator.JourneyTree(
                    name: "Bio", nodes: [.signIn, .deviceBinding(authenticationType: "BIOMETRIC_ALLOW_FALLBACK", timeout: 60)]))
        }
        let run = try journey(harness, tree: "Bio", terminal: ScriptedTerminal(["demo", "demo", "1234", "9999", "5678", "5678"]))
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("no biometric sensor pingcli can use: a PIN of your choice protects the key instead"))
        #expect(run.stderr.contains("the two PINs differ"))
        #expect(try records(harness).first?.authentication == .biometricAllowFallback)
    }

    @Test("device-usernameless: Device Sign In with no user signs in the key's user; several keys are a menu")
    func usernameless() throws {
        let harness = try Self.harness()
        #expect(try journey(harness, tree: "Device Binding", terminal: ScriptedTerminal(["demo", "demo"])).status == 0)
        let one = try journey(harness, tree: "Device Sign In", terminal: ScriptedTerminal([]))
        #expect(one.status == 0, "\(one)")
        #expect(harness.emulator.journeySessions.last?.username == "demo")
        harness.clock.advance(by: 5)
        #expect(try journey(harness, tree: "Device Binding", terminal: ScriptedTerminal(["ada", "ada-pass"])).status == 0)
        let chosen = try journey(harness, tree: "Device Sign In", terminal: ScriptedTerminal(["2"]))
        #expect(chosen.status == 0, "\(chosen)")
        #expect(chosen.stderr.contains("Sign in as") && chosen.stderr.contains("1) ada (key") && chosen.stderr.contains("2) demo (key"))
        // Sessions (in no particular order): demo bound, signed in alone, then chose demo; ada only bound.
        let sessions = harness.emulator.journeySessions.map(\.username)
        #expect(sessions.filter { $0 == "demo" }.count == 3 && sessions.filter { $0 == "ada" }.count == 1, "\(sessions)")
    }

    @Test("device-no-key: no key bound here: the signing step gets the client error and one line says why")
    func noKey() throws {
        let harness = try Self.harness()
        let run = try journey(harness, tree: "Device Sign In", terminal: ScriptedTerminal([]))
        #expect(run.status == 1 && run.rule == .journeyLoginFailure, "\(run)")
        #expect(run.stderr.contains("no key is bound on this machine for anyone at \(harness.emulator.baseURL): telling the journey so"))
    }

    @Test("device-key-tampered: a changed or renamed key file does not decrypt; device-key-damaged: not a key file")
    func tampered() throws {
        let harness = try Self.harness()
        #expect(try journey(harness, tree: "Device Binding", terminal: ScriptedTerminal(["demo", "demo"])).status == 0)
        let store = store(harness)
        let (context, _) = try harness.context()
        let key = try context.store.commandKey().get()
        let id = try #require(store.ids().first)
        let other = DeviceKeyStore.newKeyID()
        try FileManager.default.copyItem(atPath: store.file(id), toPath: store.file(other))
        #expect(throws: SealedFailure.self) { try store.read(other, key: key) }
        do { _ = try store.read(other, key: key) } catch { #expect(error.rule == .deviceKeyTampered) }
        var bytes = try #require(try FileSystem.read(store.file(id), protection: .secret))
        bytes[bytes.count - 1] ^= 1
        try FileSystem.atomicWrite(store.file(id), bytes)
        do { _ = try store.read(id, key: key) } catch { #expect(error.rule == .deviceKeyTampered) }
        try FileSystem.atomicWrite(store.file(other), Array("not a key".utf8))
        do { _ = try store.read(other, key: key) } catch { #expect(error.rule == .deviceKeyDamaged) }
        #expect(try store.readAll(key: key).failures.count == 2)
    }

    @Test("journey-otp-account: --otp NAME answers the OATH verifier with the stored account's code, never shown; saved with the profile")
    func otpAccount() throws {
        let harness = try Self.harness()
        let (context, _) = try harness.context()
        let accounts = OTPAccounts(store: OTPStore(paths: harness.paths), key: context.store.commandKey(), clock: { harness.clock.now })
        try accounts.add(
            try OTPAuthURI.parse("otpauth://totp/PingAM:demo?secret=\(PingEmulator.JourneyTree.demoTOTPSecret)&issuer=PingAM"),
            replace: false)
        let code = try #require(OneTimeCode.totp(secret: PingEmulator.JourneyTree.demoTOTPSecret, at: harness.clock.now))
        let run = try journey(harness, tree: "OATH", terminal: ScriptedTerminal(["demo", "demo"]), otp: "PingAM:demo")
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("answered \"Enter verification code\" with the current code of the OTP account \"PingAM:demo\""))
        #expect(!run.stderr.contains(code) && !run.stdout.contains(code))
        let profile = try #require(try StoreAdvice.worded(context.store.readProfile(.default)))
        #expect(profile.otp == "PingAM:demo")
    }

    @Test("journey-oath-register: the registration step asks [y/N] naming this machine, stores the account, and it answers the verifier")
    func oathRegister() throws {
        let harness = try Self.harness()
        let run = try journey(harness, tree: "OATH Registration", terminal: ScriptedTerminal(["demo", "demo", "y"]))
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("Register this machine (") && run.stderr.contains("as your authenticator for one-time codes [y/N]"))
        #expect(run.stderr.contains("This machine now holds both factors of this sign-in"))
        let (context, _) = try harness.context()
        let accounts = OTPAccounts(store: OTPStore(paths: harness.paths), key: context.store.commandKey(), clock: { harness.clock.now })
        #expect(try accounts.list().map(\.name) == ["PingAM:demo"])
        #expect(try StoreAdvice.worded(context.store.readProfile(.default))?.otp == "PingAM:demo")
        let secret = try #require(harness.emulator.oathSecret(for: "demo"))
        #expect(!run.stderr.contains(secret) && !run.stderr.contains("otpauth"))
    }

    @Test(
        "journey-oath-register: --otp-enroll NAME registers without asking (no terminal); declined, the step is not confirmed and the sign-in ends"
    )
    func oathEnrollScripted() throws {
        let harness = try Self.harness()
        let run = try journey(
            harness, tree: "OATH Registration", terminal: nil, answers: "User Name=demo\nPassword=demo\n", enroll: "work")
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("registered this machine as the authenticator \"work\""))
        let declined = try journey(harness, tree: "OATH Registration", terminal: ScriptedTerminal(["demo", "demo", "n", "000000"]))
        #expect(declined.status == 1 && declined.rule == .journeyCancelled, "\(declined)")
    }
}
