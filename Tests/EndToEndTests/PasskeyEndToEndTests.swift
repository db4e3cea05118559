import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Passkeys in the terminal: WebAuthn Registration and Authentication nodes of the emulator's PingAM
/// (which verifies what AM verifies, with its own CBOR and signature checks), answered by the built
/// binary on a pseudo-terminal with this machine's TPM played by swtpm. The PIN is typed without echo
/// and is nowhere else; no private key is in any file.
@Suite("passkeys in a TPM (swtpm), end to end", .enabled(if: SoftwareTPM.available, "needs swtpm and tpm2-tss (make deps)"))
struct PasskeyEndToEndTests {
    let journeys = DeviceJourneyEndToEndTests()
    static let pin = "pk-2468"

    static func setUp(_ trees: [JourneyTree] = []) throws -> (Emulator, Sandbox) {
        try emulatorAndSandbox {
            $0.layout = .pingAM
            $0.users.append(DeviceJourneyEndToEndTests.ada)
            $0.journeys.trees += trees
        }
    }

    func signIn() -> [(String, String)] { journeys.userLines() }

    /// A new emulator, its sandbox and a software TPM holding ada's passkey, registered through the
    /// "Passkey Registration" tree (which must succeed).
    func registered(sourceLocation: SourceLocation = #_sourceLocation) throws -> (Emulator, Sandbox, SoftwareTPM) {
        let (emulator, sandbox) = try Self.setUp()
        let tpm = try SoftwareTPM()
        let made = try register(emulator, sandbox, tpm)
        #expect(made.status == 0, "\(made.transcript)", sourceLocation: sourceLocation)
        return (emulator, sandbox, tpm)
    }

    func register(
        _ emulator: Emulator, _ sandbox: Sandbox, _ tpm: SoftwareTPM, tree: String = "Passkey Registration", extra: [String] = []
    ) throws -> (status: Int32, transcript: String) {
        try journeys.login(
            emulator, sandbox, tree: tree,
            signIn() + [("Choose a PIN for this passkey: ", Self.pin), ("Repeat the PIN: ", Self.pin)], extra: extra,
            environment: ["TPM2TOOLS_TCTI": tpm.tcti])
    }

    /// `Passkey Login` (a user name, then the passkey) answered with `pins`.
    func login(
        _ emulator: Emulator, _ sandbox: Sandbox, tcti: String?, tree: String = "Passkey Login", pins: [String] = [pin],
        user: Bool = true, extra: [String] = []
    ) throws -> (status: Int32, transcript: String) {
        let steps = (user ? [("User Name: ", "ada")] : []) + pins.map { ("PIN for this machine's passkey: ", $0) }
        return try journeys.login(
            emulator, sandbox, tree: tree, steps, extra: extra, environment: tcti.map { ["TPM2TOOLS_TCTI": $0] } ?? [:])
    }

