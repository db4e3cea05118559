import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Device binding, signing and OATH through the built binary on a pseudo-terminal, against the
/// emulator's PingAM nodes: what the person types (password, PIN) is never echoed, and no private key,
/// PIN, OTP secret or code appears on the terminal, in `--verbose`, in argv or in any plain file.
@Suite("journeys with device binding and OATH, end to end on a terminal")
struct DeviceJourneyEndToEndTests {
    static let password = "ada-Secret-9"
    static let pin = "p1n-4711"
    static let ada = User(
        username: "ada", password: password, sub: "0b0e5d1c-2f3a-4b5c-8d9e-0f1a2b3c4d5e", name: "Ada", email: "ada@example.com",
        totpSecret: "JBSWY3DPEHPK3PXP")

    static func setUp() throws -> (Emulator, Sandbox) {
        try emulatorAndSandbox {
            $0.layout = .pingAM
            $0.users.append(Self.ada)
        }
    }

    /// `login --journey TREE` on a terminal; `steps` are (prompt, line) pairs typed in order (a password
    /// or PIN once the terminal's echo is off). Also checks that no typed secret is in pingcli's argv or
    /// environment while it waits.
    func login(
        _ emulator: Emulator, _ sandbox: Sandbox, tree: String, _ steps: [(String, String)], extra: [String] = [],
        environment: [String: String] = [:]
    ) throws -> (status: Int32, transcript: String) {
        let arguments = ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--journey", tree] + extra
        let session = try TerminalSession(sandbox, arguments, environment: environment)
        for (prompt, line) in steps {
            if prompt.contains("Password") || prompt.contains("PIN") {
                session.answerSecret(prompt, line)
                let process = session.processText()
                for (_, typed) in steps where typed.count >= 4 && typed != "ada" { #expect(!process.contains(typed), "in argv or environ") }
            } else {
                session.answer(prompt, line)
            }
        }
        let run = session.finish()
        return (run.status, run.stdout.replacingOccurrences(of: "\r", with: ""))
    }

    /// Every file under the sandbox, as bytes, with its path (but the test's own standard-input files).
    func files(_ sandbox: Sandbox) -> [(String, Data)] {
        var found: [(String, Data)] = []
        for case let relative as String in FileManager.default.enumerator(atPath: sandbox.root) ?? .init()
        where !relative.hasPrefix("stdin-") {
            if let bytes = FileManager.default.contents(atPath: sandbox.root + "/" + relative) { found.append((relative, bytes)) }
        }
        return found
    }

    func expectNowhere(_ secrets: [String], _ texts: [String], _ sandbox: Sandbox) {
        for secret in secrets {
            for text in texts { #expect(!text.contains(secret), "\"\(secret)\" shown: \(text)") }
            for (path, bytes) in files(sandbox) { #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(path) holds \"\(secret)\"") }
        }
    }

    func userLines(_ user: String = "ada", _ password: String = Self.password) -> [(String, String)] {
        [("User Name: ", user), ("Password: ", password)]
    }

    @Test(
        "device-e2e-none: bind with NONE, sign in with the device, devices lists it, devices remove deletes it here and at AM (with the saved session, never shown)"
    )
    func bindNoneAndSign() throws {
        let (emulator, sandbox) = try Self.setUp()
        let bind = try login(emulator, sandbox, tree: "Device Binding", userLines(), extra: ["--verbose"])
        #expect(bind.status == 0, "\(bind.transcript)")
        #expect(bind.transcript.contains("User Name: ada\n"), "the terminal echoes what is not secret, so a missing secret is meaningful")
        let keyID = try #require(emulator.boundDevices().first?.keyID)
        #expect(
            bind.transcript.contains("bound this machine for ada: key \(keyID) (ES256) lives in software, encrypted under the cache key"))
        let verify = try login(emulator, sandbox, tree: "Device Verify", userLines(), extra: ["--verbose"])
        #expect(verify.status == 0 && verify.transcript.contains("signed the challenge with device key \(keyID)"), "\(verify.transcript)")
        let list = sandbox.run(["devices"])
        #expect(list.status == 0 && list.stdout.contains(keyID) && list.stdout.contains("ada") && list.stdout.contains("ES256"), "\(list)")
        let json = sandbox.run(["devices", "--json"])
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(parsed?.first?["key_id"] as? String == keyID && parsed?.first?["storage"] as? String == "software", "\(json)")
        expectNowhere([Self.password], [bind.transcript, verify.transcript, list.stdout, json.stdout], sandbox)
        let session = try #require(emulator.journeySessions.last { !$0.ended }?.tokenId)
        let remove = sandbox.run(["devices", "remove", keyID, "--verbose"])
        #expect(remove.status == 0 && remove.stderr.contains("and AM's record of it at \(emulator.baseURL)"), "\(remove)")
        #expect(emulator.boundDevices().isEmpty, "AM's record removed")
        #expect(emulator.requests(to: .boundDevices).map(\.method) == ["GET", "DELETE"])
        #expect(remove.stderr.contains("> GET ") && remove.stderr.contains("> DELETE "), "--verbose traces both requests: \(remove)")
        expectNowhere([session], [remove.stdout, remove.stderr], sandbox)
        #expect(sandbox.run(["devices"]).stderr.contains("No device keys on this machine"))
        let again = sandbox.run(["devices", "remove", keyID])
        #expect(again.rule == "device-key-unknown", "\(again)")
        #expect(again.status == 1, "\(again)")
        let bad = sandbox.run(["devices", "remove", "../profiles"])
        #expect(bad.rule == "device-key-id", "\(bad)")
        #expect(bad.status == 2, "\(bad)")
    }

    @Test("device-e2e-pin: bind with a PIN (no echo), then a wrong PIN and the right one; the PIN is nowhere")
    func bindPIN() throws {
        let (emulator, sandbox) = try Self.setUp()
        let bind = try login(
            emulator, sandbox, tree: "Device Binding PIN",
            userLines() + [("Choose a PIN for this device key: ", Self.pin), ("Repeat the PIN: ", Self.pin)])
        #expect(bind.status == 0, "\(bind.transcript)")
        let verify = try login(
            emulator, sandbox, tree: "Device Verify",
            userLines() + [("PIN for device key", "wr0ng-1111"), ("PIN for device key", Self.pin)])
        #expect(verify.status == 0, "\(verify.transcript)")
        expectNowhere([Self.password, Self.pin, "wr0ng-1111"], [bind.transcript, verify.transcript], sandbox)
    }

    @Test("device-e2e-usernameless: Device Sign In asks nothing and signs the key's user in")
    func usernameless() throws {
        let (emulator, sandbox) = try Self.setUp()
        #expect(try login(emulator, sandbox, tree: "Device Binding", userLines()).status == 0)
        let signIn = try login(emulator, sandbox, tree: "Device Sign In", [])
        #expect(signIn.status == 0 && !signIn.transcript.contains("User Name"), "\(signIn.transcript)")
        #expect(emulator.journeySessions.last?.username == "ada")
        #expect(sandbox.run(["status"]).stdout.contains("ada") || sandbox.run(["token", "--raw"]).status == 0)
    }

    @Test("otp-e2e-journey: an OTP step answered with --otp from a stored account; the code is not shown")
    func otpAnswered() throws {
        let (emulator, sandbox) = try Self.setUp()
        let add = sandbox.run(["otp", "add"], input: "otpauth://totp/PingAM:ada?secret=JBSWY3DPEHPK3PXP&issuer=PingAM\n")
        #expect(add.status == 0, "\(add)")
        let run = try login(emulator, sandbox, tree: "OATH", userLines(), extra: ["--otp", "PingAM:ada"])
        #expect(run.status == 0 && run.transcript.contains("with the current code of the OTP account \"PingAM:ada\""), "\(run.transcript)")
        // Without the sandbox's path: its random UUID may hold six digits in a row ("…-332504D1-…").
        let shown = run.transcript.replacingOccurrences(of: sandbox.root, with: "SANDBOX")
        let sixDigits = shown.split(whereSeparator: { !$0.isNumber }).contains { $0.count == 6 }
        #expect(!sixDigits, "a code on the terminal: \(run.transcript)")
        expectNowhere([Self.password, "JBSWY3DPEHPK3PXP"], [run.transcript], sandbox)
        #expect(readText(sandbox.profileDirectory + "/profile.json")?.contains("\"otp\"") == true)
    }

    @Test("otp-e2e-register: the OATH registration step registers pingcli after [y/N]; the secret is in no file and not on the terminal")
    func register() throws {
        let (emulator, sandbox) = try Self.setUp()
        let run = try login(emulator, sandbox, tree: "OATH Registration", userLines() + [("[y/N]", "y")])
        #expect(run.status == 0 && run.transcript.contains("This machine now holds both factors"), "\(run.transcript)")
        let secret = try #require(emulator.oathSecret(for: "ada"))
        expectNowhere([Self.password, secret, "otpauth"], [run.transcript], sandbox)
        #expect(sandbox.run(["otp", "list"]).stdout.contains("PingAM:ada"))
    }
}
