import Foundation
import PingEmulator
import Testing

/// What login makes of its inputs before any network: the CA file (`--ca-file`, `PINGCLI_CA_FILE`) and `--prompt`.
@Suite("login inputs: the CA file and --prompt")
struct LoginInputTests {
    /// A PEM certificate in the sandbox.
    func certificate(_ sandbox: Sandbox, name: String = "ca.pem") throws -> String {
        let path = sandbox.root + "/" + name
        try TLSFront.makeCertificate(name: "ca.example.test", subjectAltName: "DNS:ca.example.test", certFile: path, keyFile: path + ".key")
        return path
    }

    @Test("ca-file-relative: a relative --ca-file is saved as an absolute path, usable from any directory")
    func relativeCAFileSavedAbsolute() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        _ = try certificate(sandbox)
        // sh changes directory first: the relative path only means something there.
        let login = runProcess(
            "/bin/sh",
            [
                "-c", "cd \"$1\" && exec \"$2\" login --issuer \"$3\" --client-id pingcli-test --timeout 30 --ca-file ./ca.pem", "sh",
                sandbox.root, Locations.pingcli, emulator.issuer,
            ], environment: sandbox.environment, timeout: 60)
        #expect(login.status == 0, "\(login)")
        let profile = try #require(readText(sandbox.profileDirectory + "/profile.json"))
        let saved = try #require(try JSONSerialization.jsonObject(with: Data(profile.utf8)) as? [String: Any])
        #expect(saved["ca_file"] as? String == sandbox.root + "/ca.pem", "\(profile)")
    }

    @Test(
        "ca-file-checked: a missing, non-PEM or non-regular CA file is a usage error before any network",
        arguments: [
            ("missing.pem", "No such file or directory"),
            ("not-pem.txt", "holds no PEM certificate"),
            ("directory", "is not a regular file"),
        ])
    func caFileChecked(file: String, message: String) throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        try "just text\n".write(toFile: sandbox.root + "/not-pem.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: sandbox.root + "/directory", withIntermediateDirectories: true)
        for (arguments, environment) in [
            (["--ca-file", sandbox.root + "/" + file], [:]), ([], ["PINGCLI_CA_FILE": sandbox.root + "/" + file]),
        ] {
            let run = sandbox.login(emulator, arguments, environment: environment)
            #expect(run.status == 2, "\(run)")
            #expect(run.stderr.contains(message) && run.stderr.contains("give the PEM file of the issuer's CA"), "\(run)")
            #expect(run.rule == "ca-file-gate", "\(run)")
            #expect(run.stderr.contains(environment.isEmpty ? "--ca-file" : "PINGCLI_CA_FILE"))
        }
        #expect(emulator.requests.isEmpty, "nothing reached the server")
    }

    @Test(
        "prompt-values: --prompt takes OIDC Core's values (several, or none alone); anything else is a usage error",
        arguments: [("bogus", false), ("login consent", true), ("none login", false), ("login login", false), ("select_account", true)])
    func promptValues(prompt: String, accepted: Bool) throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let run = sandbox.login(emulator, ["--prompt", prompt])
        if accepted {
            #expect(run.status == 0, "\(run)")
            #expect(emulator.authorizationRequestParameters.first?["prompt"] == prompt)
        } else {
            #expect(run.rule == "prompt-gate", "\(run)")
            #expect(run.status == 2, "\(run)")
            #expect(emulator.requests.isEmpty)
        }
    }
}