    @Test(
        "passkey-e2e-metadata: register a passkey in the TPM (metadata form, JSON answer), sign in with it twice: AM verifies origin, RP id hash, UV, the signature, a counter that moves forward"
    )
    func registerAndSignIn() throws {
        let (emulator, sandbox) = try Self.setUp()
        let tpm = try SoftwareTPM()
        let made = try register(emulator, sandbox, tpm, extra: ["--verbose"])
        #expect(made.status == 0, "\(made.transcript)")
        let credential = try #require(emulator.webAuthnCredentials().first, "\(made.transcript)")
        #expect(credential.username == "ada" && credential.deviceName.hasPrefix("pingcli on ") && credential.rpID == "127.0.0.1")
        #expect(made.transcript.contains("registering a passkey for ada at 127.0.0.1 with this machine's TPM"), "\(made.transcript)")
        #expect(
            made.transcript.contains(
                "(ES256) lives in this machine's TPM, behind the PIN the TPM checks; only the TPM's wrapped blob is on disk, sealed."),
            "\(made.transcript)")
        let registration = try #require(emulator.webAuthnAnswers().last)
        #expect(registration.hasPrefix("{\"authenticatorAttachment\":\"platform\",\"legacyData\":\"{"), "\(registration)")
        for round in 1...2 {
            let run = try login(emulator, sandbox, tcti: tpm.tcti)
            #expect(run.status == 0, "\(run.transcript)")
            #expect(emulator.webAuthnCredentials().first?.signCount == UInt32(round))
        }
        #expect(emulator.journeySessions.last?.username == "ada")
        // The challenge's answer (client data, authenticator data, signature) went to AM only: not in --verbose.
        let answerParts = try #require(emulator.webAuthnAnswers().first).components(separatedBy: "::")
        #expect(!made.transcript.contains("webauthn.create") && !made.transcript.contains(answerParts[1].prefix(40)), "\(made.transcript)")
        journeys.expectNowhere([Self.pin, DeviceJourneyEndToEndTests.password], [made.transcript], sandbox)
        let ecPrivateKey = Data([0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20])
        for (path, bytes) in journeys.files(sandbox) { #expect(bytes.range(of: ecPrivateKey) == nil, "\(path) holds an EC private key") }
    }

    @Test(
        "passkey-e2e-script: the script form (options inline in AM's JavaScript) registers and signs in; the answer is the legacy :: string"
    )
    func scriptForm() throws {
        let (emulator, sandbox) = try Self.setUp()
        let tpm = try SoftwareTPM()
        let made = try register(emulator, sandbox, tpm, tree: "Passkey Registration Script")
        #expect(made.status == 0, "\(made.transcript)")
        let answer = try #require(emulator.webAuthnAnswers().last)
        #expect(answer.hasPrefix("{\"type\":\"webauthn.create\"") && answer.components(separatedBy: "::").count == 4, "\(answer)")
        let run = try login(emulator, sandbox, tcti: tpm.tcti, tree: "Passkey Login Script")
        #expect(run.status == 0, "\(run.transcript)")
        #expect(emulator.webAuthnAnswers().last?.hasPrefix("{\"type\":\"webauthn.get\"") == true)
        #expect(!run.transcript.contains("navigator"), "a script was shown")
    }

    @Test("passkey-e2e-70: AM 7.0's metadata shape (no _action, no _ fields) and direct attestation (packed self attestation)")
    func olderShapes() throws {
        let (emulator, sandbox) = try Self.setUp()
        let tpm = try SoftwareTPM()
        #expect(try register(emulator, sandbox, tpm, tree: "Passkey Registration 7.0").status == 0)
        let direct = try register(emulator, sandbox, tpm, tree: "Passkey Registration Direct")
        #expect(direct.status == 0 && emulator.webAuthnCredentials().count == 2, "\(direct.transcript)")
    }

    @Test("passkey-e2e-usernameless: Passkey Sign In asks only for the PIN and signs the passkey's user in")
    func usernameless() throws {
        let (emulator, sandbox, tpm) = try registered()
        let run = try login(emulator, sandbox, tcti: tpm.tcti, tree: "Passkey Sign In", user: false)
        #expect(run.status == 0 && !run.transcript.contains("User Name"), "\(run.transcript)")
        #expect(run.transcript.contains("pingcli: signing in with passkey ") && run.transcript.contains(" of this machine's TPM."))
        #expect(emulator.journeySessions.last?.username == "ada")
    }

    @Test(
        "passkey-e2e-wrong-pin: a wrong PIN is refused by the TPM (counted, the passkey kept), the right one signs; the TPM is not locked out"
    )
    func wrongPIN() throws {
        let (emulator, sandbox, tpm) = try registered()
        let run = try login(emulator, sandbox, tcti: tpm.tcti, pins: ["wr0ng-1357", Self.pin])
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.transcript.contains("the TPM refused that PIN (the passkey is kept, 1 of "), "\(run.transcript)")
        #expect(TPMDeviceEndToEndTests.lockout(tpm) == "counter 1, inLockout false")
        journeys.expectNowhere([Self.pin, "wr0ng-1357"], [run.transcript], sandbox)
    }

    @Test(
        "passkey-e2e-lockout-near: two wrong PINs, and the third try (the one that would lock the TPM out) is not offered; no restart asks again"
    )
    func lockoutNear() throws {
        let (emulator, sandbox, tpm) = try registered()
        let run = try login(emulator, sandbox, tcti: tpm.tcti, pins: ["wr0ng-1111", "wr0ng-2222"])
        #expect(run.status == 1, "\(run.transcript)")
        let prompts = run.transcript.split(separator: "\n").filter { $0.hasPrefix("PIN for this machine's passkey") }
        #expect(prompts.count == 2, "\(run.transcript)")
        #expect(run.transcript.contains("has counted 2 of the 3 wrong authorisations it allows"), "\(run.transcript)")
        #expect(TPMDeviceEndToEndTests.lockout(tpm) == "counter 2, inLockout false")
    }

    @Test("passkey-e2e-other-tpm: a second, fresh TPM cannot sign with the first one's passkey (a copied home does nothing)")
    func otherTPM() throws {
        let (emulator, sandbox, tpm) = try registered()
        defer { withExtendedLifetime(tpm) {} }  // the first TPM stays up while the second is tried
        let elsewhere = try SoftwareTPM()
        let sessions = emulator.journeySessions.count
        let steps = [("User Name: ", "ada")]
        let run = try journeys.login(emulator, sandbox, tree: "Passkey Login", steps, environment: ["TPM2TOOLS_TCTI": elsewhere.tcti])
        #expect(run.status == 1 && run.transcript.contains("sealed by another TPM"), "\(run.transcript)")
        #expect(emulator.journeySessions.count == sessions, "signed in with another TPM")
    }

    @Test(
        "passkey-e2e-no-authenticator: no TPM and no security key: the step answers ERROR::NotAllowedError and the tree's failure branch (the password) runs"
    )
    func noAuthenticator() throws {
        let (emulator, sandbox) = try Self.setUp()
        let run = try journeys.login(
            emulator, sandbox, tree: "Passkey Login", [("User Name: ", "ada"), ("Password: ", DeviceJourneyEndToEndTests.password)])
        #expect(run.status == 0, "\(run.transcript)")
        #expect(emulator.webAuthnAnswers().last?.hasPrefix("ERROR::NotAllowedError:") == true, "\(emulator.webAuthnAnswers())")
        #expect(run.transcript.contains("no passkey for 127.0.0.1 on this machine"), "\(run.transcript)")
        let key = try journeys.login(emulator, sandbox, tree: "Security Key Registration", signIn())
        #expect(key.status == 1 && key.transcript.contains("registers a security key, and none is plugged in"), "\(key.transcript)")
        #expect(key.transcript.contains("not started over"), "the tree was walked again: \(key.transcript)")
    }

    @Test(
        "webauthn-rp-id: an RP id that is a public suffix, or not the origin's domain, is refused in one line; a registrable parent domain is used"
    )
    func relyingPartyID() throws {
        let suffix = WebAuthnNodeSettings(rpID: "co.uk", origins: ["https://login.example.co.uk"], residentKey: true)
        let other = WebAuthnNodeSettings(rpID: "example.org", origins: ["https://login.example.co.uk"], residentKey: true)
        let parent = WebAuthnNodeSettings(rpID: "example.co.uk", origins: ["https://login.example.co.uk"], residentKey: true)
        let signIn = JourneyNode.usernamePassword(usernamePrompt: "User Name", passwordPrompt: "Password")
        let (emulator, sandbox) = try Self.setUp([
            JourneyTree(name: "Suffix", nodes: [signIn, .webAuthnRegistration(suffix)]),
            JourneyTree(name: "Other", nodes: [signIn, .webAuthnRegistration(other)]),
            JourneyTree(name: "Parent", nodes: [signIn, .webAuthnRegistration(parent)]),
        ])
        let tpm = try SoftwareTPM()
        let answers = AMJourneys.answersFile(sandbox, ["User Name=ada", "Password=\(DeviceJourneyEndToEndTests.password)"])
        for tree in ["Suffix", "Other"] {
            let run = sandbox.run(
                [
                    "login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--journey", tree, "--webauthn-origin",
                    "https://login.example.co.uk", "--answers", answers,
                ], environment: ["TPM2TOOLS_TCTI": tpm.tcti])
            expectOneLineError(run, status: 1, rule: "webauthn-rp-id", contains: ["relying party"], secrets: [])
        }
        if FileManager.default.fileExists(atPath: "/usr/share/publicsuffix/public_suffix_list.dat") {
            let made = try register(emulator, sandbox, tpm, tree: "Parent", extra: ["--webauthn-origin", "https://login.example.co.uk"])
            let rpID = emulator.webAuthnCredentials().first?.rpID
            #expect(made.status == 0 && rpID == "example.co.uk", "\(made.transcript)")
            let profile = readText(sandbox.profileDirectory + "/profile.json") ?? ""
            #expect(profile.contains("\"webauthn_origin\""), "\(profile)")
        }
        let bad = sandbox.run(
            [
                "login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--journey", "Parent", "--webauthn-origin",
                "https://x.example/path",
            ])
        expectOneLineError(bad, status: 2, rule: "webauthn-origin", contains: ["is not an origin"], secrets: [])
    }

    @Test(
        "passkey-e2e-devices: devices lists the passkey (kind passkey, RP id, credential id) beside bound keys; devices remove deletes it here and at AM"
    )
    func devices() throws {
        let (emulator, sandbox, tpm) = try registered()
        let environment = ["TPM2TOOLS_TCTI": tpm.tcti]
        let list = sandbox.run(["devices"], environment: environment)
        let credential = try #require(emulator.webAuthnCredentials().first)
        #expect(
            list.status == 0 && list.stdout.contains("passkey") && list.stdout.contains("KIND") && list.stdout.contains("ada"), "\(list)")
        let json = sandbox.run(["devices", "--json"], environment: environment)
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        let entry = try #require(parsed?.first, "\(json)")
        #expect(entry["kind"] as? String == "passkey" && entry["rp_id"] as? String == "127.0.0.1", "\(json)")
        #expect(entry["credential_id"] as? String == credential.credentialID && entry["storage"] as? String == "tpm", "\(json)")
        let id = try #require(entry["key_id"] as? String)
        journeys.expectNowhere([Self.pin], [list.stdout, json.stdout], sandbox)
        let remove = sandbox.run(["devices", "remove", String(id.prefix(8))], environment: environment)
        #expect(remove.status == 0 && remove.stderr.contains("Removed passkey \(id) from this machine, and AM's record of it"), "\(remove)")
        #expect(emulator.webAuthnCredentials().isEmpty, "AM's record removed")
        #expect(sandbox.run(["devices"], environment: environment).stderr.contains("No device keys on this machine, and no passkeys"))
        // Without the passkey, the tree's failure branch (the password) runs.
        let after = try journeys.login(
            emulator, sandbox, tree: "Passkey Login", [("User Name: ", "ada"), ("Password: ", DeviceJourneyEndToEndTests.password)],
            environment: environment)
        #expect(after.status == 0 && emulator.webAuthnAnswers().last?.hasPrefix("ERROR::NotAllowedError") == true, "\(after.transcript)")
    }

    @Test("passkey-e2e-recovery: registration shows the generated recovery codes once; a later sign-in can choose a recovery code instead")
    func recoveryCodes() throws {
        let (emulator, sandbox) = try Self.setUp()
        let tpm = try SoftwareTPM()
        let made = try register(emulator, sandbox, tpm, tree: "Passkey Registration Recovery")
        #expect(made.status == 0, "\(made.transcript)")
        let codes = emulator.recoveryCodes(for: "ada")
        #expect(codes.count == 10 && codes.allSatisfy { made.transcript.contains($0) }, "\(made.transcript)")
        let run = try journeys.login(
            emulator, sandbox, tree: "Passkey Login Recovery",
            [("User Name: ", "ada"), ("Choose 1-2", "2"), ("Recovery Code: ", codes[3])], environment: ["TPM2TOOLS_TCTI": tpm.tcti])
        #expect(run.status == 0 && emulator.recoveryCodes(for: "ada").count == 9, "\(run.transcript)")
    }

    @Test(
        "passkey-e2e-answers: without a terminal, an --answers file carries the PIN under the prompt's text; a wrong one there is not tried again"
    )
    func answersFile() throws {
        let (emulator, sandbox) = try Self.setUp()
        let tpm = try SoftwareTPM()
        let password = DeviceJourneyEndToEndTests.password
        let register = AMJourneys.answersFile(
            sandbox, ["User Name=ada", "Password=\(password)", "Choose a PIN for this passkey=\(Self.pin)", "Repeat the PIN=\(Self.pin)"])
        let arguments = ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--journey"]
        let made = sandbox.run(arguments + ["Passkey Registration", "--answers", register], environment: ["TPM2TOOLS_TCTI": tpm.tcti])
        #expect(made.status == 0 && emulator.webAuthnCredentials().count == 1, "\(made)")
        let wrong = AMJourneys.answersFile(sandbox, ["User Name=ada", "PIN for this machine's passkey=9999"])
        let refused = sandbox.run(arguments + ["Passkey Login", "--answers", wrong], environment: ["TPM2TOOLS_TCTI": tpm.tcti])
        // The wrong PIN is refused once, the tree's Client Error path asks for the password, which the file lacks.
        #expect(refused.rule == "journey-no-answer", "\(refused)")
        #expect(refused.status != 0 && refused.stderr.contains("the TPM refused that PIN"), "\(refused)")
        #expect(refused.stderr.components(separatedBy: "the TPM refused that PIN").count == 2, "\(refused)")
        #expect(TPMDeviceEndToEndTests.lockout(tpm) == "counter 1, inLockout false")
        let right = AMJourneys.answersFile(sandbox, ["User Name=ada", "PIN for this machine's passkey=\(Self.pin)"])
        let run = sandbox.run(arguments + ["Passkey Login", "--answers", right], environment: ["TPM2TOOLS_TCTI": tpm.tcti])
        #expect(run.status == 0 && emulator.webAuthnCredentials().first?.signCount == 1, "\(run)")
        #expect(!made.stderr.contains(Self.pin) && !run.stderr.contains(Self.pin))
    }

    @Test("passkey-lazy: a passkey step maps tpm2-tss; token --raw on a cache hit maps neither a TPM library nor libfido2")
    func lazyLibraries() throws {
        let (emulator, sandbox) = try Self.setUp()
        let tpm = try SoftwareTPM()
        let made = try journeys.login(
            emulator, sandbox, tree: "Passkey Registration",
            signIn() + [("Choose a PIN for this passkey: ", Self.pin), ("Repeat the PIN: ", Self.pin)],
            environment: ["TPM2TOOLS_TCTI": tpm.tcti, "LD_DEBUG": "libs"])
        #expect(made.status == 0 && made.transcript.contains("libtss2-esys.so.0"), "a passkey step loads ESYS")
        let hit = sandbox.run(["token", "--raw"], environment: ["TPM2TOOLS_TCTI": tpm.tcti, "LD_DEBUG": "libs"])
        #expect(hit.status == 0 && hit.stderr.contains("calling init"), "LD_DEBUG=libs reported the libraries it loaded")
        #expect(!hit.stderr.contains("libtss2") && !hit.stderr.contains("libfido2"), "\(hit.stderr)")
    }
}
